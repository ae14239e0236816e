/**
 * The same source runs unchanged under Deno (`deno task start`) and Bun (what the binary is
 * built with): a session through each, straight from main.ts.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { modern, RawClient, ROOT } from "../helpers/raw_client.ts";

for (
  const [runtime, args] of [
    ["deno", ["run", "--allow-all", "main.ts"]],
    ["bun", ["run", "--no-env-file", "main.ts"]],
  ] as const
) {
  test(`from source under ${runtime}: discover, then a bash call`, async () => {
    const c = new RawClient(`${ROOT}node_modules/.bin/${runtime}`, [...args]);
    const discover = await c.request("server/discover", modern(), 30_000);
    assert.ok((discover.result?.supportedVersions as string[]).includes("2026-07-28"));
    const call = await c.request(
      "tools/call",
      modern({ name: "bash", arguments: { command: `echo from ${runtime}` } }),
    );
    assert.match(JSON.stringify(call.result?.content), new RegExp(`from ${runtime}\\\\n`));
    assert.equal((await c.close()).code, 0);
    assert.deepEqual(c.strayLines, []);
  });
}

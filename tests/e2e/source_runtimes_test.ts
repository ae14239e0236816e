/**
 * The same source runs unchanged under Deno (`deno task start`) and Bun (what the binary is
 * built with): a session through each, straight from main.ts, with a page fetched from a server
 * on 127.0.0.1 (its HTML converted in a worker loaded from source) and a file outlined (parsed in a
 * worker that reads its grammar from node_modules).
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";
import { BUN, DENO } from "../../scripts/toolchain.ts";
import { type LocalServer, serveLocally } from "../web/local_site.ts";

const e2e = e2eFixture();

let site: LocalServer;
before(async () => {
  site = await serveLocally((_req, res) => {
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end("<html><head><title>Local</title></head><body><h1>Local</h1><p>A <b>page</b>.</p>");
  });
});
after(() => site.close());

for (
  const [runtime, executable, args] of [
    ["deno", DENO, ["run", "--allow-all", "main.ts", "--allow-private-network"]],
    ["bun", BUN, ["run", "--no-env-file", "main.ts", "--allow-private-network"]],
  ] as const
) {
  test(`from source under ${runtime}: discover, a bash call, a fetched page, an outline`, async () => {
    const c = e2e.server({ binary: executable, args: [...args] });
    const discover = await c.request("server/discover", modern(), 30_000);
    assert.ok((discover.result?.supportedVersions as string[]).includes("2026-07-28"));
    const call = await c.request(
      "tools/call",
      modern({ name: "bash", arguments: { command: `echo "from ${runtime}"` } }),
    );
    assert.match(JSON.stringify(call.result?.content), new RegExp(`from ${runtime}(\\\\r)?\\\\n`));
    const page = await c.request(
      "tools/call",
      modern({ name: "fetch_url", arguments: { url: `${site.base}/` } }),
      30_000,
    );
    assert.match(JSON.stringify(page.result?.content), /# Local\\n\\nA \*\*page\*\*\./);
    const outline = await c.request(
      "tools/call",
      modern({
        name: "symbols",
        arguments: { operation: "outline", path: "tools/_lib/sandbox/_sandbox.ts" },
      }),
      60_000,
    );
    assert.match(JSON.stringify(outline.result?.content), /sandbox\.ts:\d+-\d+ class Sandbox/);
    assert.equal((await c.close()).code, 0);
    assert.deepEqual(c.strayLines, []);
  });
}

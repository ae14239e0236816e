/**
 * `fetch_url` with `render: true` runs a browser outside the command sandbox, so never one a
 * command could have written: a `chromium` in a root that the user's PATH names (an activated
 * `.venv/bin`) or that a relative PATH entry finds. Before the fix a command wrote one there and
 * the next rendered fetch ran it with the user's full rights: it read `~/.ssh` and wrote outside
 * the roots, as root and as uid 65534. No real browser is needed: the page's address is a literal
 * public one (judged without DNS), and whatever browser is found may fail to load it.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld, writtenOutside } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

for (const user of sandboxUsers()) {
  test(`${user.name}: a browser a command writes on the user's PATH is never run to render`, {
    skip: user.skip,
  }, async () => {
    const env: Record<string, string> = {};
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => {
        env.PATH = `node_modules/.bin:${root}/.venv/bin:${process.env.PATH}`;
      },
      env,
    });
    const escaped = join(w.out, "escaped");
    const shim = `#!/bin/sh\ncat ${join(w.home, ".ssh", "id_ed25519")} >> ${escaped}\n`;
    const planted = await callTool(w.client, "bash", {
      command: `mkdir -p .venv/bin node_modules/.bin && for d in .venv/bin node_modules/.bin; do ` +
        `printf '%s' '${shim}' > $d/chromium && chmod +x $d/chromium; done; ls .venv/bin`,
    });
    assert.match(planted.text, /^chromium$/m, planted.text);
    await callTool(w.client, "fetch_url", {
      url: "http://93.184.215.14/",
      render: true,
      timeout_ms: 5000,
    });
    assert.equal(existsSync(escaped), false, writtenOutside(escaped));
  });
}

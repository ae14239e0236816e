/**
 * The watchdog runs outside the command sandbox, so the programs its script runs (cat, grep,
 * sleep) are never ones a command could have written: a relative PATH entry (taken from its
 * working directory, the root) or one inside a root (an activated `.venv/bin`) are looked in only
 * after the system's directories. Before the fix a command wrote a `grep` and a `cat` there, and
 * the watchdog's sweep at the server's end ran them with the user's full rights (they wrote
 * outside the roots and read `~/.ssh`), as root and as uid 65534.
 */
import assert from "node:assert/strict";
import { existsSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld, writtenOutside } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

for (const user of sandboxUsers()) {
  test(`${user.name}: the watchdog never runs a program a command wrote on the user's PATH`, {
    skip: user.skip,
  }, async () => {
    const env: Record<string, string> = {};
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => {
        env.PATH = `node_modules/.bin:${root}/.venv/bin:${process.env.PATH}`;
      },
      // Only the watchdog is asked about here.
      env: Object.assign(env, { TOOLHOST_JOURNAL: "false" }),
    });
    const escaped = join(w.out, "escaped");
    const shims = ["cat", "grep", "sleep"].map((name) =>
      `printf '#!/bin/sh\\n/bin/cat ${join(w.home, ".ssh", "id_ed25519")} >> ${escaped}; ` +
      `echo ${name} >> ${escaped}\\nPATH=/usr/bin:/bin exec ${name} "$@"\\n' > $d/${name}; ` +
      `chmod +x $d/${name}`
    ).join("; ");
    const planted = await callTool(w.client, "bash", {
      command: `mkdir -p .venv/bin node_modules/.bin && for d in .venv/bin node_modules/.bin; do ` +
        `${shims}; done; ls .venv/bin`,
    });
    assert.match(planted.text, /^grep$/m, planted.text);
    // The end of input: toolhost exits, and the watchdog sweeps for what it left.
    w.client.closeStdin();
    await w.client.exited;
    await sleep(1500);
    assert.equal(existsSync(escaped), false, writtenOutside(escaped));
  });
}

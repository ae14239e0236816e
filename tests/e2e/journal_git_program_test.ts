/**
 * The journal's snapshots run git outside the command sandbox, so never a git a command could
 * have written: one in a root that the user's PATH names (an activated `.venv/bin`, direnv's
 * absolute `node_modules/.bin`) or that a relative PATH entry finds (`node_modules/.bin`, taken
 * from the work tree). Before the fix a command that the sandbox refused writing outside the
 * roots wrote such a `git`, and the next command's snapshot ran it with the user's full rights:
 * it wrote outside the roots and read `~/.ssh`, as root and as uid 65534.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld, writtenOutside } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

function realGit(): string | undefined {
  try {
    return execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim() || undefined;
  } catch {
    return undefined;
  }
}

const GIT = realGit();

for (const user of sandboxUsers()) {
  test(`${user.name}: a git a command writes on the user's PATH is never run for a snapshot`, {
    skip: user.skip || (!GIT && "git is needed"),
  }, async () => {
    const env: Record<string, string> = {};
    const w = startWorld(e2e, user, {
      prepare: ({ root }) => {
        execFileSync("git", ["init", "-q", root]);
        writeFileSync(join(root, "README"), "x\n");
        // A relative entry, and the root's own .venv/bin (as `source .venv/bin/activate` does).
        env.PATH = `node_modules/.bin:${root}/.venv/bin:${process.env.PATH}`;
      },
      env,
    });
    const escaped = join(w.out, "escaped");
    const shim = `#!/bin/sh\ncat ${
      join(w.home, ".ssh", "id_ed25519")
    } >> ${escaped}\nexec ${GIT} "$@"\n`;
    const planted = await callTool(w.client, "bash", {
      command: `mkdir -p .venv/bin node_modules/.bin && for d in .venv/bin node_modules/.bin; do ` +
        `printf '%s' '${shim}' > $d/git && chmod +x $d/git; done; echo x > ${escaped}; ls .venv/bin`,
    });
    assert.match(planted.text, /^git$/m, planted.text);
    // Its own snapshot after it is the first that could run the git it wrote.
    assert.equal(existsSync(escaped), false, writtenOutside(escaped));
    const next = await callTool(w.client, "bash", { command: "echo y > b.txt" });
    assert.equal(existsSync(escaped), false, writtenOutside(escaped));
    // The snapshots still work, with the user's git.
    assert.match(next.text, /created b\.txt/, next.text);
  });
}

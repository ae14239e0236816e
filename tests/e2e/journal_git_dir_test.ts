/**
 * What toolhost copies out of a repository's git directory into its own (in the state directory,
 * which commands may read) is read without following a link and without blocking: commands may
 * write `.git/info` and `.git/index`. Before the fix a `.git/info/exclude` linked to the home's
 * private key was copied there by the next server, where a command read it, and a FIFO in place
 * of `.git/index` held that server's first command for good (as root and as uid 65534).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

function hasGit(): boolean {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    execFileSync("mkfifo", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

for (const user of sandboxUsers()) {
  for (const plant of ["a linked exclude file", "a FIFO index"] as const) {
    test(`${user.name}: ${plant} in .git is not taken into the state`, {
      skip: user.skip || (!hasGit() && "git and mkfifo are needed"),
    }, async () => {
      const w = startWorld(e2e, user, {
        // As an earlier session's command may leave it (.git/info and the index are writable).
        prepare: ({ root, home }) => {
          execFileSync("git", ["init", "-q", root]);
          writeFileSync(join(root, "README"), "x\n");
          execFileSync("git", ["-C", root, "add", "README"]);
          if (plant === "a linked exclude file") {
            rmSync(join(root, ".git", "info", "exclude"), { force: true });
            symlinkSync(join(home, ".ssh", "id_ed25519"), join(root, ".git", "info", "exclude"));
          } else {
            rmSync(join(root, ".git", "index"));
            execFileSync("mkfifo", [join(root, ".git", "index")]);
          }
        },
      });
      // The first command makes toolhost's git directory: it returns, and journals its change.
      const first = await callTool(w.client, "bash", { command: "echo y > b.txt" });
      assert.match(first.text, /created b\.txt/, first.text);
      const read = await callTool(w.client, "bash", {
        command: `cat ${w.state}/projects/*/snapshots/*/*/info/exclude`,
      });
      assert.ok(!read.text.includes(w.secret), read.text);
    });
  }
}

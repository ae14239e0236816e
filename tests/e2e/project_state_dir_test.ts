/**
 * A project file comes with the repository, so it cannot choose where toolhost keeps its own files:
 * the state directory holds the command sandbox's helper, and a state directory the helper cannot
 * be put in (`/proc/self`) left no sandbox at all. Before the fix a repository's
 * `{"state_dir": "/proc/self"}` made every command run with the user's full rights: it read
 * `~/.ssh` and wrote outside the roots, as root and as uid 65534. Now the file is refused as its
 * other user-only keys are, and nothing runs.
 */
import assert from "node:assert/strict";
import { existsSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

for (const user of sandboxUsers()) {
  test(`${user.name}: a project file's state_dir cannot take the command sandbox away`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user, {
      prepare: ({ root }) =>
        writeFileSync(join(root, ".toolhost.jsonc"), '{ "state_dir": "/proc/self" }\n'),
      // Unset: the variable would outrank the project file.
      env: { TOOLHOST_STATE_DIR: "" },
    });
    const marker = join(w.out, "written-by-a-command");
    const reply = await callTool(w.client, "bash", {
      command: `cat ${join(w.home, ".ssh", "id_ed25519")}; echo x > ${marker}`,
    });
    assert.ok(!reply.text.includes(w.secret), reply.text);
    assert.equal(existsSync(marker), false, reply.text);
    assert.match(reply.text, /a project file cannot set state_dir/, reply.text);
  });
}

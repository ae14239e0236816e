/**
 * What toolhost keeps of its sessions (the journal, undo's kept contents, snapshots, plans, task
 * lists) is shown through history and undo, never read by a command: with OAuth it holds other
 * users' work, and a snapshot may hold what the command could not read where it was. Before, a
 * command printed the journal, and in it what another call had written.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { sandboxUsers, startWorld } from "../helpers/sandbox_users.ts";

const e2e = e2eFixture();

for (const user of sandboxUsers()) {
  test(`${user.name}: a command cannot read toolhost's journal, and history still can`, {
    skip: user.skip,
  }, async () => {
    const w = startWorld(e2e, user);
    const written = `kept-only-by-the-journal-${process.pid}`;
    const write = await callTool(w.client, "write_file", { path: "note.txt", content: written });
    assert.equal(write.isError, false, write.text);
    const removed = await callTool(w.client, "bash", { command: "rm note.txt" });
    assert.equal(removed.isError, false, removed.text);
    const look = await callTool(w.client, "bash", {
      command: `ls ${w.state}/projects; cat ${w.state}/projects/*/journal.jsonl; ` +
        `grep -r ${written} ${w.state}; echo looked`,
    });
    assert.match(look.text, /looked/, look.text);
    assert.doesNotMatch(look.text, new RegExp(written), look.text);
    assert.doesNotMatch(look.text, /journal\.jsonl"?\s*$/m, look.text);
    const history = await callTool(w.client, "history", {});
    assert.match(history.text, /write_file ok .*note\.txt/, history.text);
    const undo = await callTool(w.client, "undo", {});
    assert.equal(undo.isError, false, undo.text);
    const back = await callTool(w.client, "read_file", { path: "note.txt" });
    assert.match(back.text, new RegExp(written), back.text);
  });
}

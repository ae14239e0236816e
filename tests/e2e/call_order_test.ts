/**
 * Calls sent without waiting start in the order they came, even at start-up, while each tool's
 * argument checker is still being made: 30 pairs of write_file and edit_file on one file, sent in
 * one write to a fresh server, leave what running them one after another leaves, and undo steps
 * back through them one call at a time.
 */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";

const e2e = e2eFixture();
const root = e2e.file.scratch("order");
const state = e2e.file.scratch("order-state");
const client = e2e.file.server({
  args: ["--root", root],
  cwd: root,
  env: { TOOLHOST_STATE_DIR: state },
});

const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: modern({ name, arguments: args }),
  });

test("pipelined writes and edits of one file at start-up run in the order they came", async () => {
  const lines: string[] = [];
  for (let i = 0; i < 30; i++) {
    lines.push(call(2 * i, "write_file", { path: "f.txt", content: `V${i}\n` }));
    // Replaces the line end: run out of order, the edits would pile up after one write.
    lines.push(
      call(2 * i + 1, "edit_file", {
        path: "f.txt",
        edits: [{ old_string: "\n", new_string: `+E${i}\n` }],
      }),
    );
  }
  client.sendLine(lines.join("\n"));
  for (let id = 0; id < 60; id++) {
    const reply = await client.responseTo(id, 60_000);
    const result = reply.result as { isError?: boolean; content: { text: string }[] };
    assert.notEqual(result.isError, true, `call ${id}: ${result.content[0].text}`);
  }
  assert.equal(readFileSync(join(root, "f.txt"), "utf8"), "V29+E29\n");
  let undoId = 1000; // above the ids of the calls above, which the client did not number
  const undo = async () => {
    const id = client.start("tools/call", modern({ name: "undo", arguments: {} }), undoId++);
    return ((await client.responseTo(id, 30_000)).result as { content: { text: string }[] })
      .content[0].text;
  };
  const first = await undo();
  assert.equal(readFileSync(join(root, "f.txt"), "utf8"), "V29\n", first);
  await undo();
  assert.equal(readFileSync(join(root, "f.txt"), "utf8"), "V28+E28\n");
});

/**
 * Undo and sessions, through the compiled binary: two servers on one project (each its own
 * process, so its own session) share the journal, and a plain undo in one never reverts the
 * other's change; naming the other's id does; two servers undoing one call at once: one wins,
 * the other is refused, saying who undid it.
 */
import assert from "node:assert/strict";
import { existsSync, mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { callTool, okText } from "../helpers/tool_calls.ts";

const clients: RawClient[] = [];
const scratches: string[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
  for (const dir of scratches.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const scratch = (name: string) => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));
  scratches.push(dir);
  return dir;
};

function start(root: string, state: string) {
  const c = new RawClient(PRODUCT_BINARY, ["--root", root], root, { TOOLHOST_STATE_DIR: state });
  clients.push(c);
  return c;
}

/** The id of the newest history line naming `file`. */
async function idOf(c: RawClient, file: string): Promise<string> {
  const line = (await okText(c, "history", { path: file, tool: "write_file" })).split("\n")[0];
  return line.split(" ")[0];
}

test("a plain undo steps back only through its own session's changes; another's only by id", async () => {
  const root = scratch("js-root");
  const state = scratch("js-state");
  const a = start(root, state);
  const b = start(root, state);
  await okText(a, "write_file", { path: "a.txt", content: "A\n" });
  await okText(b, "write_file", { path: "b.txt", content: "B\n" });
  await okText(b, "write_file", { path: "b.txt", content: "B2\n" });

  // B's changes are the newest in the shared journal; A's plain undo takes A's own.
  assert.match(await okText(a, "undo", {}), /a\.txt: removed/);
  assert.equal(existsSync(join(root, "a.txt")), false);
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "B2\n");
  // Nothing of A's is left: refused, and B's file is still as B left it (a count too).
  for (const args of [{}, { count: 3 }]) {
    const refused = await callTool(a, "undo", args);
    assert.equal(refused.isError, true, refused.text);
    assert.match(refused.text, /no file change of this session .* naming its id/s);
    assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "B2\n");
  }

  // History says whose each change is.
  const history = await okText(a, "history", { tool: "write_file" });
  const lines = history.split("\n");
  assert.equal(lines.length, 3, history);
  assert.match(lines.find((l) => l.includes("a.txt"))!, /\[this session\]/);
  for (const line of lines.filter((l) => l.includes("b.txt"))) {
    assert.match(line, /\[session \d+-[0-9a-f]{6}\.\d+\]/);
  }
  // B sees the same lines the other way round.
  assert.match(await okText(b, "history", { path: "a.txt", tool: "write_file" }), /\[session /);

  // Named by its id, B's latest change is undone from A, and says whose it was.
  const undone = await okText(a, "undo", { id: await idOf(a, "b.txt") });
  assert.match(undone, /write_file \S+, session \d+-[0-9a-f]{6}\.\d+\)/);
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "B\n");
  // B's own plain undo skips what A undid and takes B's first write.
  assert.match(await okText(b, "undo", {}), /b\.txt: removed/);
  assert.equal(existsSync(join(root, "b.txt")), false);
});

test("two servers undoing one call at once: one wins, the other is refused with who undid it", async () => {
  const root = scratch("js-race-root");
  const state = scratch("js-race-state");
  const a = start(root, state);
  const b = start(root, state);
  for (let round = 0; round < 6; round++) {
    const name = `r${round}.txt`;
    await okText(a, "write_file", { path: name, content: `${round}\n` });
    const id = await idOf(a, name);
    const results = await Promise.all([a, b].map((c) => callTool(c, "undo", { id })));
    const won = results.filter((r) => !r.isError);
    const refused = results.filter((r) => r.isError);
    assert.equal(won.length, 1, JSON.stringify(results));
    assert.match(won[0].text, new RegExp(`${name.replace(".", "\\.")}: removed`));
    assert.match(
      refused[0].text,
      new RegExp(`call ${id} was already undone by undo call \\S+ \\(`),
    );
    assert.match(refused[0].text, /nothing was undone/);
    assert.equal(existsSync(join(root, name)), false);
  }
});

test("a redo makes its call live again: the next plain undo takes it, not an older one", async () => {
  const root = scratch("js-redo-root");
  const a = start(root, scratch("js-redo-state"));
  await okText(a, "write_file", { path: "r.txt", content: "one\n" });
  await okText(a, "write_file", { path: "r.txt", content: "two\n" });
  await okText(a, "undo", {}); // back to one
  const undoId = (await okText(a, "history", { tool: "undo" })).split(" ")[0];
  await okText(a, "undo", { id: undoId }); // redo: two again
  assert.equal(readFileSync(join(root, "r.txt"), "utf8"), "two\n");
  await okText(a, "undo", {}); // the redone write, again
  assert.equal(readFileSync(join(root, "r.txt"), "utf8"), "one\n");
  // The undo that was undone cannot be undone twice.
  const twice = await callTool(a, "undo", { id: undoId });
  assert.equal(twice.isError, true, twice.text);
  assert.match(twice.text, /already undone by undo call \S+ \(this session\)/);
});

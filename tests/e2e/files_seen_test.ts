/**
 * No edit of a person or another agent is lost, through the compiled binary: a write or edit of a
 * file changed (by another process) since this session read or wrote it is refused with what
 * changed, until the file is read again or `force` is given; a file never read is written as
 * before, and the session's own writes never count as changes.
 */
import assert from "node:assert/strict";
import {
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const clients: RawClient[] = [];
const scratch: string[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function root(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-seen-")));
  scratch.push(dir);
  return dir;
}

function server(dir: string): RawClient {
  const c = new RawClient(PRODUCT_BINARY, ["--root", dir]);
  clients.push(c);
  return c;
}

/** Another program's change: new content, and a modification time unlike the one read. */
function changeOutside(path: string, text: string, mtime = Date.now() / 1000 + 5) {
  writeFileSync(path, text);
  utimesSync(path, mtime, mtime);
}

test("write_file after another process changed the file: refused with what changed; read again, then it writes", async () => {
  const dir = root();
  const file = join(dir, "notes.md");
  writeFileSync(file, "# Notes\nfirst\nsecond\n");
  const c = server(dir);
  assert.equal((await callTool(c, "read_file", { path: "notes.md" })).isError, false);
  changeOutside(file, "# Notes\nfirst\nthe person's line\nsecond\n");

  const refused = await callTool(c, "write_file", { path: "notes.md", content: "mine\n" });
  assert.equal(refused.isError, true, refused.text);
  assert.match(
    refused.text,
    /^write_file was refused: notes\.md changed since this session read it/,
  );
  assert.match(refused.text, /21 bytes then, 39 bytes now/);
  assert.match(refused.text, /\+the person's line/);
  assert.match(refused.text, /or pass force: true to overwrite it\.$/);
  assert.equal(readFileSync(file, "utf8"), "# Notes\nfirst\nthe person's line\nsecond\n");

  assert.equal((await callTool(c, "read_file", { path: "notes.md" })).isError, false);
  const written = await callTool(c, "write_file", { path: "notes.md", content: "mine\n" });
  assert.equal(written.isError, false, written.text);
  assert.equal(readFileSync(file, "utf8"), "mine\n");
});

test("force writes over the change; the session's own writes and edits never count as changes", async () => {
  const dir = root();
  const file = join(dir, "a.txt");
  writeFileSync(file, "one\n");
  const c = server(dir);
  await callTool(c, "read_file", { path: "a.txt" });
  changeOutside(file, "two\n");
  const edit = { path: "a.txt", edits: [{ old_string: "two", new_string: "three" }] };
  const refused = await callTool(c, "edit_file", edit);
  assert.equal(refused.isError, true, refused.text);
  assert.match(refused.text, /^edit_file was refused: a\.txt changed since this session read it/);
  assert.match(refused.text, /the same size \(4 bytes\), different content/);

  const forced = await callTool(c, "edit_file", { ...edit, force: true });
  assert.equal(forced.isError, false, forced.text);
  assert.equal(readFileSync(file, "utf8"), "three\n");
  // Its own edit, then its own write: no read needed in between.
  const again = await callTool(c, "edit_file", {
    path: "a.txt",
    edits: [{ old_string: "three", new_string: "four" }],
  });
  assert.equal(again.isError, false, again.text);
  assert.equal(
    (await callTool(c, "write_file", { path: "a.txt", content: "five\n" })).isError,
    false,
  );
  // A change after the session's write counts too.
  changeOutside(file, "six\n");
  const afterWrite = await callTool(c, "write_file", { path: "a.txt", content: "seven\n" });
  assert.equal(afterWrite.isError, true, afterWrite.text);
  assert.match(afterWrite.text, /changed since this session wrote it/);
  assert.match(afterWrite.text, /-five\n\+six/);
});

test("a file this session never read, or one touched without a change, is written as before", async () => {
  const dir = root();
  writeFileSync(join(dir, "other.txt"), "x\n");
  writeFileSync(join(dir, "same.txt"), "same\n");
  const c = server(dir);
  assert.equal(
    (await callTool(c, "write_file", { path: "other.txt", content: "y\n" })).isError,
    false,
  );
  await callTool(c, "read_file", { path: "same.txt" });
  // Saved unchanged by an editor: new time, same bytes.
  changeOutside(join(dir, "same.txt"), "same\n");
  assert.equal(
    (await callTool(c, "write_file", { path: "same.txt", content: "new\n" })).isError,
    false,
  );
  assert.equal(readFileSync(join(dir, "same.txt"), "utf8"), "new\n");
});

test("another server's write counts as a change; each session answers for its own reads", async () => {
  const dir = root();
  const file = join(dir, "shared.txt");
  writeFileSync(file, "base\n");
  const first = server(dir);
  const second = server(dir);
  await callTool(first, "read_file", { path: "shared.txt" });
  await callTool(second, "read_file", { path: "shared.txt" });
  assert.equal(
    (await callTool(second, "write_file", { path: "shared.txt", content: "second\n" })).isError,
    false,
  );
  const refused = await callTool(first, "write_file", { path: "shared.txt", content: "first\n" });
  assert.equal(refused.isError, true, refused.text);
  assert.equal(readFileSync(file, "utf8"), "second\n");
});

test("writes and edits a session sends without waiting are its own: none is refused", async () => {
  const dir = root();
  const file = join(dir, "p.txt");
  writeFileSync(file, "v0\n");
  const c = server(dir);
  await callTool(c, "read_file", { path: "p.txt" });
  const replies = await Promise.all(
    Array.from(
      { length: 10 },
      (_, i) =>
        i % 2 === 0
          ? callTool(c, "write_file", { path: "p.txt", content: `v${i + 1}\n` })
          : callTool(c, "edit_file", {
            path: "p.txt",
            edits: [{ old_string: `v${i}`, new_string: `v${i + 1}` }],
          }),
    ),
  );
  assert.deepEqual(replies.filter((r) => r.isError).map((r) => r.text), []);
  assert.equal(readFileSync(file, "utf8"), "v10\n");
});

test("a file the session's undo restored is the session's own: the next write goes through", async () => {
  const dir = root();
  const file = join(dir, "u.txt");
  writeFileSync(file, "before\n");
  const c = server(dir);
  await callTool(c, "read_file", { path: "u.txt" });
  assert.equal(
    (await callTool(c, "write_file", { path: "u.txt", content: "after\n" })).isError,
    false,
  );
  const undone = await callTool(c, "undo", {});
  assert.equal(undone.isError, false, undone.text);
  assert.equal(readFileSync(file, "utf8"), "before\n");
  const again = await callTool(c, "write_file", { path: "u.txt", content: "again\n" });
  assert.equal(again.isError, false, again.text);
});

test("copy_file and move_file with overwrite refuse a destination changed since this session read it", async () => {
  const dir = root();
  writeFileSync(join(dir, "src.txt"), "from the source\n");
  writeFileSync(join(dir, "moved.txt"), "to be moved\n");
  writeFileSync(join(dir, "dest.txt"), "as read\n");
  const c = server(dir);
  assert.equal((await callTool(c, "read_file", { path: "dest.txt" })).isError, false);
  changeOutside(join(dir, "dest.txt"), "the person's change\n");

  for (const [tool, from] of [["copy_file", "src.txt"], ["move_file", "moved.txt"]]) {
    const refused = await callTool(c, tool, {
      source: from,
      destination: "dest.txt",
      overwrite: true,
    });
    assert.equal(refused.isError, true, refused.text);
    assert.match(
      refused.text,
      new RegExp(`^${tool} was refused: dest\\.txt changed since this session read it`),
    );
    assert.equal(readFileSync(join(dir, "dest.txt"), "utf8"), "the person's change\n");
  }
  assert.equal(readFileSync(join(dir, "moved.txt"), "utf8"), "to be moved\n");

  // Read again, the replacement is this session's to make.
  await callTool(c, "read_file", { path: "dest.txt" });
  const copied = await callTool(c, "copy_file", {
    source: "src.txt",
    destination: "dest.txt",
    overwrite: true,
  });
  assert.equal(copied.isError, false, copied.text);
  assert.equal(readFileSync(join(dir, "dest.txt"), "utf8"), "from the source\n");
});

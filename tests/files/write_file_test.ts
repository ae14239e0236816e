/** write_file in-process: create, overwrite, modes, symlinks written through, refusals. */
import assert from "node:assert/strict";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import writeFile from "../../tools/files/write_file.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const write = (root: string, args: Record<string, unknown>) => callInRoots(writeFile, [root], args);

test("a new file is created with its parent directories, and the result says so", async () => {
  const root = scratchDir("toolhost-write-");
  const { text, data } = await write(root, { path: "deep/er/notes.md", content: "héllo\nworld\n" });
  assert.equal(readFileSync(join(root, "deep/er/notes.md"), "utf8"), "héllo\nworld\n");
  assert.equal(
    text,
    "Created deep/er/notes.md: 13 bytes, 2 lines.\nCreated the directory deep for it.",
  );
  assert.deepEqual(data, {
    path: "deep/er/notes.md",
    created: true,
    bytes: 13,
    previousBytes: null,
    createdDirectory: "deep",
  });
});

test(
  "overwriting keeps the file's mode and says what it replaced, leaving no temporary file",
  posixOnly("POSIX file modes (0751, 07777)"),
  async () => {
    const root = scratchDir("toolhost-write-");
    const file = join(root, "run.sh");
    writeFileSync(file, "old content\n");
    chmodSync(file, 0o751);
    const { text, data } = await write(root, { path: "run.sh", content: "#!/bin/sh\necho new" });
    assert.equal(readFileSync(file, "utf8"), "#!/bin/sh\necho new");
    assert.equal(statSync(file).mode & 0o7777, 0o751);
    assert.equal(text, "Overwrote run.sh: 18 bytes, 2 lines (it held 12 bytes).");
    assert.equal(data.created, false);
    assert.equal(data.previousBytes, 12);
    assert.deepEqual(readdirSync(root), ["run.sh"]);
  },
);

test("a symlink is written through to its target, and stays a link", async () => {
  const root = scratchDir("toolhost-write-");
  mkdirSync(join(root, "real"));
  writeFileSync(join(root, "real", "config.json"), "{}");
  symlinkSync("real/config.json", join(root, "config.json"));
  const { data } = await write(root, { path: "config.json", content: '{"a":1}' });
  assert.equal(data.path, "real/config.json");
  assert.ok(lstatSync(join(root, "config.json")).isSymbolicLink());
  assert.equal(readFileSync(join(root, "real", "config.json"), "utf8"), '{"a":1}');
});

test("a symlink to a file not yet created creates the target inside the roots", async () => {
  const root = scratchDir("toolhost-write-");
  symlinkSync("later/target.txt", join(root, "link.txt"));
  const { data } = await write(root, { path: "link.txt", content: "made" });
  assert.equal(data.path, "later/target.txt");
  assert.equal(data.created, true);
  assert.ok(lstatSync(join(root, "link.txt")).isSymbolicLink());
  assert.equal(readFileSync(join(root, "later", "target.txt"), "utf8"), "made");
});

test("a dangling symlink that leads outside the roots is refused", async () => {
  const root = scratchDir("toolhost-write-");
  const outside = scratchDir("toolhost-outside-");
  symlinkSync(join(outside, "new.txt"), join(root, "escape.txt"));
  const { result, text } = await write(root, { path: "escape.txt", content: "x" });
  assert.equal(result.isError, true);
  assert.match(text, /is outside the allowed roots/);
  assert.deepEqual(readdirSync(outside), []);
});

test("a directory in place of the file, or a non-directory in place of a parent, is a clear error", async () => {
  const root = scratchDir("toolhost-write-");
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "plain"), "p");
  symlinkSync("missing", join(root, "dangling"));
  const dir = await write(root, { path: "src", content: "x" });
  assert.equal(dir.result.isError, true);
  assert.equal(dir.text, "src is a directory; give the path of a file, e.g. src/name.txt.");
  const parent = await write(root, { path: "plain/sub/file.txt", content: "x" });
  assert.equal(parent.result.isError, true);
  assert.match(parent.text, /plain is a file, not a directory/);
  assert.equal(readFileSync(join(root, "plain"), "utf8"), "p");
  const link = await write(root, { path: "dangling/file.txt", content: "x" });
  assert.equal(link.result.isError, true);
  assert.equal(
    link.text,
    "cannot create the directory dangling: dangling is a symlink, not a directory. Choose " +
      "another path, or move it away with move_file first.",
  );
});

test(
  'mode "append" adds at the end, creating the file; keeps its inode; never a FIFO',
  posixOnly("makes a FIFO, POSIX mode 0444"),
  async () => {
    const root = scratchDir("toolhost-write-");
    const first = await write(root, { path: "log/a.log", content: "one\n", mode: "append" });
    assert.equal(
      first.text,
      "Created log/a.log: 4 bytes added, 4 bytes now.\nCreated the directory log for it.",
    );
    const inode = statSync(join(root, "log/a.log")).ino;
    const second = await write(root, { path: "log/a.log", content: "two\n", mode: "append" });
    assert.equal(second.text, "Appended to log/a.log: 4 bytes added, 8 bytes now.");
    assert.deepEqual(second.data, {
      path: "log/a.log",
      created: false,
      bytes: 4,
      previousBytes: 4,
      createdDirectory: null,
    });
    assert.equal(readFileSync(join(root, "log/a.log"), "utf8"), "one\ntwo\n");
    assert.equal(statSync(join(root, "log/a.log")).ino, inode, "appended in place, not rewritten");
    spawnSync("mkfifo", [join(root, "fifo")]);
    const fifo = await write(root, { path: "fifo", content: "x", mode: "append" });
    assert.equal(fifo.result.isError, true);
    assert.match(fifo.text, /not a regular file/);
    chmodSync(join(root, "log/a.log"), 0o444);
    const readOnly = await write(root, { path: "log/a.log", content: "x", mode: "append" });
    assert.match(readOnly.text, /read-only/);
  },
);

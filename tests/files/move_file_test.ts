/** move_file in-process: renames, overwrite rules, directories, symlinks, across filesystems. */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import moveFile from "../../tools/files/move_file.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const move = (roots: string[], args: Record<string, unknown>) => callInRoots(moveFile, roots, args);

test("a file is renamed into new parent directories", async () => {
  const root = scratchDir("toolhost-move-");
  writeFileSync(join(root, "a.txt"), "A");
  const { text, data } = await move([root], { source: "a.txt", destination: "x/y/b.txt" });
  assert.equal(text, "Moved a.txt to x/y/b.txt.");
  assert.deepEqual(data, {
    source: "a.txt",
    destination: "x/y/b.txt",
    type: "file",
    overwritten: false,
    copied: false,
  });
  assert.equal(readFileSync(join(root, "x/y/b.txt"), "utf8"), "A");
  assert.equal(existsSync(join(root, "a.txt")), false);
});

test("an existing destination is refused unless overwrite is true", async () => {
  const root = scratchDir("toolhost-move-");
  writeFileSync(join(root, "new.txt"), "new");
  writeFileSync(join(root, "old.txt"), "old");
  const refused = await move([root], { source: "new.txt", destination: "old.txt" });
  assert.equal(refused.result.isError, true);
  assert.equal(
    refused.text,
    "destination old.txt already exists (a file); pass overwrite: true to replace it.",
  );
  assert.equal(readFileSync(join(root, "old.txt"), "utf8"), "old");
  assert.equal(readFileSync(join(root, "new.txt"), "utf8"), "new");
  const replaced = await move([root], {
    source: "new.txt",
    destination: "old.txt",
    overwrite: true,
  });
  assert.equal(replaced.text, "Moved new.txt to old.txt (replaced the file that was there).");
  assert.equal(replaced.data.overwritten, true);
  assert.deepEqual(readdirSync(root), ["old.txt"]);
  assert.equal(readFileSync(join(root, "old.txt"), "utf8"), "new");
});

test("directories move whole; kinds are not mixed and a full directory is not replaced", async () => {
  const root = scratchDir("toolhost-move-");
  mkdirSync(join(root, "src/inner"), { recursive: true });
  writeFileSync(join(root, "src/inner/f"), "f");
  mkdirSync(join(root, "full"));
  writeFileSync(join(root, "full/keep"), "k");
  writeFileSync(join(root, "file"), "");
  const fileOverDir = await move([root], { source: "file", destination: "full" });
  assert.equal(
    fileOverDir.text,
    "full is a directory; a file cannot replace it. Give the full new path instead, e.g. full/file.",
  );
  const dirOverDir = await move([root], { source: "src", destination: "full" });
  assert.equal(
    dirOverDir.text,
    "destination full already exists (a directory); pass overwrite: true to replace it (only " +
      "when it is empty), or give a path inside it (e.g. full/src) to move into it.",
  );
  const dirOverFile = await move([root], { source: "src", destination: "file", overwrite: true });
  assert.match(dirOverFile.text, /^file is a file; a directory cannot replace it/);
  const dirOverFull = await move([root], { source: "src", destination: "full", overwrite: true });
  assert.match(dirOverFull.text, /^full is a directory that is not empty/);
  assert.equal(readFileSync(join(root, "full/keep"), "utf8"), "k");
  const moved = await move([root], { source: "src", destination: "lib" });
  assert.equal(moved.data.type, "directory");
  assert.equal(readFileSync(join(root, "lib/inner/f"), "utf8"), "f");
  mkdirSync(join(root, "empty"));
  const overEmpty = await move([root], { source: "lib", destination: "empty", overwrite: true });
  assert.equal(overEmpty.result.isError, undefined, overEmpty.text);
  assert.equal(readFileSync(join(root, "empty/inner/f"), "utf8"), "f");
});

test("a symlink is moved itself, not its target", async () => {
  const root = scratchDir("toolhost-move-");
  writeFileSync(join(root, "target.txt"), "t");
  symlinkSync("target.txt", join(root, "link"));
  const { data } = await move([root], { source: "link", destination: "renamed-link" });
  assert.equal(data.type, "symlink");
  assert.equal(readlinkSync(join(root, "renamed-link")), "target.txt");
  assert.equal(readFileSync(join(root, "target.txt"), "utf8"), "t");
  assert.equal(existsSync(join(root, "link")), false);
});

test(
  "moving into itself, moving a root, a missing source and the same path are refused",
  posixOnly("moves onto /dev"),
  async () => {
    const root = scratchDir("toolhost-move-");
    mkdirSync(join(root, "dir"));
    writeFileSync(join(root, "f"), "");
    const itself = await move([root], { source: "dir", destination: "dir/sub/dir" });
    assert.match(itself.text, /^cannot move dir into itself \(dir\/sub\/dir\)/);
    const theRoot = await move([root], { source: ".", destination: "elsewhere" });
    assert.equal(theRoot.text, ". is an allowed root; it cannot be moved.");
    const missing = await move([root], { source: "ghost", destination: "g2" });
    assert.match(missing.text, /^source ghost does not exist/);
    const same = await move([root], { source: "f", destination: "./f" });
    assert.equal(same.text, "source and destination are the same path (f).");
    assert.deepEqual(readdirSync(root).sort(), ["dir", "f"]);
  },
);

/** /dev/shm is a tmpfs on Linux: a second filesystem to move across. */
const otherFilesystem = existsSync("/dev/shm") &&
  statSync("/dev/shm").dev !== statSync(tmpdir()).dev;

test(
  "across filesystems a tree is copied with modes and links, then the source removed",
  {
    skip: !otherFilesystem && "no second filesystem (/dev/shm) to move across",
  },
  async () => {
    const disk = scratchDir("toolhost-move-");
    const memory = scratchDir("toolhost-move-", "/dev/shm");
    mkdirSync(join(disk, "tree/sub"), { recursive: true });
    writeFileSync(join(disk, "tree/sub/run.sh"), "#!/bin/sh\n");
    chmodSync(join(disk, "tree/sub/run.sh"), 0o750);
    symlinkSync("sub/run.sh", join(disk, "tree/link"));
    const { text, data } = await move([disk, memory], {
      source: "tree",
      destination: join(memory, "moved"),
    });
    assert.equal(data.copied, true, text);
    assert.match(text, /\(copied across filesystems, then the source removed\)\.$/);
    assert.equal(existsSync(join(disk, "tree")), false);
    assert.equal(readFileSync(join(memory, "moved/sub/run.sh"), "utf8"), "#!/bin/sh\n");
    assert.equal(statSync(join(memory, "moved/sub/run.sh")).mode & 0o777, 0o750);
    assert.equal(readlinkSync(join(memory, "moved/link")), "sub/run.sh");
    assert.ok(lstatSync(join(memory, "moved/link")).isSymbolicLink());
    assert.deepEqual(readdirSync(memory), ["moved"]);
  },
);

test("both paths must be inside the roots", async () => {
  const root = scratchDir("toolhost-move-");
  const outside = scratchDir("toolhost-outside-");
  writeFileSync(join(root, "f"), "");
  writeFileSync(join(outside, "o"), "");
  const out = await move([root], { source: "f", destination: join(outside, "f") });
  assert.match(out.text, /outside the allowed roots/);
  const inward = await move([root], { source: join(outside, "o"), destination: "o" });
  assert.match(inward.text, /outside the allowed roots/);
  assert.deepEqual(readdirSync(root), ["f"]);
  assert.deepEqual(readdirSync(outside), ["o"]);
});

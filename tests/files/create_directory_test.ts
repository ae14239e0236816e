/** create_directory in-process: mkdir -p, an existing directory, something in the way. */
import assert from "node:assert/strict";
import { mkdirSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import createDirectory from "../../tools/files/create_directory.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";

const create = (root: string, path: string) => callInRoots(createDirectory, [root], { path });

test("missing parents are created too", async () => {
  const root = scratchDir("toolhost-mkdir-");
  const { text, data } = await create(root, "a/b/c");
  assert.ok(statSync(join(root, "a/b/c")).isDirectory());
  assert.equal(text, "Created the directory a/b/c (with its parents from a).");
  assert.deepEqual(data, { path: "a/b/c", created: true });
  const one = await create(root, "a/d");
  assert.equal(one.text, "Created the directory a/d.");
});

test("an existing directory is reported, not an error", async () => {
  const root = scratchDir("toolhost-mkdir-");
  mkdirSync(join(root, "there"));
  const { result, text, data } = await create(root, "there");
  assert.equal(result.isError, undefined);
  assert.equal(text, "there already exists as a directory; nothing to do.");
  assert.deepEqual(data, { path: "there", created: false });
});

test("a file at the path or at a parent, or a dangling symlink, is a clear error", async () => {
  const root = scratchDir("toolhost-mkdir-");
  writeFileSync(join(root, "file"), "");
  symlinkSync("missing", join(root, "dangling"));
  const itself = await create(root, "file");
  assert.equal(itself.result.isError, true);
  assert.equal(
    itself.text,
    "file already exists as a file, not a directory. Choose another path, or move it away " +
      "with move_file first.",
  );
  const parent = await create(root, "file/sub");
  assert.equal(parent.result.isError, true);
  assert.match(parent.text, /file\/sub.*not a directory/);
  const link = await create(root, "dangling");
  assert.match(
    link.text,
    /^cannot create the directory dangling: dangling is a symlink, not a directory/,
  );
});

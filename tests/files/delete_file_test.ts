/** delete_file in-process: files, links, directories only with recursive, never a root. */
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import deleteFile from "../../tools/files/delete_file.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";

const del = (roots: string[], args: Record<string, unknown>) =>
  callInRoots(deleteFile, roots, args);

test("a file is deleted, and a link is deleted without touching its target", async () => {
  const root = scratchDir();
  const outside = scratchDir();
  writeFileSync(join(root, "a.txt"), "hello");
  writeFileSync(join(outside, "target.txt"), "keep");
  symlinkSync(join(outside, "target.txt"), join(root, "link"));
  const file = await del([root], { path: "a.txt" });
  assert.equal(file.text, "Deleted the file a.txt (5 bytes).");
  assert.deepEqual(file.data, { path: "a.txt", type: "file", entries: 0, bytes: 5 });
  assert.equal(existsSync(join(root, "a.txt")), false);
  // The link's target is outside the roots: the path is refused, not followed.
  const link = await del([root], { path: "link" });
  assert.equal(link.result.isError, true);
  assert.equal(readFileSync(join(outside, "target.txt"), "utf8"), "keep");
  symlinkSync("a-missing-file", join(root, "dangling"));
  symlinkSync("sub", join(root, "inside-link"));
  mkdirSync(join(root, "sub"));
  writeFileSync(join(root, "sub", "f"), "x");
  const inside = await del([root], { path: "inside-link" });
  assert.equal(inside.text, "Deleted the symlink inside-link.");
  assert.equal(existsSync(join(root, "sub", "f")), true);
});

test("a directory needs recursive; a tree is removed through held directories", async () => {
  const root = scratchDir();
  const outside = scratchDir();
  writeFileSync(join(outside, "keep.txt"), "keep");
  mkdirSync(join(root, "tree", "a", "b"), { recursive: true });
  writeFileSync(join(root, "tree", "a", "b", "f.txt"), "12345");
  writeFileSync(join(root, "tree", "g.txt"), "1");
  symlinkSync(outside, join(root, "tree", "out"));
  const refused = await del([root], { path: "tree" });
  assert.equal(refused.result.isError, true);
  assert.match(refused.text, /is a directory; pass recursive: true/);
  const done = await del([root], { path: "tree", recursive: true });
  assert.equal(done.result.isError, undefined, done.text);
  assert.deepEqual(done.data, { path: "tree", type: "directory", entries: 5, bytes: 6 });
  assert.equal(existsSync(join(root, "tree")), false);
  assert.equal(readFileSync(join(outside, "keep.txt"), "utf8"), "keep");
  assert.ok(lstatSync(outside).isDirectory());
});

test("never a root, nor a directory holding one; a missing path is an error", async () => {
  const root = scratchDir();
  mkdirSync(join(root, "inner", "nested"), { recursive: true });
  for (const path of [".", root]) {
    const r = await del([root], { path, recursive: true });
    assert.equal(r.result.isError, true);
    assert.match(r.text, /is an allowed root; delete_file never deletes a root/);
  }
  const holds = await del([root, join(root, "inner", "nested")], {
    path: "inner",
    recursive: true,
  });
  assert.match(holds.text, /holds the allowed root .*nested/);
  assert.ok(existsSync(join(root, "inner", "nested")));
  const missing = await del([root], { path: "nope.txt" });
  assert.match(missing.text, /nope\.txt does not exist; nothing was deleted/);
});

/** copy_file in-process: files, trees, links as links, overwrite rules, never into itself. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import copyFile from "../../tools/files/copy_file.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const copy = (roots: string[], args: Record<string, unknown>) => callInRoots(copyFile, roots, args);

test(
  "a file is copied with its permissions, creating parents; overwrite is asked for",
  posixOnly("POSIX file modes (0751) are copied"),
  async () => {
    const root = scratchDir();
    writeFileSync(join(root, "a.sh"), "echo hi\n");
    chmodSync(join(root, "a.sh"), 0o751);
    const done = await copy([root], { source: "a.sh", destination: "bin/b.sh" });
    assert.equal(done.text, "Copied a.sh to bin/b.sh (8 bytes).");
    assert.equal(readFileSync(join(root, "bin/b.sh"), "utf8"), "echo hi\n");
    assert.equal(statSync(join(root, "bin/b.sh")).mode & 0o777, 0o751);
    writeFileSync(join(root, "a.sh"), "echo new\n");
    const refused = await copy([root], { source: "a.sh", destination: "bin/b.sh" });
    assert.match(refused.text, /already exists \(a file\); pass overwrite: true/);
    const again = await copy([root], { source: "a.sh", destination: "bin/b.sh", overwrite: true });
    assert.equal(again.data.overwritten, true);
    assert.equal(readFileSync(join(root, "bin/b.sh"), "utf8"), "echo new\n");
    const intoDir = await copy([root], { source: "a.sh", destination: "bin", overwrite: true });
    assert.match(intoDir.text, /bin is a directory; a file cannot replace it/);
    assert.deepEqual(readdirSync(join(root, "bin")), ["b.sh"]);
  },
);

test(
  "a directory needs recursive; links are copied as links, FIFOs skipped",
  posixOnly("makes a FIFO"),
  async () => {
    const root = scratchDir();
    const outside = scratchDir();
    writeFileSync(join(outside, "secret"), "secret");
    mkdirSync(join(root, "src", "deep"), { recursive: true });
    writeFileSync(join(root, "src", "deep", "f.txt"), "abc");
    symlinkSync(outside, join(root, "src", "out"));
    symlinkSync("deep/f.txt", join(root, "src", "rel"));
    execFileSync("mkfifo", [join(root, "src", "pipe")]);
    assert.match((await copy([root], { source: "src", destination: "dst" })).text, /recursive/);
    const done = await copy([root], { source: "src", destination: "dst", recursive: true });
    assert.equal(done.result.isError, undefined, done.text);
    assert.deepEqual(done.data, {
      source: "src",
      destination: "dst",
      type: "directory",
      entries: 5,
      bytes: 3,
      overwritten: false,
      skipped: ["src/pipe (FIFO (named pipe))"],
    });
    assert.equal(readFileSync(join(root, "dst", "deep", "f.txt"), "utf8"), "abc");
    assert.equal(readlinkSync(join(root, "dst", "out")), outside);
    assert.equal(readlinkSync(join(root, "dst", "rel")), "deep/f.txt");
    assert.equal(existsSync(join(root, "dst", "pipe")), false);
    // No temporary copy is left beside it.
    assert.deepEqual(readdirSync(root).sort(), ["dst", "src"]);
  },
);

test("a tree replaces only an empty directory; never into itself; sources outside refused", async () => {
  const root = scratchDir();
  const outside = scratchDir();
  mkdirSync(join(root, "src"));
  writeFileSync(join(root, "src", "f"), "1");
  mkdirSync(join(root, "full"));
  writeFileSync(join(root, "full", "g"), "2");
  mkdirSync(join(root, "empty"));
  const full = await copy([root], {
    source: "src",
    destination: "full",
    recursive: true,
    overwrite: true,
  });
  assert.match(full.text, /full is a directory that is not empty/);
  assert.deepEqual(readdirSync(root).sort(), ["empty", "full", "src"]);
  const empty = await copy([root], {
    source: "src",
    destination: "empty",
    recursive: true,
    overwrite: true,
  });
  assert.equal(empty.result.isError, undefined, empty.text);
  assert.equal(readFileSync(join(root, "empty", "f"), "utf8"), "1");
  const itself = await copy([root], { source: "src", destination: "src/sub", recursive: true });
  assert.match(itself.text, /cannot copy src into itself/);
  writeFileSync(join(outside, "secret"), "s");
  const escape = await copy([root], { source: join(outside, "secret"), destination: "s" });
  assert.match(escape.text, /outside the allowed roots/);
  const out = await copy([root], { source: "src/f", destination: join(outside, "f") });
  assert.match(out.text, /outside the allowed roots/);
  assert.deepEqual(readdirSync(outside), ["secret"]);
});

/** file_info in-process: every type, permissions, times, contents and line counts. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, mkdirSync, statSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import fileInfo from "../../tools/files/file_info.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const info = (root: string, path: string) => callInRoots(fileInfo, [root], { path });

test(
  "a text file: size, times, permissions, encoding and line count",
  posixOnly("POSIX permissions (0640)"),
  async () => {
    const root = scratchDir("toolhost-info-");
    const file = join(root, "a.txt");
    writeFileSync(file, "one\ntwo\nthree\n");
    chmodSync(file, 0o640);
    const when = new Date("2024-05-06T07:08:09.000Z");
    utimesSync(file, when, when);
    const { text, data } = await info(root, "a.txt");
    const birth = statSync(file).birthtimeMs > 0 ? statSync(file).birthtime.toISOString() : null;
    assert.deepEqual(data, {
      path: "a.txt",
      type: "file",
      size: 14,
      modified: "2024-05-06T07:08:09.000Z",
      accessed: "2024-05-06T07:08:09.000Z",
      created: birth,
      permissions: "rw-r-----",
      mode: "0640",
      contents: "text",
      description: "UTF-8",
      lines: 3,
      linesExact: true,
    });
    assert.match(
      text,
      /^a\.txt: file\nsize: 14 bytes\ncontents: text \(UTF-8\), 3 lines\npermissions: rw-r----- \(0640\)\nmodified: 2024-05-06T07:08:09\.000Z\n/,
    );
  },
);

test(
  "directories, set-id and sticky bits, and binary contents",
  posixOnly("set-id and sticky bits"),
  async () => {
    const root = scratchDir("toolhost-info-");
    mkdirSync(join(root, "shared"));
    chmodSync(join(root, "shared"), 0o1777);
    writeFileSync(join(root, "tool"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 0]));
    chmodSync(join(root, "tool"), 0o4755);
    const dir = await info(root, "shared");
    assert.equal(dir.data.type, "directory");
    assert.equal(dir.data.permissions, "rwxrwxrwt");
    assert.equal(dir.data.mode, "01777");
    assert.equal(dir.data.lines, undefined);
    const tool = await info(root, "tool");
    assert.equal(tool.data.permissions, "rwsr-xr-x");
    assert.equal(tool.data.contents, "binary");
    assert.equal(tool.data.description, "ELF executable or library");
    assert.match(tool.text, /\ncontents: ELF executable or library\n/);
  },
);

test("a symlink shows its target; a dangling one says the target is missing", async () => {
  const root = scratchDir("toolhost-info-");
  writeFileSync(join(root, "real.txt"), "x\n");
  symlinkSync("real.txt", join(root, "link"));
  symlinkSync("gone.txt", join(root, "dangling"));
  const link = await info(root, "link");
  assert.equal(link.data.type, "symlink");
  assert.equal(link.data.linkTarget, "real.txt");
  assert.equal(link.data.targetType, "file");
  assert.equal(link.data.realPath, "real.txt");
  assert.equal(link.data.lines, 1);
  assert.match(link.text, /^link: symlink → real\.txt \(file real\.txt\)\n/);
  const dangling = await info(root, "dangling");
  assert.equal(dangling.data.targetType, "missing");
  assert.match(dangling.text, /^dangling: symlink → gone\.txt \(its target does not exist\)\n/);
});

test(
  "a FIFO is 'other' with its kind; a missing path and an escape are errors",
  posixOnly("makes a FIFO"),
  async () => {
    const root = scratchDir("toolhost-info-");
    assert.equal(spawnSync("mkfifo", [join(root, "pipe")]).status, 0);
    const fifo = await info(root, "pipe");
    assert.equal(fifo.data.type, "other");
    assert.equal(fifo.data.kind, "FIFO (named pipe)");
    const missing = await info(root, "nope");
    assert.equal(missing.result.isError, true);
    assert.match(missing.text, /^nope does not exist/);
    const escape = await info(root, "../");
    assert.equal(escape.result.isError, true);
    assert.match(escape.text, /outside the allowed roots/);
  },
);

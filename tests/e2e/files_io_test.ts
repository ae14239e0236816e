/**
 * read_file, write_file, file_info, create_directory and move_file through the compiled binary,
 * in a temporary root: main paths, big replies, encodings, images, sandbox escapes, and a write
 * interrupted by SIGKILL.
 */
import assert from "node:assert/strict";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const test = posixOnlyTest(
  "every test's root holds a symlink to /etc; /dev/shm for a second filesystem",
);

const e2e = e2eFixture();

/**
 * A root (top/app) with a sibling sharing its prefix (top/app2) and symlinks leading out of it,
 * and a server allowed only that root.
 */
function setup() {
  const top = e2e.scratch("io");
  const root = join(top, "app");
  const sibling = `${root}2`;
  mkdirSync(root);
  mkdirSync(sibling);
  writeFileSync(join(sibling, "secret.txt"), "secret\n");
  symlinkSync("/etc", join(root, "etc-link"));
  symlinkSync(sibling, join(root, "sibling-link"));
  const client = e2e.server({ args: ["--root", root] });
  return { root, sibling, c: client };
}

test("write, describe, read, make a directory and move: the main path of each tool", async () => {
  const { root, c } = setup();
  const written = await callTool(c, "write_file", { path: "notes/todo.md", content: "- a\n- b\n" });
  assert.equal(written.result.isError, undefined, written.text);
  assert.deepEqual(written.data, {
    path: "notes/todo.md",
    created: true,
    bytes: 8,
    previousBytes: null,
    createdDirectory: "notes",
  });
  const info = await callTool(c, "file_info", { path: "notes/todo.md" });
  assert.equal(info.data.type, "file");
  assert.equal(info.data.lines, 2);
  assert.match(info.data.modified as string, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  const read = await callTool(c, "read_file", { path: "notes/todo.md" });
  assert.equal(read.text, "     1\t- a\n     2\t- b\n\n[lines 1–2 of 2]");
  const made = await callTool(c, "create_directory", { path: "archive/2024" });
  assert.deepEqual(made.data, { path: "archive/2024", created: true });
  const moved = await callTool(c, "move_file", {
    source: "notes/todo.md",
    destination: "archive/2024/todo.md",
  });
  assert.equal(moved.text, "Moved notes/todo.md to archive/2024/todo.md.");
  assert.equal(readFileSync(join(root, "archive/2024/todo.md"), "utf8"), "- a\n- b\n");
  const again = await callTool(c, "create_directory", { path: "archive" });
  assert.equal(again.result.isError, undefined);
  assert.equal(again.data.created, false);
});

test("a 200 KB file read in one part arrives whole, in a reply over 64 KB", async () => {
  const { root, c } = setup();
  const lines = Array.from({ length: 2000 }, (_, i) => `${i + 1} ${"ab".repeat(48)}`);
  writeFileSync(join(root, "big.txt"), lines.join("\n") + "\n");
  const read = await callTool(c, "read_file", { path: "big.txt", max_chars: 300_000 });
  const size = JSON.stringify(read.result).length;
  assert.ok(size > 64 * 1024, `reply of ${size} characters`);
  const shown = read.text.slice(0, read.text.indexOf("\n\n[")).split("\n");
  assert.deepEqual(shown.map((line) => line.slice(line.indexOf("\t") + 1)), lines);
  assert.equal(read.data.nextOffset, null);
  const paged = await callTool(c, "read_file", { path: "big.txt" });
  assert.ok((paged.data.endLine as number) < 2000);
  assert.match(paged.text, /\[more: call read_file with offset \d+ to continue/);
});

test("CRLF and BOM files read correctly", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "dos.txt"), "first\r\nsecond\r\n");
  writeFileSync(
    join(root, "bom.txt"),
    new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("ünïcode\n")]),
  );
  writeFileSync(join(root, "utf16.txt"), new Uint8Array([0xff, 0xfe, 0x68, 0, 0x69, 0, 0x0a, 0]));
  const dos = await callTool(c, "read_file", { path: "dos.txt" });
  assert.equal(
    dos.text,
    "     1\tfirst\n     2\tsecond\n\n[lines 1–2 of 2]\n[CRLF line endings, shown without \\r]",
  );
  const bom = await callTool(c, "read_file", { path: "bom.txt" });
  assert.equal(bom.text, "     1\tünïcode\n\n[lines 1–1 of 1]\n[encoding: UTF-8 with BOM]");
  const utf16 = await callTool(c, "read_file", { path: "utf16.txt" });
  assert.equal(utf16.text, "     1\thi\n\n[lines 1–1 of 1]\n[encoding: UTF-16 LE with BOM]");
});

test("an image comes back as image content; another binary file is described", async () => {
  const { root, c } = setup();
  const gif = new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;");
  writeFileSync(join(root, "dot.gif"), gif);
  writeFileSync(join(root, "data.bin"), new Uint8Array([1, 2, 0, 3, 0, 0, 4]));
  const image = await callTool(c, "read_file", { path: "dot.gif" });
  assert.deepEqual(image.result.content[1], {
    type: "image",
    data: btoa(String.fromCharCode(...gif)),
    mimeType: "image/gif",
  });
  const binary = await callTool(c, "read_file", { path: "data.bin" });
  assert.equal(binary.result.content.length, 1);
  assert.match(binary.text, /^data\.bin is a binary file \(binary data, 7 bytes\)/);
});

test("move_file refuses to overwrite unless asked", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "a"), "A");
  writeFileSync(join(root, "b"), "B");
  const refused = await callTool(c, "move_file", { source: "a", destination: "b" });
  assert.equal(refused.result.isError, true);
  assert.match(refused.text, /^destination b already exists \(a file\); pass overwrite: true/);
  assert.equal(readFileSync(join(root, "b"), "utf8"), "B");
  const done = await callTool(c, "move_file", { source: "a", destination: "b", overwrite: true });
  assert.equal(done.data.overwritten, true);
  assert.equal(readFileSync(join(root, "b"), "utf8"), "A");
  assert.equal(existsSync(join(root, "a")), false);
});

test("every way out of the root is refused by every file tool", async () => {
  const { root, sibling, c } = setup();
  writeFileSync(join(root, "inside.txt"), "in\n");
  const escapes: [string, Record<string, unknown>][] = [
    ["read_file", { path: "etc-link/hostname" }],
    ["read_file", { path: "../app2/secret.txt" }],
    ["read_file", { path: join(sibling, "secret.txt") }],
    ["file_info", { path: "etc-link" }],
    ["file_info", { path: `${sibling}/secret.txt` }],
    ["write_file", { path: "etc-link/toolhost-test.txt", content: "x" }],
    ["write_file", { path: "../app2/new.txt", content: "x" }],
    ["write_file", { path: "sibling-link/new.txt", content: "x" }],
    ["create_directory", { path: "sibling-link/newdir" }],
    ["create_directory", { path: `${sibling}/newdir` }],
    ["move_file", { source: "inside.txt", destination: "sibling-link/moved.txt" }],
    ["move_file", { source: "inside.txt", destination: "../app2/moved.txt" }],
    ["move_file", { source: "sibling-link/secret.txt", destination: "stolen.txt" }],
    ["move_file", { source: "etc-link/hostname", destination: "hostname" }],
  ];
  for (const [name, args] of escapes) {
    const { result, text } = await callTool(c, name, args);
    assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${text}`);
    assert.match(text, /is outside the allowed roots/, `${name} ${JSON.stringify(args)}`);
  }
  assert.deepEqual(readdirSync(sibling), ["secret.txt"]);
  assert.equal(readFileSync(join(root, "inside.txt"), "utf8"), "in\n");
  assert.equal(existsSync("/etc/toolhost-test.txt"), false);
});

test("a write killed midway leaves the old or the new content, never a mix", async () => {
  const { root, c } = setup();
  const target = join(root, "target.txt");
  const old = "old content\n".repeat(50_000);
  const fresh = "N".repeat(40 * 1024 * 1024);
  writeFileSync(target, old);
  c.start(
    "tools/call",
    modern({ name: "write_file", arguments: { path: "target.txt", content: fresh } }),
  );
  const temporary = /^\.toolhost-[0-9a-f]+\.tmp$/;
  const deadline = Date.now() + 20_000;
  while (!readdirSync(root).some((name) => temporary.test(name)) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  // The kill must land while the write is in progress, or this test shows nothing.
  assert.ok(readdirSync(root).some((name) => temporary.test(name)), "a temporary file appeared");
  process.kill(c.child.pid!, "SIGKILL");
  assert.equal((await c.exited).signal, "SIGKILL");
  const content = readFileSync(target, "latin1");
  assert.ok(content === old || content === fresh, `a mix of ${content.length} characters`);
  // The temporary file may remain after a kill; its name marks it, and nothing else is left.
  const leftovers = readdirSync(root).filter((name) => temporary.test(name));
  assert.ok(leftovers.length <= 1);
  if (leftovers.length === 1) assert.equal(content, old, "the rename cannot have happened");
  assert.deepEqual(
    readdirSync(root).filter((name) => !temporary.test(name)).sort(),
    ["etc-link", "sibling-link", "target.txt"],
  );
});

test("annotations: reads are read-only, writes and moves destructive, mkdir neither", async () => {
  const { c } = setup();
  const list = await c.request("tools/list", modern());
  const tools = list.result?.tools as {
    name: string;
    annotations: { readOnlyHint: boolean; destructiveHint: boolean };
  }[];
  const hints = Object.fromEntries(
    tools.map((t) => [t.name, [t.annotations.readOnlyHint, t.annotations.destructiveHint]]),
  );
  assert.deepEqual(
    ["read_file", "file_info", "write_file", "move_file", "create_directory"].map((n) => hints[n]),
    [[true, false], [true, false], [false, true], [false, true], [false, false]],
  );
});

/** /dev/shm is a tmpfs on Linux: a second filesystem to move across. */
const otherFilesystem = existsSync("/dev/shm") &&
  statSync("/dev/shm").dev !== statSync(tmpdir()).dev;

test("a move across filesystems copies, then removes the source", {
  skip: !otherFilesystem && "no second filesystem (/dev/shm) to move across",
}, async () => {
  const disk = e2e.scratch("io");
  const memory = e2e.scratch("io", "/dev/shm");
  const client = e2e.server({ args: ["--root", disk, "--root", memory] });
  mkdirSync(join(disk, "dir/sub"), { recursive: true });
  writeFileSync(join(disk, "dir/sub/file.txt"), "payload");
  symlinkSync("sub/file.txt", join(disk, "dir/link"));
  const moved = await callTool(client, "move_file", {
    source: "dir",
    destination: join(memory, "dir"),
  });
  assert.equal(moved.data.copied, true, moved.text);
  assert.equal(readFileSync(join(memory, "dir/sub/file.txt"), "utf8"), "payload");
  assert.ok(lstatSync(join(memory, "dir/link")).isSymbolicLink(), "the link stays a link");
  assert.equal(readFileSync(join(memory, "dir/link"), "utf8"), "payload");
  assert.equal(existsSync(join(disk, "dir")), false);
});

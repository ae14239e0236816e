/** read_file in-process: numbering, paging, cuts, encodings, line endings, images, binaries. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { open } from "node:fs/promises";
import readFile from "../../tools/files/read_file.ts";
import { tailStart } from "../../tools/files/_lib/tail_lines.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

function rootWith(files: Record<string, string | Uint8Array>): string {
  const root = scratchDir("toolhost-read-");
  for (const [name, content] of Object.entries(files)) writeFileSync(join(root, name), content);
  return root;
}

const read = (root: string, args: Record<string, unknown>) => callInRoots(readFile, [root], args);

/** The numbered lines of a text result, without the notes after them. */
const body = (text: string) => text.slice(0, text.indexOf("\n\n["));

const lines = (count: number, make = (n: number) => `line ${n}`) =>
  Array.from({ length: count }, (_, i) => make(i + 1) + "\n").join("");

test("lines come numbered like cat -n, with the total and the offset of the next part", async () => {
  const root = rootWith({ "a.txt": "alpha\nbeta\ngamma\ndelta\nepsilon\n" });
  const { text, data } = await read(root, { path: "a.txt", offset: 2, limit: 2 });
  assert.equal(
    text,
    "     2\tbeta\n     3\tgamma\n\n[lines 2–3 of 5]\n" +
      "[more: call read_file with offset 4 to continue]",
  );
  assert.deepEqual(data, {
    path: "a.txt",
    kind: "text",
    size: 31,
    encoding: "utf-8",
    bom: false,
    startLine: 2,
    endLine: 3,
    totalLines: 5,
    totalLinesExact: true,
    nextOffset: 4,
    linesCut: 0,
    invalidSequences: 0,
    lineEndings: "lf",
  });
});

test("the last part says nothing more is left, and a last line without a newline counts", async () => {
  const root = rootWith({ "a.txt": "one\ntwo\nthree" });
  const { text, data } = await read(root, { path: "a.txt", offset: 2 });
  assert.equal(text, "     2\ttwo\n     3\tthree\n\n[lines 2–3 of 3]");
  assert.equal(data.nextOffset, null);
  assert.equal(data.lineEndings, "lf");
});

test("by default 2,000 lines are shown and the next offset is 2001", async () => {
  const root = rootWith({ "long.txt": lines(2500, String) });
  const { text, data } = await read(root, { path: "long.txt" });
  assert.equal(body(text).split("\n").length, 2000);
  assert.match(text, /\[lines 1–2,000 of 2,500\]\n\[more: call read_file with offset 2001/);
  assert.equal(data.nextOffset, 2001);
});

test("about 30,000 characters stop a page early, and the next offset continues exactly", async () => {
  const root = rootWith({ "wide.txt": lines(1000, (n) => `${n}:`.padEnd(100, "x")) });
  const first = await read(root, { path: "wide.txt" });
  assert.ok(body(first.text).length <= 30_000, `${body(first.text).length} characters`);
  assert.ok(body(first.text).length > 29_000);
  const next = first.data.nextOffset as number;
  assert.equal(next, (first.data.endLine as number) + 1);
  assert.match(first.text, /\(this part stopped at the character limit\)/);
  const second = await read(root, { path: "wide.txt", offset: next, limit: 1 });
  assert.equal(body(second.text), `${String(next).padStart(6)}\t${`${next}:`.padEnd(100, "x")}`);
  const wider = await read(root, { path: "wide.txt", max_chars: 200_000 });
  assert.equal(wider.data.endLine, 1000);
  assert.equal(wider.data.nextOffset, null);
});

test("lines over 2,000 characters are cut with a marker, never inside a character", async () => {
  const root = rootWith({
    "cut.txt": `short\n${"a".repeat(5000)}\n${"😀".repeat(1500)}\nend\n`,
  });
  const { text, data } = await read(root, { path: "cut.txt" });
  const shown = body(text).split("\n");
  assert.equal(
    shown[1],
    `     2\t${"a".repeat(2000)}… [line cut at 2000 characters; it is 4.9 KB long]`,
  );
  assert.equal(shown[2].split("…")[0], `     3\t${"😀".repeat(1000)}`);
  assert.equal(shown[3], "     4\tend");
  assert.equal(data.linesCut, 2);
  assert.match(text, /\[2 lines were cut at 2,000 characters; bash \(e\.g\. cut -c or fold\)/);
});

test("CRLF lines are shown without \\r and reported; mixed endings are counted", async () => {
  const root = rootWith({ "dos.txt": "one\r\ntwo\r\n", "mixed.txt": "a\r\nb\nc\r\n" });
  const dos = await read(root, { path: "dos.txt" });
  assert.equal(
    dos.text,
    "     1\tone\n     2\ttwo\n\n[lines 1–2 of 2]\n[CRLF line endings, shown without \\r]",
  );
  assert.equal(dos.data.lineEndings, "crlf");
  const mixed = await read(root, { path: "mixed.txt" });
  assert.equal(body(mixed.text), "     1\ta\n     2\tb\n     3\tc");
  assert.match(mixed.text, /\[mixed line endings: 2 CRLF and 1 LF lines; shown without \\r\]/);
  assert.equal(mixed.data.lineEndings, "mixed");
});

test("UTF-8 with a BOM and UTF-16 LE/BE with a BOM are decoded, the BOM not shown", async () => {
  const text = "héllo\r\nwörld ✓\r\n";
  const utf16 = (littleEndian: boolean) => {
    const out = new Uint8Array(2 + text.length * 2);
    const view = new DataView(out.buffer);
    view.setUint16(0, 0xfeff, littleEndian);
    for (let i = 0; i < text.length; i++) {
      view.setUint16(2 + 2 * i, text.charCodeAt(i), littleEndian);
    }
    return out;
  };
  const root = rootWith({
    "bom8.txt": new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode(text)]),
    "le.txt": utf16(true),
    "be.txt": utf16(false),
  });
  for (
    const [name, encoding, label] of [
      ["bom8.txt", "utf-8", "UTF-8 with BOM"],
      ["le.txt", "utf-16le", "UTF-16 LE with BOM"],
      ["be.txt", "utf-16be", "UTF-16 BE with BOM"],
    ]
  ) {
    const result = await read(root, { path: name });
    assert.equal(body(result.text), "     1\théllo\n     2\twörld ✓", name);
    assert.match(result.text, new RegExp(`\\[encoding: ${label}\\]`));
    assert.equal(result.data.encoding, encoding);
    assert.equal(result.data.bom, true);
    assert.equal(result.data.lineEndings, "crlf");
    assert.equal(result.data.totalLines, 2);
  }
});

test("invalid UTF-8 is shown as U+FFFD and counted, not crashed on", async () => {
  const root = rootWith({
    "bad.txt": new Uint8Array([0x6f, 0x6b, 0x0a, 0x62, 0xff, 0x64, 0xc3, 0x0a, 0x65, 0x0a]),
  });
  const { text, data } = await read(root, { path: "bad.txt" });
  assert.equal(body(text), "     1\tok\n     2\tb\uFFFDd\uFFFD\n     3\te");
  assert.match(text, /\[2 invalid byte sequences shown as \uFFFD\]/);
  assert.equal(data.invalidSequences, 2);
});

test("a CRLF split across two reads and a line longer than a read are handled", async () => {
  const root = rootWith({ "edge.txt": `${"x".repeat((1 << 20) - 1)}\r\nnext\r\n` });
  const { text, data } = await read(root, { path: "edge.txt" });
  assert.equal(body(text).split("\n")[1], "     2\tnext");
  assert.equal(data.lineEndings, "crlf");
  assert.equal(data.totalLines, 2);
  assert.match(text, /it is 1024 KB long/);
});

test("past the end is an error naming the line count; an empty file is not", async () => {
  const root = rootWith({ "three.txt": "a\nb\nc\n", "empty.txt": "" });
  const past = await read(root, { path: "three.txt", offset: 9 });
  assert.equal(past.result.isError, true);
  assert.equal(
    past.text,
    "offset 9 is past the end of three.txt, which has 3 lines; pass an offset from 1 to 3.",
  );
  const empty = await read(root, { path: "empty.txt" });
  assert.equal(empty.result.isError, undefined);
  assert.equal(empty.text, "(empty file)\n\n[0 lines]");
  assert.equal(empty.data.totalLines, 0);
});

test(
  "directories, missing files and FIFOs are clear errors",
  posixOnly("makes a FIFO"),
  async () => {
    const root = rootWith({});
    mkdirSync(join(root, "src"));
    const dir = await read(root, { path: "src" });
    assert.equal(dir.result.isError, true);
    assert.match(dir.text, /^src is a directory, not a file; use list_dir/);
    const missing = await read(root, { path: "nope.txt" });
    assert.match(missing.text, /^nope\.txt does not exist\. Check the path/);
    assert.equal(spawnSync("mkfifo", [join(root, "pipe")]).status, 0);
    const fifo = await read(root, { path: "pipe" });
    assert.match(fifo.text, /^pipe is a FIFO \(named pipe\), not a regular file/);
  },
);

const PNG = new Uint8Array([
  0x89,
  0x50,
  0x4e,
  0x47,
  0x0d,
  0x0a,
  0x1a,
  0x0a,
  0,
  0,
  0,
  0x0d,
  0x49,
  0x48,
  0x44,
  0x52,
]);

test("an image comes back as image content, base64 with its MIME type", async () => {
  const webp = new Uint8Array([...new TextEncoder().encode("RIFF\x10\0\0\0WEBPVP8 "), 1, 2]);
  const root = rootWith({ "pic.png": PNG, "pic.webp": webp });
  const png = await read(root, { path: "pic.png" });
  assert.deepEqual(png.result.content[1], {
    type: "image",
    data: Buffer.from(PNG).toString("base64"),
    mimeType: "image/png",
  });
  assert.equal(png.text, "pic.png: PNG image, 16 bytes");
  assert.deepEqual(png.data, { path: "pic.png", kind: "image", size: 16, mimeType: "image/png" });
  const other = await read(root, { path: "pic.webp" });
  assert.equal(other.result.content[1].mimeType, "image/webp");
});

test("an image over 5 MB is refused with its size", async () => {
  const big = new Uint8Array(5 * 1024 * 1024 + 1);
  big.set(PNG);
  const root = rootWith({ "big.png": big });
  const { result, text } = await read(root, { path: "big.png" });
  assert.equal(result.isError, true);
  assert.match(text, /^big\.png is a PNG image of 5\.0 MB, over the 5\.0 MB read_file returns/);
});

test("other binary files are described, not dumped", async () => {
  const elf = new Uint8Array(4096);
  elf.set([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1]);
  const root = rootWith({ "prog": elf });
  const { result, text, data } = await read(root, { path: "prog" });
  assert.equal(result.isError, undefined);
  assert.equal(result.content.length, 1);
  assert.match(
    text,
    /^prog is a binary file \(ELF executable or library, 4\.0 KB\); read_file shows/,
  );
  assert.deepEqual(data, {
    path: "prog",
    kind: "binary",
    size: 4096,
    description: "ELF executable or library",
  });
});

test("the line count stops 64 MB past the page and says it is a lower bound", async () => {
  const root = rootWith({ "huge.log": Buffer.alloc(80 * 1024 * 1024, "0123456789abcde\n") });
  const { text, data } = await read(root, { path: "huge.log", limit: 3 });
  assert.equal(data.totalLinesExact, false);
  const total = data.totalLines as number;
  assert.ok(total >= 64 * 1024 * 1024 / 16 && total < 80 * 1024 * 1024 / 16, String(total));
  assert.match(
    text,
    /\[lines 1–3 of at least [\d,]+ \(counted through the first 6\d MB of 80 MB\)\]/,
  );
  assert.equal(data.nextOffset, 4);
});

test("a negative offset reads the last lines, numbered as in the file when it is small", async () => {
  const root = rootWith({ "a.txt": lines(10), "b.txt": "x\ny\nz", "e.txt": "" });
  const { text, data } = await read(root, { path: "a.txt", offset: -3 });
  assert.equal(body(text), "     8\tline 8\n     9\tline 9\n    10\tline 10");
  assert.equal(data.startLine, 8);
  assert.equal(data.totalLines, 10);
  assert.equal(data.nextOffset, null);
  const short = await read(root, { path: "b.txt", offset: -5 });
  assert.equal(body(short.text), "     1\tx\n     2\ty\n     3\tz");
  const limited = await read(root, { path: "a.txt", offset: -4, limit: 2 });
  assert.equal(body(limited.text), "     7\tline 7\n     8\tline 8");
  assert.equal(limited.data.nextOffset, 9);
  const empty = await read(root, { path: "e.txt", offset: -5 });
  assert.equal(empty.result.isError, undefined, empty.text);
  assert.equal((await read(root, { path: "a.txt", offset: 0 })).result.isError, true);
});

test("the last lines of a big file are found from its end, numbered from the end", async () => {
  const root = rootWith({});
  const big = lines(1_200_000, (n) => `row ${n} ${"x".repeat(40)}`);
  writeFileSync(join(root, "big.txt"), big);
  const { text, data } = await read(root, { path: "big.txt", offset: -2 });
  assert.equal(
    body(text),
    `    -2\trow 1199999 ${"x".repeat(40)}\n    -1\trow 1200000 ${"x".repeat(40)}`,
  );
  assert.match(
    text,
    /\[lines -2 to -1 from the end \(-1 is the last line; the \d+ MB before them were not counted\)\]/,
  );
  assert.equal(data.startLine, -2);
  assert.equal(data.totalLinesExact, false);
  assert.equal(data.nextOffset, null);
  // Found from the end: a few blocks read, not the file.
  const handle = await open(join(root, "big.txt"));
  const found = await tailStart(handle, {
    encoding: "utf-8",
    start: 0,
    size: big.length,
    lines: 100,
  }).finally(() => handle.close());
  assert.ok(found.bytesRead <= 128 * 1024, `${found.bytesRead} bytes read`);
  assert.equal(found.linesBefore, undefined);
  assert.equal(big.slice(found.byte).split("\n").length - 1, 100);
  const part = await read(root, { path: "big.txt", offset: -100, limit: 10 });
  assert.equal(part.data.nextOffset, -90);
  assert.match(part.text, /call read_file with offset -90 to continue/);
});

test("paths reads several files under headers, sharing one budget; errors stay per file", async () => {
  const root = rootWith({ "a.txt": "alpha\n", "b.txt": lines(50), "c.txt": lines(200) });
  const { result, text, data } = await read(root, {
    paths: ["a.txt", "missing.txt", "b.txt"],
    offset: -2,
  });
  assert.notEqual(result.isError, true);
  assert.match(text, /^==> a\.txt <==\n {5}1\talpha\n/);
  assert.equal(
    result.content[1].text?.startsWith("==> missing.txt <==\n[error: missing.txt does not exist"),
    true,
  );
  assert.match(result.content[2].text!, /^==> b\.txt <==\n {4}49\tline 49\n {4}50\tline 50/);
  assert.equal((data.files as unknown[]).length, 3);
  const capped = await read(root, { paths: ["c.txt", "a.txt"], max_chars: 1000 });
  assert.match(
    capped.result.content.at(-1)!.text!,
    /not read, the limits of one call being reached: a\.txt/,
  );
  const both = await read(root, { path: "a.txt", paths: ["a.txt"] });
  assert.match(both.text, /either `path` or `paths`/);
  const neither = await read(root, {});
  assert.match(neither.text, /give `path`/);
});

test("the last lines of UTF-16 text, with CRLF endings and no final line break", async () => {
  const text = "\uFEFFone\r\ntwo\r\nthree";
  const le = Buffer.from(text, "utf16le");
  const be = Buffer.from(le).swap16();
  const root = rootWith({ "le.txt": le, "be.txt": be });
  for (const path of ["le.txt", "be.txt"]) {
    const { text: shown } = await read(root, { path, offset: -2 });
    assert.equal(body(shown), "     2\ttwo\n     3\tthree", path);
  }
});

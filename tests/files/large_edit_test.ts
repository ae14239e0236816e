/**
 * The streaming paths of write_file and edit_file: text encoded in chunks (characters across
 * chunk boundaries), the diff computed around the changed region only, and the new file spliced
 * from the old file's bytes (CRLF, BOMs, UTF-16, multi-byte characters, edits far apart).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { createTwoFilesPatch } from "diff";
import editFile from "../../tools/files/edit_file.ts";
import writeFile from "../../tools/files/write_file.ts";
import { lineCount, utf8Chunks } from "../../tools/files/_lib/utf8_chunks.ts";
import {
  aroundRegion,
  shiftHunks,
  unchanged,
  widened,
} from "../../tools/files/_lib/changed_region.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";

/** The chunks joined, each copied as it comes (its buffer is reused for the one after next). */
function joined(chunks: Iterable<Uint8Array>): Buffer {
  const copies: Buffer[] = [];
  for (const chunk of chunks) copies.push(Buffer.from(chunk));
  return Buffer.concat(copies);
}

test("text in chunks is exactly its UTF-8, whatever falls on a chunk boundary", () => {
  const samples = [
    "",
    "plain ascii text\n",
    "é€😀 mixed 😀😀 ünïcödé\r\n".repeat(7),
    "😀".repeat(9), // every boundary between the halves of a pair, with 4 units a chunk
    "lone \ud800 high and \udc00 low surrogates \ud83d",
  ];
  for (const text of samples) {
    for (const units of [1, 2, 3, 4, 5, 1024]) {
      assert.deepEqual(
        joined(utf8Chunks(text, units)),
        Buffer.from(new TextEncoder().encode(text)),
      );
    }
  }
});

test("the chunks alternate between two buffers, so a chunk stays whole until the one after next", () => {
  const buffers = [...utf8Chunks("abcdefghij", 2)].map((chunk) => chunk.buffer);
  assert.notEqual(buffers[0], buffers[1]);
  assert.equal(buffers[0], buffers[2]);
  assert.equal(joined(utf8Chunks("abcdefghij", 2)).toString(), "abcdefghij");
});

test("lines are counted as a viewer counts them", () => {
  assert.deepEqual(["", "a", "a\n", "a\nb", "a\nb\n", "\n\n", "a\r\nb\r\n"].map(lineCount), [
    0,
    1,
    1,
    2,
    2,
    2,
    2,
  ]);
});

test("the diff around the changed region equals the diff of the whole texts", () => {
  const lines = Array.from({ length: 200 }, (_, i) => `line ${i} ${"x".repeat(i % 7)}`);
  const before = lines.join("\n") + "\n";
  const cases: [number, string, string][] = [
    [0, "line 0 ", "first line changed\nand one added "],
    [before.indexOf("line 100"), "line 100", "line one hundred"],
    [before.lastIndexOf("line 199"), "line 199", "the last"],
    [before.indexOf("line 50"), "line 50 xxxxxxx\nline 51", "merged"],
  ];
  for (const [at, old, replacement] of cases) {
    const after = before.slice(0, at) + replacement + before.slice(at + old.length);
    const region = widened(unchanged(before.length), before, at, at + old.length);
    const around = aroundRegion(before, after, region, 4);
    const whole = createTwoFilesPatch("a/f", "b/f", before, after, undefined, undefined, {
      context: 3,
    });
    const part = createTwoFilesPatch(
      "a/f",
      "b/f",
      around.before,
      around.after,
      undefined,
      undefined,
      {
        context: 3,
      },
    );
    assert.equal(shiftHunks(part, around.linesBefore), whole, `${old} -> ${replacement}`);
  }
  // Without a final line break, at the end.
  const short = "a\nb\nc";
  const region = widened(unchanged(short.length), short, 4, 5);
  const around = aroundRegion(short, "a\nb\nC", region, 4);
  assert.equal(around.before, short);
  assert.equal(around.linesBefore, 0);
});

/** Writes `bytes`, applies `edits` with edit_file, and returns the file's bytes and the reply. */
async function edited(bytes: Uint8Array, edits: Record<string, unknown>[]) {
  const root = scratchDir();
  const path = join(root, "f.txt");
  writeFileSync(path, bytes);
  const { result, text } = await callInRoots(editFile, [root], { path: "f.txt", edits });
  assert.equal(result.isError, undefined, text);
  return { bytes: readFileSync(path), text };
}

/** A text of `lines` lines with multi-byte characters, in the middle of a large file. */
function body(lines: number): string {
  return Array.from({ length: lines }, (_, i) => `${i}: naïve café 😀 ${"-".repeat(i % 50)}`).join(
    "\n",
  ) + "\n";
}

test("an edit in a large UTF-8 file keeps every other byte, multi-byte characters around it", async () => {
  const text = body(40_000); // about 2 MB
  const { bytes, text: reply } = await edited(Buffer.from(text), [
    { old_string: "20000: naïve café 😀", new_string: "20000: NAÏVE CAFÉ 🙂" },
  ]);
  assert.equal(bytes.toString(), text.replace("20000: naïve café 😀", "20000: NAÏVE CAFÉ 🙂"));
  assert.match(reply, /^@@ -19998,7 \+19998,7 @@$/m);
  assert.match(reply, /^-20000: naïve café 😀/m);
  assert.match(reply, /^\+20000: NAÏVE CAFÉ 🙂/m);
});

test("edits far apart and replace_all splice the right bytes", async () => {
  const text = `HEAD ü\n${body(3000)}TAIL ü\n`;
  const { bytes } = await edited(Buffer.from(text), [
    { old_string: "HEAD ü", new_string: "head" },
    { old_string: "TAIL ü", new_string: "tail 😀" },
    { old_string: "café", new_string: "CAFÉ", replace_all: true },
  ]);
  const expected = text.replace("HEAD ü", "head").replace("TAIL ü", "tail 😀")
    .replaceAll("café", "CAFÉ");
  assert.equal(bytes.toString(), expected);
});

test("a match found with whitespace ignored is spliced in the file's own indentation", async () => {
  const text = Array.from({ length: 3000 }, (_, i) => `    step(${i});`).join("\n") + "\n";
  const { bytes, text: reply } = await edited(Buffer.from(text), [
    { old_string: "step(1500);\n step(1501);", new_string: "step(1500);\nskip(1501);" },
  ]);
  assert.match(reply, /whitespace ignored/);
  assert.equal(bytes.toString(), text.replace("    step(1501);", "    skip(1501);"));
});

test("a CRLF file with multi-byte characters stays CRLF, the BOM kept, around the edit", async () => {
  const text = body(5000).replaceAll("\n", "\r\n");
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const { bytes, text: reply } = await edited(Buffer.concat([bom, Buffer.from(text)]), [
    { old_string: "2500: naïve café 😀 \n", new_string: "2500: changed\nand added 😀\n" },
  ]);
  const expected = text.replace(
    "2500: naïve café 😀 \r\n",
    "2500: changed\r\nand added 😀\r\n",
  );
  assert.deepEqual(bytes, Buffer.concat([bom, Buffer.from(expected)]));
  assert.match(reply, /^@@ -2498,7 \+2498,8 @@$/m);
});

test("a second BOM is content: kept where it is", async () => {
  const bom = Buffer.from([0xef, 0xbb, 0xbf]);
  const { bytes } = await edited(Buffer.concat([bom, bom, Buffer.from("one\ntwo\n")]), [
    { old_string: "two", new_string: "2" },
  ]);
  assert.deepEqual(bytes, Buffer.concat([bom, bom, Buffer.from("one\n2\n")]));
});

test("a UTF-16 file keeps its encoding and BOM around an edit of a multi-byte character", async () => {
  const text = body(2000);
  const encode = (s: string) =>
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(s, "utf16le")]);
  const { bytes } = await edited(encode(text), [
    { old_string: "1000: naïve café 😀", new_string: "1000: 🙂" },
  ]);
  assert.deepEqual(bytes, encode(text.replace("1000: naïve café 😀", "1000: 🙂")));
});

test("an edit at the very start or the very end of the file", async () => {
  const text = "first line\nmiddle\nlast line";
  let { bytes } = await edited(Buffer.from(text), [{ old_string: "first", new_string: "1st" }]);
  assert.equal(bytes.toString(), "1st line\nmiddle\nlast line");
  ({ bytes } = await edited(Buffer.from(text), [{
    old_string: "line",
    new_string: "",
    replace_all: true,
  }]));
  assert.equal(bytes.toString(), "first \nmiddle\nlast ");
  ({ bytes } = await edited(Buffer.from(text), [{ old_string: "last line", new_string: "end\n" }]));
  assert.equal(bytes.toString(), "first line\nmiddle\nend\n");
});

test("write_file writes a large multi-byte text exactly, across its chunks", async () => {
  const root = scratchDir();
  const text = "ab😀ç€\r\n".repeat(300_000); // several chunks, pairs across their boundaries
  const { data } = await callInRoots(writeFile, [root], { path: "w.txt", content: text });
  const written = readFileSync(join(root, "w.txt"));
  assert.deepEqual(written, Buffer.from(text));
  assert.equal(data.bytes, written.length);
});

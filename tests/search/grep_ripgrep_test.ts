/** grep's rg search on its own: results in path order, a cancel that stops rg, its events read. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import process from "node:process";
import { Readable } from "node:stream";
import { test } from "node:test";
import { drain } from "../../tools/search/_lib/grep/engine.ts";
import type { FileMatches } from "../../tools/search/_lib/grep/report.ts";
import {
  endEvent,
  jsonLineBatches,
  matchEventLines,
} from "../../tools/search/_lib/grep/ripgrep/events.ts";
import { ripgrepSearch } from "../../tools/search/_lib/grep/ripgrep/ripgrep_batches.ts";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { grepQuery } from "./grep_query.ts";

const rg = findRipgrep();
const skip = !rg && "rg is not installed";

function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-rg-")));
  mkdirSync(join(dir, "a"));
  for (const name of ["a/x.txt", "a-b.txt", "b.txt"]) {
    writeFileSync(join(dir, name), "hit\nmiss\nhit\n");
  }
  return dir;
}

function search(dir: string, signal = new AbortController().signal) {
  return grepQuery(dir, "hit", { signal });
}

async function collect(files: AsyncGenerator<FileMatches, unknown>) {
  const out: string[] = [];
  for await (const file of files) {
    out.push(`${file.path}:${file.lines.map((l) => l.number).join(",")}`);
  }
  return out;
}

test("rg's results come file by file in path order, lines in order", { skip }, async () => {
  const dir = scratch();
  assert.deepEqual(await collect(ripgrepSearch(rg!, search(dir))), [
    `${dir}/a/x.txt:1,3`,
    `${dir}/a-b.txt:1,3`,
    `${dir}/b.txt:1,3`,
  ]);
});

test("a search cancelled before it starts runs nothing and reports nothing", { skip }, async () => {
  const dir = scratch();
  const controller = new AbortController();
  controller.abort();
  assert.deepEqual(await collect(ripgrepSearch(rg!, search(dir, controller.signal))), []);
});

test("rg is looked for on PATH once per process", () => {
  const first = findRipgrep();
  const saved = process.env.PATH;
  process.env.PATH = "/nonexistent";
  try {
    assert.equal(findRipgrep(), first);
  } finally {
    process.env.PATH = saved;
  }
});

test("rg's output is split on \\n only: U+2028 and U+2029 stay inside their JSON line", async () => {
  const chunks = ['{"a":"x\u2028y"}\n{"b":', '"p\u2029q"}\n', '{"c":1}'];
  const lines: string[] = [];
  for await (const batch of jsonLineBatches(Readable.from(chunks.map((c) => Buffer.from(c))))) {
    lines.push(...batch);
  }
  assert.deepEqual(lines.map((line) => JSON.parse(line)), [
    { a: "x\u2028y" },
    { b: "p\u2029q" },
    { c: 1 },
  ]);
});

test("every line of a match event is a matching line, with where its first match starts", () => {
  const lines = matchEventLines({
    lines: { text: "one\ntwo\nthree\n" },
    line_number: 4,
    submatches: [{ start: 2, end: 5 }, { start: 10, end: 12 }],
  });
  assert.deepEqual(lines, [
    { number: 4, text: "one", column: 2 },
    { number: 5, text: "two", column: 0 },
    { number: 6, text: "three", column: 2 },
  ]);
});

test("a one-line match event gives its column in characters, whatever the bytes before it", () => {
  // "é" is two bytes, "𝄞" four (two UTF-16 units): the match starts at byte 7 (x) and 13 (y).
  const line = (text: string, start: number) =>
    matchEventLines({
      lines: { text },
      line_number: 9,
      submatches: [{ start, end: start + 1 }],
    });
  assert.deepEqual(line("aé𝄞x\n", 7), [{ number: 9, text: "aé𝄞x", column: 4 }]);
  assert.deepEqual(line("ab\r\n", 1), [{ number: 9, text: "ab\r", column: 1 }]);
  assert.deepEqual(line("end", 0), [{ number: 9, text: "end", column: 0 }]);
  // The same line given as bytes (rg's form for invalid UTF-8) gives the same answer.
  const bytes = btoa(String.fromCharCode(...new TextEncoder().encode("aé𝄞x\n")));
  assert.deepEqual(
    matchEventLines({ lines: { bytes }, line_number: 9, submatches: [{ start: 7, end: 8 }] }),
    line("aé𝄞x\n", 7),
  );
});

test("rg killed at the time limit mid-line stops the search early, not with an error", {
  skip,
}, async () => {
  // rg writes its JSON in buffered blocks: killed while matching millions of lines, the last
  // line it wrote is usually cut. That cut line is the kill's doing, not rg's output.
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-rg-")));
  writeFileSync(join(dir, "many.txt"), "hit\n".repeat(2_000_000));
  for (let attempt = 0; attempt < 3; attempt++) {
    const timed = grepQuery(dir, "hit", { mode: "count", deadline: Date.now() + 300 });
    const { stopped } = await drain(ripgrepSearch(rg!, timed), () => {});
    assert.equal(stopped, "time limit reached");
  }
});

test("an end event is read without parsing its statistics, as JSON.parse reads it", () => {
  const lines = [
    '{"type":"end","data":{"path":{"text":"./a \\"binary_offset\\":1"},"binary_offset":null,' +
    '"stats":{"elapsed":{"secs":0,"nanos":1,"human":"0s"},"searches":1}}}',
    '{"type":"end","data":{"path":{"bytes":"/w=="},"binary_offset":1234,"stats":{}}}',
  ];
  for (const line of lines) {
    assert.deepEqual(endEvent(line)!.data.binary_offset, JSON.parse(line).data.binary_offset);
  }
  for (
    const other of [
      '{"type":"begin","data":{"path":{"text":"./a"}}}',
      '{"type":"end","data":{"path":{"text":"./a"},"binary_off',
    ]
  ) assert.equal(endEvent(other), undefined, other);
});

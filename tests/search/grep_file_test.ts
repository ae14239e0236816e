/**
 * The built-in search of one file (file_searcher.ts: chunked reads, the byte prefilter, candidate
 * lines) against a plain reference: the whole file decoded, split into lines and each line
 * matched, as the built-in search did before. Files larger than one read (1 MiB) put matches,
 * NUL bytes and multiline matches across the chunk boundary.
 */
import assert from "node:assert/strict";
import { closeSync, mkdtempSync, openSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  FileSearcher,
  type FileSearchOptions,
} from "../../tools/search/_lib/grep/builtin/file_searcher.ts";
import { compilePattern } from "../../tools/search/_lib/grep/pattern.ts";
import { prefilterFor, requiredLiteral } from "../../tools/search/_lib/grep/builtin/prefilter.ts";
import { FileLines, type FileMatches } from "../../tools/search/_lib/grep/report.ts";
import { bomOf } from "../../tools/_lib/text/text.ts";

const CHUNK = 1024 * 1024;
const dir = mkdtempSync(join(tmpdir(), "toolhost-grep-file-"));
let n = 0;

/** Line by line as before: decode, split, match each line; context merged. */
function reference(bytes: Uint8Array, options: FileSearchOptions): FileMatches | undefined {
  const bom = bomOf(bytes);
  const text = new TextDecoder(bom?.encoding ?? "utf-8").decode(bytes.subarray(bom?.length ?? 0));
  if (text.includes("\0")) return undefined;
  const pattern = compilePattern(options.pattern, {
    caseInsensitive: options.caseInsensitive,
    multiline: false,
  });
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  const matched = new Map<number, number>();
  for (let i = 0; i < lines.length; i++) {
    const found = pattern.line.exec(lines[i].replace(/\r$/, ""));
    if (!found) continue;
    matched.set(i + 1, found.index);
    if (options.mode === "files_with_matches") break;
  }
  if (matched.size === 0) return undefined;
  const out = new FileLines("/f", options.mode === "content");
  let next = 1;
  for (const number of matched.keys()) {
    if (options.mode !== "content") {
      out.add(number, "", true);
      continue;
    }
    const from = Math.max(next, number - options.before);
    const to = Math.min(lines.length, number + options.after);
    for (let k = from; k <= to; k++) out.add(k, lines[k - 1], matched.has(k), matched.get(k));
    next = Math.max(next, to + 1);
  }
  return out.result();
}

function searchFile(content: string | Uint8Array, options: FileSearchOptions, unwanted = false) {
  const path = join(dir, `f${n++}`);
  writeFileSync(path, content);
  const fd = openSync(path, "r");
  try {
    const found = new FileSearcher(options).search(fd, "/f", unwanted);
    assert.notEqual(found, "unreadable");
    return found as FileMatches | undefined;
  } finally {
    closeSync(fd);
  }
}

const options = (pattern: string, more: Partial<FileSearchOptions> = {}): FileSearchOptions => ({
  pattern,
  caseInsensitive: false,
  multiline: false,
  mode: "content",
  before: 0,
  after: 0,
  ...more,
});

/** Every mode, and content with context, agree with the reference. */
function agrees(content: string | Uint8Array, pattern: string, caseInsensitive = false) {
  const bytes = typeof content === "string" ? new TextEncoder().encode(content) : content;
  for (
    const more of [
      { mode: "files_with_matches" as const },
      { mode: "count" as const },
      { mode: "content" as const },
      { mode: "content" as const, before: 2, after: 1 },
    ]
  ) {
    const o = options(pattern, { caseInsensitive, ...more });
    assert.deepEqual(
      searchFile(bytes, o),
      reference(bytes, o),
      `${pattern} ${JSON.stringify(more)}`,
    );
  }
}

test("a literal across the boundary between two reads is found, with its line number", () => {
  // "needle" starts 3 bytes before the end of the first 1 MiB read.
  const head = "x".repeat(100) + "\n";
  const filler = head.repeat(Math.floor((CHUNK - 3) / head.length));
  const text = filler + "y".repeat(CHUNK - 3 - filler.length) + "needle here\nafter\n";
  agrees(text, "needle");
  const found = searchFile(text, options("needle"));
  assert.equal(found?.lines[0].number, filler.split("\n").length);
  agrees(text + "x\n".repeat(600_000) + "needle again\n", "needle");
});

test("a big file without the literal is dropped; one with it only at its end is found", () => {
  const filler = "no match on this line\n".repeat(150_000); // over 3 MiB
  assert.equal(searchFile(filler, options("needle")), undefined);
  agrees(filler + "the needle", "needle");
  agrees(filler + "the needle", "\\w+dle");
});

test("a NUL byte makes a file binary wherever it is, also after a match", () => {
  const filler = "needle\n" + "x\n".repeat(800_000);
  assert.equal(searchFile(filler + "\0\n", options("needle")), undefined);
  assert.equal(
    searchFile(filler + "\0\n", options("needle", { mode: "files_with_matches" })),
    undefined,
  );
  assert.equal(searchFile("a\0b\nneedle\n", options("needle")), undefined);
  assert.equal(searchFile("needle\na\0b\n", options("n.edle")), undefined);
});

test("CRLF lines: the \\r is neither matched nor shown", () => {
  agrees("one needle\r\ntwo\r\n\r\nneedle\r\nend", "needle");
  agrees("one needle\r\ntwo\r\n\r\nneedle\r\nend", "needle$");
  agrees("one needle\r\ntwo\r\n", "e\\s*$");
});

test("invalid UTF-8 is decoded to U+FFFD before patterns that need it", () => {
  const bytes = Uint8Array.from(
    "caf\xe9 needle \xff\nok needle\n\xef\xbf\xbd real",
    (c) => c.charCodeAt(0),
  );
  agrees(bytes, "needle");
  agrees(bytes, "caf. needle");
  agrees(bytes, "\uFFFD");
  agrees(bytes, "\\uFFFD real");
});

test("context lines around matches at the start and the end, with empty lines", () => {
  agrees("\n\nneedle\n\n", "needle");
  agrees("needle\nneedle\n\nx\nneedle", "needle");
  agrees("a\nb\nc\nneedle\nd\ne\nneedle\nf", "needle");
});

test("multiline matches across the boundary between reads", () => {
  const filler = "z\n".repeat((CHUNK - 4) / 2);
  const found = searchFile(
    filler + "one\ntwo\n",
    options("one\\ntwo", { multiline: true, mode: "count" }),
  );
  assert.equal(found?.matchedLines, 2);
  assert.equal(
    searchFile(filler + "one\ntwo\n", options("one\\ntwx", { multiline: true })),
    undefined,
  );
});

test("case-insensitive literals, with the letters that fold onto ASCII and non-ASCII ones", () => {
  agrees("a Needle and a NEEDLE\nnone\n", "needle", true);
  // The Kelvin sign is K and the long s is S to JavaScript's case-insensitive matching.
  agrees("the \u212Aelvin scale\n", "kelvin", true);
  agrees("\u017Fun and SUN\n", "sun", true);
  agrees("\u017Fun and SUN\n", "sun", false);
  agrees("L'ÉTÉ est là\nété\n", "été", true);
  agrees("x".repeat(CHUNK) + "\nÉTÉ\n", "été", true);
  agrees("x".repeat(CHUNK - 2) + "NeEdLe\n", "needle", true);
});

test("UTF-16 and UTF-8 with a byte order mark", () => {
  const text = "needle in utf-16\nsecond\n";
  const utf16 = new Uint8Array(2 + text.length * 2);
  utf16.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) utf16[2 + 2 * i] = text.charCodeAt(i);
  agrees(utf16, "needle");
  agrees(utf16, "NEEDLE", true);
  agrees(new Uint8Array([0xef, 0xbb, 0xbf, ...new TextEncoder().encode("needle\n")]), "needle");
});

test("with the report full, content lines are counted but not carried", () => {
  const found = searchFile("needle\nx\nneedle\n", options("needle", { after: 1 }), true);
  assert.deepEqual(found, { path: "/f", matchedLines: 2, lines: [], moreLines: 3 });
});

test("the literal every match holds, if any", () => {
  assert.equal(requiredLiteral("function [a-z]+Handler\\("), "function ");
  assert.equal(requiredLiteral("\\w+Handler\\(token"), "Handler(token");
  assert.equal(requiredLiteral("abc+"), "ab");
  assert.equal(requiredLiteral("ab{2}cd"), "cd");
  assert.equal(requiredLiteral("a(?:b|c)de"), "de");
  assert.equal(requiredLiteral("foo\\.bar"), "foo.bar");
  assert.equal(requiredLiteral("x[)(]yz"), "yz");
  assert.equal(requiredLiteral("a|bcd"), undefined);
  assert.equal(requiredLiteral("\\d+"), undefined);
  assert.equal(prefilterFor("needle", false)?.exact, true);
  assert.equal(prefilterFor("ne+dle", false)?.exact, false);
  assert.equal(prefilterFor("bad \uFFFD", false), undefined);
  assert.equal(prefilterFor("\u00e9t\u00e9", true), undefined);
});

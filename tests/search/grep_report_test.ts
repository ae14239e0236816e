/** grep's output: the three modes, context separators, the caps and what the notes say. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  clipLine,
  FileLines,
  type FileMatches,
  GrepReport,
  MAX_MATCH_LINE_CHARS,
  type OutputMode,
  type ReportOptions,
} from "../../tools/search/_lib/grep/report.ts";

/** A file with matching lines `matches` and context lines `context`. */
function file(path: string, matches: number[], context: number[] = []): FileMatches {
  const lines = new FileLines(path, true);
  for (const n of [...matches, ...context].sort((a, b) => a - b)) {
    lines.add(n, `line ${n}`, matches.includes(n));
  }
  return lines.result();
}

function report(mode: OutputMode, files: FileMatches[], options: Partial<ReportOptions> = {}) {
  const r = new GrepReport({
    mode,
    maxChars: 30_000,
    context: false,
    display: (path) => path.replace("/root/", ""),
    ...options,
  });
  for (const f of files) r.add(f);
  return r.finish("src", undefined);
}

const files = [file("/root/a.ts", [3, 4]), file("/root/b/c.ts", [10])];

test("files_with_matches lists paths; count gives matching lines per file", () => {
  const paths = report("files_with_matches", files);
  assert.equal(paths.text, "a.ts\nb/c.ts\n\n[2 files under src match]");
  assert.deepEqual(paths.summary, {
    mode: "files_with_matches",
    files: 2,
    lines: null,
    shown: 2,
    omitted: 0,
    stoppedEarly: null,
  });
  const counts = report("count", files);
  assert.equal(counts.text, "a.ts:2\nb/c.ts:1\n\n[3 matching lines in 2 files under src]");
});

test("content marks matches with : and context with -, and separates groups with --", () => {
  const withContext = [file("/root/a.ts", [3, 9], [2, 4, 8]), file("/root/b.ts", [1], [2])];
  const { text } = report("content", withContext, { context: true });
  assert.equal(
    text.split("\n\n")[0],
    [
      "a.ts-2-line 2",
      "a.ts:3:line 3",
      "a.ts-4-line 4",
      "--",
      "a.ts-8-line 8",
      "a.ts:9:line 9",
      "--",
      "b.ts:1:line 1",
      "b.ts-2-line 2",
    ].join("\n"),
  );
  const plain = report("content", files).text;
  assert.equal(plain.split("\n\n")[0], "a.ts:3:line 3\na.ts:4:line 4\nb/c.ts:10:line 10");
});

test("head_limit keeps the first entries and says how many more there are", () => {
  const { text, summary } = report("content", files, { headLimit: 2 });
  assert.match(text, /^a\.ts:3:line 3\na\.ts:4:line 4\n\n/);
  assert.match(text, /\[1 more line not shown \(head_limit reached, 2 shown\); narrow the search/);
  assert.deepEqual([summary.shown, summary.omitted, summary.lines], [2, 1, 3]);
});

test("output stops before the character cap with a count of the rest and how to narrow", () => {
  const many = Array.from({ length: 500 }, (_, i) => file(`/root/dir/file-${i}.ts`, [1, 2]));
  const { text, summary } = report("content", many, { maxChars: 2_000 });
  const body = text.slice(0, text.indexOf("\n\n["));
  assert.ok(body.length <= 2_000, `${body.length}`);
  assert.equal(summary.shown + summary.omitted, 1_000);
  assert.match(
    text,
    new RegExp(
      `\\[${summary.omitted} more lines not shown \\(output limit reached, ${summary.shown} shown\\); ` +
        `narrow the search with path, glob or a more specific pattern, or use output_mode`,
    ),
  );
});

test("no matches and an early stop are said plainly", () => {
  const r = new GrepReport({ mode: "count", maxChars: 100, context: false, display: (p) => p });
  const { text, summary } = r.finish("lib", "time limit reached");
  assert.equal(
    text,
    "[no matches under lib]\n[the search stopped early (time limit reached): results are incomplete; search a smaller path]",
  );
  assert.equal(summary.stoppedEarly, "time limit reached");
});

test("long lines are cut around their first match, saying how much was left out", () => {
  const long = `${"a".repeat(1_000)}NEEDLE${"b".repeat(2_000)}`;
  const clipped = clipLine(long, 1_000);
  assert.match(clipped, /^\[…900 characters\] a{100}NEEDLEb{394} \[…1,606 characters\]$/);
  assert.equal(clipLine("short", 0), "short");
  assert.equal(clipLine("x".repeat(MAX_MATCH_LINE_CHARS), 0), "x".repeat(MAX_MATCH_LINE_CHARS));
});

test("a file's lines: each counted once, \\r dropped, context lines not counted as matches", () => {
  const lines = new FileLines("/f", true);
  lines.add(1, "one\r", true);
  lines.add(1, "one\r", true);
  lines.add(2, "two", false);
  lines.add(3, "three", true);
  assert.deepEqual(lines.result(), {
    path: "/f",
    matchedLines: 2,
    lines: [
      { number: 1, text: "one", match: true },
      { number: 2, text: "two", match: false },
      { number: 3, text: "three", match: true },
    ],
    moreLines: 0,
  });
  const counted = new FileLines("/f", false);
  counted.add(1, "x", true);
  assert.deepEqual(counted.result().lines, []);
  assert.equal(counted.result().matchedLines, 1);
});

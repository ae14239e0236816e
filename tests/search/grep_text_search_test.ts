/** grep's own search of a text: which lines match, context, multiline matches, files mode. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { searchText, type TextSearch } from "../../tools/search/_lib/grep/text_search.ts";
import { compilePattern } from "../../tools/search/_lib/grep/pattern.ts";
import type { OutputMode } from "../../tools/search/_lib/grep/report.ts";

function search(
  text: string,
  pattern: string,
  options: Partial<Omit<TextSearch, "pattern">> & { mode?: OutputMode } = {},
) {
  const multiline = options.multiline ?? false;
  const found = searchText("/f", text, {
    pattern: compilePattern(pattern, { caseInsensitive: false, multiline }),
    multiline,
    mode: options.mode ?? "content",
    before: options.before ?? 0,
    after: options.after ?? 0,
  });
  return {
    matched: found.matchedLines,
    lines: found.lines.map((l) => `${l.number}${l.match ? ":" : "-"}${l.text}`),
  };
}

const TEXT = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n";

test("matching lines, with overlapping context merged", () => {
  assert.deepEqual(search(TEXT, "o"), {
    matched: 3,
    lines: ["1:one", "2:two", "4:four"],
  });
  assert.deepEqual(search(TEXT, "^(two|six)$", { before: 1, after: 2 }).lines, [
    "1-one",
    "2:two",
    "3-three",
    "4-four",
    "5-five",
    "6:six",
    "7-seven",
  ]);
});

test("^ and $ hold at CRLF line ends; the \\r is not shown", () => {
  assert.deepEqual(search("alpha\r\nbeta\r\n", "a$").lines, ["1:alpha", "2:beta"]);
});

test("a multiline match marks every line it touches, and no line past the end", () => {
  assert.deepEqual(search(TEXT, "two\\nthr", { multiline: true }).lines, ["2:two", "3:three"]);
  assert.deepEqual(search(TEXT, "e\\n", { multiline: true }).lines, [
    "1:one",
    "3:three",
    "5:five",
  ]);
  assert.deepEqual(search("a\nb\n", "^", { multiline: true, mode: "count" }).matched, 2);
  assert.deepEqual(search("", "x*", { multiline: true }).matched, 0);
  assert.deepEqual(search(TEXT, "f.*?x", { multiline: true }).lines, ["4:four", "5:five", "6:six"]);
});

test("files_with_matches stops at the first matching line; count keeps no lines", () => {
  assert.deepEqual(search(TEXT, "e", { mode: "files_with_matches" }), { matched: 1, lines: [] });
  assert.deepEqual(search(TEXT, "e", { mode: "count" }), { matched: 4, lines: [] });
  assert.deepEqual(search(TEXT, "zzz"), { matched: 0, lines: [] });
});

test("a long line is cut around its first match", () => {
  const long = `${"x".repeat(5_000)}needle${"y".repeat(5_000)}`;
  const [line] = search(`short\n${long}\n`, "needle").lines;
  assert.match(line, /^2:\[…4,900 characters\] x{100}needle/);
});

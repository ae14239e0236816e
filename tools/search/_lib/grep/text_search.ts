/**
 * The built-in search of one file's decoded text, as rg reports it: which lines match (where
 * their first match starts), with context. Line by line, the whole-text pattern (a superset of
 * the line pattern: whatever matches a line also matches there in the text) finds the candidate
 * lines, and only they are checked with the line pattern, so a file is never split into lines.
 */
import type { CompiledPattern } from "./pattern.ts";
import { markMatch, withoutCr } from "./lines.ts";
import { FileLines, type FileMatches, type OutputMode } from "./report.ts";

export interface TextSearch {
  pattern: CompiledPattern;
  multiline: boolean;
  mode: OutputMode;
  before: number;
  after: number;
  /** Content mode: count the lines but keep no text (the report is full). */
  textUnwanted?: boolean;
  /**
   * Line by line: where the next text every match holds starts, from `from` (-1: none). Then
   * only lines holding it are matched, and the whole-text pattern is not run.
   */
  nextCandidate?: (text: string, from: number) => number;
}

/** A matched line: its number's first match column, and where the line lies in the text. */
interface LineHit {
  column: number;
  start: number;
  end: number;
}

export function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Line number (1-based) → its first match, for a pattern matched line by line. */
function lineModeHits(
  text: string,
  pattern: CompiledPattern,
  firstOnly: boolean,
  nextCandidate = (text: string, from: number) => {
    pattern.text.lastIndex = from;
    return pattern.text.exec(text)?.index ?? -1;
  },
) {
  const hits = new Map<number, LineHit>();
  let lineStart = 0;
  let number = 1;
  while (lineStart < text.length) {
    const candidate = nextCandidate(text, lineStart);
    if (candidate === -1) break;
    // The line holding the candidate: the first match of the line pattern is on it or after.
    for (let nl = text.indexOf("\n", lineStart); nl !== -1 && nl < candidate;) {
      lineStart = nl + 1;
      number++;
      nl = text.indexOf("\n", lineStart);
    }
    if (lineStart >= text.length) break; // an empty match after the last line break
    let end = text.indexOf("\n", lineStart);
    if (end === -1) end = text.length;
    const hit = pattern.line.exec(withoutCr(text.slice(lineStart, end)));
    if (hit) {
      hits.set(number, { column: hit.index, start: lineStart, end });
      if (firstOnly) break;
    }
    lineStart = end + 1;
    number++;
  }
  return hits;
}

/** Line number (1-based) → where its first match starts (0 when a match runs into it). */
function multilineMatches(text: string, lines: string[], search: TextSearch): Map<number, number> {
  const { pattern, mode } = search;
  const firstOnly = mode === "files_with_matches";
  const matched = new Map<number, number>();
  if (lines.length === 0) return matched;
  const starts = [0];
  for (let i = 0; i < lines.length - 1; i++) starts.push(starts[i] + lines[i].length + 1);
  const columnOf = (lineStart: number, start: number) => start - lineStart;
  const whole = pattern.text;
  whole.lastIndex = 0;
  for (let found = whole.exec(text); found; found = whole.exec(text)) {
    const start = found.index;
    let end = start + found[0].length;
    // rg (--crlf) drops a \r that ends a match of a pattern with `$`, which can take it: the match
    // then keeps to the line the \r\n ends.
    if (pattern.endAnchor && end > start && text[end - 1] === "\r") end--;
    if (start >= text.length && text.endsWith("\n")) break; // past the last line
    markMatch(matched, starts, start, end, columnOf, 1); // keyed by line number
    if (firstOnly) break;
    // rg looks for the next match where this one ended (one character on if it was empty).
    whole.lastIndex = end > start ? end : start + (text.codePointAt(start)! > 0xffff ? 2 : 1);
  }
  return matched;
}

/** Searches one file's text across lines (multiline), as rg would report it. */
function searchAcrossLines(path: string, text: string, search: TextSearch): FileMatches {
  const lines = splitLines(text);
  const out = new FileLines(path, search.mode === "content", search.textUnwanted);
  const matched = multilineMatches(text, lines, search);
  let next = 1;
  for (const number of [...matched.keys()].sort((a, b) => a - b)) {
    if (search.mode !== "content") {
      out.add(number, "", true);
      continue;
    }
    const from = Math.max(next, number - search.before);
    const to = Math.min(lines.length, number + search.after);
    for (let n = from; n <= to; n++) out.add(n, lines[n - 1], matched.has(n), matched.get(n));
    next = Math.max(next, to + 1);
  }
  return out.result();
}

/** Searches one file's text line by line, as rg would report it. */
function searchLines(path: string, text: string, search: TextSearch): FileMatches {
  const out = new FileLines(path, search.mode === "content", search.textUnwanted);
  const hits = lineModeHits(
    text,
    search.pattern,
    search.mode === "files_with_matches",
    search.nextCandidate,
  );
  if (search.mode !== "content") {
    for (const number of hits.keys()) out.add(number, "", true);
    return out.result();
  }
  // Context lines are found by walking from the matched line they surround.
  let reported = 0; // the last line number added
  for (const [number, hit] of hits) {
    const first = Math.max(reported + 1, number - search.before);
    const before: string[] = [];
    let start = hit.start;
    for (let n = number - 1; n >= first; n--) {
      // The line before ends at start - 1; its own start follows the break before it, if any.
      const previous = start < 2 ? 0 : text.lastIndexOf("\n", start - 2) + 1;
      before.push(text.slice(previous, start - 1));
      start = previous;
    }
    before.reverse().forEach((line, i) => out.add(first + i, line, false));
    out.add(number, text.slice(hit.start, hit.end), true, hit.column);
    reported = number;
    let end = hit.end;
    for (let n = number + 1; n <= number + search.after && end < text.length; n++) {
      if (end + 1 >= text.length) break; // the text ended with that line's break
      const lineEnd = text.indexOf("\n", end + 1);
      const stop = lineEnd === -1 ? text.length : lineEnd;
      if (hits.has(n)) break; // the next match reports itself and what follows it
      out.add(n, text.slice(end + 1, stop), false);
      reported = n;
      end = stop;
    }
  }
  return out.result();
}

/** Searches one file's text as rg would report it. */
export function searchText(path: string, text: string, search: TextSearch): FileMatches {
  return search.multiline ? searchAcrossLines(path, text, search) : searchLines(path, text, search);
}

/**
 * Whether rg, matching across lines, would meet a NUL byte in the lines it reports (matched or
 * context), which makes it drop the file as binary after all.
 */
export function nulInReportedLines(text: string, search: TextSearch): boolean {
  const lines = splitLines(text);
  // All the matches: rg goes on past the first even when only the file's name is wanted.
  const matched = multilineMatches(text, lines, { ...search, mode: "count" });
  for (const number of matched.keys()) {
    const from = Math.max(1, number - search.before);
    const to = Math.min(lines.length, number + search.after);
    for (let n = from; n <= to; n++) if (lines[n - 1].includes("\0")) return true;
  }
  return false;
}

/**
 * grep's own search, for machines without rg: the same walk order, ignore rules, binary and size
 * skips as the rg search, with JavaScript regular expressions. Files are read a batch at a time,
 * in parallel, and reported in walk order.
 */
import { open } from "node:fs/promises";
import type { CompiledPattern } from "./grep_pattern.ts";
import { FileLines, type FileMatches, type OutputMode } from "./grep_report.ts";
import { type GrepSearch, MAX_FILE_BYTES } from "./grep_search.ts";
import { binaryKind, decodeText, SNIFF_BYTES } from "./text.ts";
import { count } from "./units.ts";
import { Walk } from "./walk.ts";

/** Entries a search looks at, at most. */
const MAX_WALK_ENTRIES = 500_000;
const READ_BATCH = 32;

export interface TextSearch {
  pattern: CompiledPattern;
  multiline: boolean;
  mode: OutputMode;
  before: number;
  after: number;
}

/** A file's text, or why it is not searched: binary (with its kind), or too large. */
export async function readText(
  path: string,
): Promise<{ text: string } | { binary: string } | { tooLarge: number }> {
  const handle = await open(path, "r");
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return { tooLarge: size };
    const bytes = await handle.readFile();
    const kind = binaryKind(bytes.subarray(0, SNIFF_BYTES));
    if (kind) return { binary: kind };
    const decoded = decodeText(bytes)!;
    // rg also gives up on a file at the first NUL byte, wherever it is.
    if (decoded.text.includes("\0")) return { binary: "text with NUL bytes" };
    return { text: decoded.text };
  } finally {
    await handle.close();
  }
}

function splitLines(text: string): string[] {
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

/** Line number (1-based) → where its first match starts (0 when a match runs into it). */
function matchedLines(text: string, lines: string[], search: TextSearch): Map<number, number> {
  const { pattern, multiline, mode } = search;
  const firstOnly = mode === "files_with_matches";
  const matched = new Map<number, number>();
  if (lines.length === 0) return matched;
  pattern.text.lastIndex = 0;
  if (!multiline) {
    if (!pattern.text.test(text)) return matched;
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i].endsWith("\r") ? lines[i].slice(0, -1) : lines[i];
      const found = pattern.line.exec(line);
      if (!found) continue;
      matched.set(i + 1, found.index);
      if (firstOnly) break;
    }
    return matched;
  }
  const starts = [0];
  for (let i = 0; i < lines.length - 1; i++) starts.push(starts[i] + lines[i].length + 1);
  const lineAt = (offset: number) => {
    let low = 0;
    let high = starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if (starts[mid] <= offset) low = mid;
      else high = mid - 1;
    }
    return low + 1;
  };
  for (const found of text.matchAll(pattern.text)) {
    const start = found.index!;
    const end = start + found[0].length;
    const first = lineAt(start);
    if (start >= text.length && text.endsWith("\n")) break; // past the last line
    if (!matched.has(first)) matched.set(first, start - starts[first - 1]);
    const last = end > start ? lineAt(end - 1) : first;
    for (let n = first + 1; n <= last; n++) matched.set(n, 0);
    if (firstOnly) break;
  }
  return matched;
}

/** Searches one file's text as rg would report it. */
export function searchText(path: string, text: string, search: TextSearch): FileMatches {
  const lines = splitLines(text);
  const out = new FileLines(path, search.mode === "content");
  const matched = matchedLines(text, lines, search);
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

async function searchFile(path: string, search: GrepSearch): Promise<FileMatches | undefined> {
  const read = await readText(path).catch(() => undefined);
  if (!read || !("text" in read)) return undefined;
  const found = searchText(path, read.text, search);
  return found.matchedLines > 0 ? found : undefined;
}

/** Files under `search.dir` with matches, in path order. */
export async function* builtinSearch(search: GrepSearch): AsyncGenerator<FileMatches> {
  const walk = new Walk({
    respectIgnores: true,
    rulesAbove: search.rulesAbove,
    maxEntries: MAX_WALK_ENTRIES,
    deadline: search.deadline,
    signal: search.signal,
  });
  let batch: string[] = [];
  const flush = async function* () {
    const results = await Promise.all(batch.map((path) => searchFile(path, search)));
    batch = [];
    for (const result of results) if (result) yield result;
  };
  for await (const entry of walk.entries(search.dir)) {
    if (entry.kind !== "file" || (search.filter && !search.filter.matches(entry.rel))) continue;
    batch.push(entry.path);
    if (batch.length >= READ_BATCH) yield* flush();
  }
  yield* flush();
  if (walk.stopped && walk.stopped !== "cancelled") {
    search.stopped = walk.stopped === "entry limit"
      ? `after looking at ${count(MAX_WALK_ENTRIES)} entries`
      : "time limit reached";
  }
}

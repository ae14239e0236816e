/**
 * grep's own search, for machines without rg: the same walk order, ignore rules, binary and size
 * skips as the rg search, with JavaScript regular expressions. Files are read a few at a time, in
 * parallel within a byte budget, and reported in walk order.
 */
import { constants } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename } from "node:path";
import { O_NOFOLLOW, O_NOFOLLOW_ANY, O_NONBLOCK } from "../../_lib/beneath.ts";
import type { CompiledPattern } from "./grep_pattern.ts";
import { markMatch, withoutCr } from "./grep_lines.ts";
import { FileLines, type FileMatches, type OutputMode } from "./grep_report.ts";
import { binaryFileError, type GrepSearch, MAX_FILE_BYTES, tooLargeError } from "./grep_search.ts";
import { bomOf } from "../../_lib/text.ts";
import { count } from "../../_lib/units.ts";
import { Walk } from "../../_lib/walk.ts";

/** Entries a search looks at, at most. */
const MAX_WALK_ENTRIES = 500_000;
/** Files read and searched at once. */
const READ_CONCURRENCY = 8;
/** File bytes being read at once (a larger file is read alone): with the count, a memory bound. */
const READ_BUDGET_BYTES = 32 * 1024 * 1024;
/**
 * How far rg looks for a NUL byte when it matches across lines (a pattern that can match a line
 * break, in a directory): it holds the whole file and checks only its start, and then the lines
 * it reports. Line by line, and in a file named on its own, it checks everything.
 */
const MULTILINE_BINARY_WINDOW = 64 * 1024;

const encoder = new TextEncoder();
const { O_RDONLY } = constants;

export interface TextSearch {
  pattern: CompiledPattern;
  multiline: boolean;
  mode: OutputMode;
  before: number;
  after: number;
}

/** Bytes that may be held at once by the files being read. */
class ByteBudget {
  #free = READ_BUDGET_BYTES;
  #waiting: (() => void)[] = [];

  async take(size: number): Promise<number> {
    const taken = Math.min(size, READ_BUDGET_BYTES);
    while (this.#free < taken) await new Promise<void>((wake) => this.#waiting.push(wake));
    this.#free -= taken;
    return taken;
  }

  give(taken: number): void {
    this.#free += taken;
    for (const wake of this.#waiting.splice(0)) wake();
  }
}

/**
 * A file's text as rg reads it with --encoding=utf-8: a BOM decides UTF-8 or UTF-16 (and is
 * dropped), invalid bytes become U+FFFD, and a NUL byte (within `nulWindow` bytes of the text, if
 * given) makes the file binary; or why it is not searched.
 */
async function readText(
  handle: FileHandle,
  budget: ByteBudget,
  nulWindow?: number,
): Promise<{ text: string } | { binary: string } | { tooLarge: number }> {
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return { tooLarge: size };
    const taken = await budget.take(size);
    try {
      const bytes = await handle.readFile();
      const bom = bomOf(bytes);
      const text = new TextDecoder(bom?.encoding ?? "utf-8").decode(
        bytes.subarray(bom?.length ?? 0),
      );
      const nul = text.indexOf("\0");
      const binary = nul >= 0 &&
        (nulWindow === undefined ||
          (nul < nulWindow && encoder.encode(text.slice(0, nul)).length < nulWindow));
      return binary ? { binary: "text with NUL bytes" } : { text };
    } finally {
      budget.give(taken);
    }
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
      const found = pattern.line.exec(withoutCr(lines[i]));
      if (!found) continue;
      matched.set(i + 1, found.index);
      if (firstOnly) break;
    }
    return matched;
  }
  const starts = [0];
  for (let i = 0; i < lines.length - 1; i++) starts.push(starts[i] + lines[i].length + 1);
  const columnOf = (lineStart: number, start: number) => start - lineStart;
  const whole = pattern.text;
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

/**
 * Whether rg, matching across lines, would meet a NUL byte in the lines it reports (matched or
 * context), which makes it drop the file as binary after all.
 */
function nulInReportedLines(text: string, search: TextSearch): boolean {
  const lines = splitLines(text);
  // All the matches: rg goes on past the first even when only the file's name is wanted.
  const matched = matchedLines(text, lines, { ...search, mode: "count" });
  for (const number of matched.keys()) {
    const from = Math.max(1, number - search.before);
    const to = Math.min(lines.length, number + search.after);
    for (let n = from; n <= to; n++) if (lines[n - 1].includes("\0")) return true;
  }
  return false;
}

/**
 * Opens a file for reading at `at` (an address beneath its open directory, or a path) without
 * following a symbolic link or waiting on a FIFO; anything but a regular file is refused.
 */
async function openFile(at: string): Promise<FileHandle> {
  const handle = await open(at, O_RDONLY | O_NOFOLLOW | O_NOFOLLOW_ANY | O_NONBLOCK);
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw Object.assign(new Error(`${at} is not a regular file`), { code: "EINVAL" });
  }
  return handle;
}

/** One file of a directory search: its matches, or undefined (none, skipped or unreadable). */
async function searchFile(
  path: string,
  handle: FileHandle,
  search: GrepSearch,
  budget: ByteBudget,
): Promise<FileMatches | undefined> {
  const window = search.multiline ? MULTILINE_BINARY_WINDOW : undefined;
  const read = await readText(handle, budget, window).catch(() => {
    search.unreadable = true;
    return undefined;
  });
  if (!read || !("text" in read)) return undefined;
  if (search.multiline && read.text.includes("\0") && nulInReportedLines(read.text, search)) {
    return undefined;
  }
  const found = searchText(path, read.text, search);
  return found.matchedLines > 0 ? found : undefined;
}

/** A file named on its own: a binary or too large one is an error, not a silent skip. */
async function searchNamedFile(path: string, search: GrepSearch): Promise<FileMatches> {
  const handle =
    await (search.within
      ? search.within.open(basename(path), O_RDONLY | O_NONBLOCK)
      : openFile(path));
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw new Error(`${search.label} is not a regular file`);
  }
  const read = await readText(handle, new ByteBudget());
  if ("binary" in read) throw binaryFileError(search.label, read.binary);
  if ("tooLarge" in read) throw tooLargeError(search.label, read.tooLarge);
  return searchText(path, read.text, search);
}

/** Files with matches, in path order: under `search.dir`, or just `search.file`. */
export async function* builtinSearch(search: GrepSearch): AsyncGenerator<FileMatches> {
  if (search.file) {
    const found = await searchNamedFile(search.file, search);
    if (found.matchedLines > 0) yield found;
    return;
  }
  const walk = new Walk({
    respectIgnores: true,
    rules: search.rulesAbove,
    maxEntries: MAX_WALK_ENTRIES,
    deadline: search.deadline,
    signal: search.signal,
  });
  const budget = new ByteBudget();
  // Searches already started, oldest first: results leave in walk order.
  const pending: Promise<FileMatches | undefined>[] = [];
  for await (const entry of walk.entries(search.within ?? search.dir)) {
    if (entry.kind !== "file" || (search.filter && !search.filter.matches(entry.rel))) continue;
    // Opened now, while its directory is held open: the address is valid until the walk goes on.
    const handle = await openFile(entry.at).catch(() => {
      search.unreadable = true;
      return undefined;
    });
    if (!handle) continue;
    pending.push(searchFile(entry.path, handle, search, budget));
    if (pending.length >= READ_CONCURRENCY) {
      const found = await pending.shift()!;
      if (found) yield found;
    }
  }
  for (const started of pending) {
    const found = await started;
    if (found) yield found;
  }
  if (walk.stopped && walk.stopped !== "cancelled") {
    search.stopped = walk.stopped === "entry limit"
      ? `after looking at ${count(MAX_WALK_ENTRIES)} entries`
      : "time limit reached";
  }
}

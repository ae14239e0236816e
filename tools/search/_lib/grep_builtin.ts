/**
 * grep's own search, for machines without rg: the same walk order, ignore rules, binary and size
 * skips as the rg search, with JavaScript regular expressions. The main thread walks and opens
 * each file beneath its held directory; workers (grep_pool.ts), one per core, read and search
 * them in batches (grep_file.ts), and the results are reported in walk order.
 */
import { closeSync, constants, openSync } from "node:fs";
import { type FileHandle, open } from "node:fs/promises";
import { basename } from "node:path";
import { addressing, O_NOFOLLOW, O_NOFOLLOW_ANY, O_NONBLOCK } from "../../_lib/beneath.ts";
import type { FileOutcome, FileSearchOptions } from "./grep_file.ts";
import { searchBatch } from "./grep_pool.ts";
import type { FileMatches } from "./grep_report.ts";
import { binaryFileError, type GrepSearch, MAX_FILE_BYTES, tooLargeError } from "./grep_search.ts";
import { searchText, type TextSearch } from "./grep_text.ts";
import { bomOf } from "../../_lib/text.ts";
import { count } from "../../_lib/units.ts";
import { Walk } from "../../_lib/walk.ts";

export { searchText, type TextSearch };

/** Entries a search looks at, at most. */
const MAX_WALK_ENTRIES = 500_000;
/** Files a worker is given at once. */
const BATCH_FILES = 64;
/** Batches handed out and not yet reported: with BATCH_FILES, the descriptors held at once. */
const BATCHES_IN_FLIGHT = 4;

const { O_RDONLY } = constants;

/**
 * A named file's text as rg reads it with --encoding=utf-8: a BOM decides UTF-8 or UTF-16 (and
 * is dropped), invalid bytes become U+FFFD, and a NUL byte anywhere makes it binary; or why it is
 * not searched.
 */
async function readText(
  handle: FileHandle,
): Promise<{ text: string } | { binary: string } | { tooLarge: number }> {
  try {
    const { size } = await handle.stat();
    if (size > MAX_FILE_BYTES) return { tooLarge: size };
    const bytes = await handle.readFile();
    const bom = bomOf(bytes);
    const text = new TextDecoder(bom?.encoding ?? "utf-8").decode(
      bytes.subarray(bom?.length ?? 0),
    );
    return text.includes("\0") ? { binary: "text with NUL bytes" } : { text };
  } finally {
    await handle.close();
  }
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
  const read = await readText(handle);
  if ("binary" in read) throw binaryFileError(search.label, read.binary);
  if ("tooLarge" in read) throw tooLargeError(search.label, read.tooLarge);
  return searchText(path, read.text, search);
}

/**
 * Where a worker opens the file at walk address `at`. On Linux the file is opened here, beneath
 * its held directory and without following a link, and the worker reopens that open file through
 * /proc/self/fd (the descriptor is closed when the batch is done); elsewhere the worker opens the
 * path itself, never through a link.
 */
interface Handoff {
  at: string;
  /** The descriptor opened here, to close once the worker is done with it. */
  fd?: number;
}

const DESCRIPTORS = addressing() === "descriptor";
const WORKER_FLAGS = DESCRIPTORS
  ? O_RDONLY | O_NONBLOCK
  : O_RDONLY | O_NOFOLLOW | O_NOFOLLOW_ANY | O_NONBLOCK;

function handOff(at: string): Handoff {
  if (!DESCRIPTORS) return { at };
  const fd = openSync(at, O_RDONLY | O_NOFOLLOW | O_NONBLOCK);
  return { at: `/proc/self/fd/${fd}`, fd };
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
  const options: FileSearchOptions = {
    pattern: search.pattern.source,
    caseInsensitive: search.caseInsensitive,
    multiline: search.multiline,
    mode: search.mode,
    before: search.before,
    after: search.after,
  };
  // Raised once the report shows nothing more: workers then send counts, not lines.
  const full = new Int32Array(new SharedArrayBuffer(4));
  const report = function* (outcomes: FileOutcome[]) {
    for (const outcome of outcomes) {
      if (outcome === "unreadable") search.unreadable = true;
      else if (outcome) {
        yield outcome;
        if (search.reportFull?.()) Atomics.store(full, 0, 1);
      }
    }
  };
  // Batches handed out, oldest first: results leave in walk order.
  const pending: Promise<FileOutcome[]>[] = [];
  let files: { at: string; path: string }[] = [];
  let held: number[] = [];
  const send = () => {
    const fds = held;
    pending.push(
      searchBatch({ options, flags: WORKER_FLAGS, full, files }, search.signal).finally(() => {
        for (const fd of fds) closeSync(fd);
      }),
    );
    files = [];
    held = [];
  };
  try {
    for await (const entry of walk.entries(search.within ?? search.dir)) {
      if (entry.kind !== "file" || (search.filter && !search.filter.matches(entry.rel))) continue;
      // Opened now, while its directory is held open: the address is valid until the walk goes on.
      let handoff: Handoff;
      try {
        handoff = handOff(entry.at);
      } catch {
        search.unreadable = true;
        continue;
      }
      files.push({ at: handoff.at, path: entry.path });
      if (handoff.fd !== undefined) held.push(handoff.fd);
      if (files.length >= BATCH_FILES) {
        send();
        if (pending.length >= BATCHES_IN_FLIGHT) yield* report(await pending.shift()!);
      }
    }
    if (files.length > 0) send();
    while (pending.length > 0) yield* report(await pending.shift()!);
  } finally {
    // Stopped early (cancelled, or an error): what is still out closes its descriptors itself.
    for (const fd of held) closeSync(fd);
    for (const batch of pending) batch.catch(() => {});
  }
  if (walk.stopped && walk.stopped !== "cancelled") {
    search.stopped = walk.stopped === "entry limit"
      ? `after looking at ${count(MAX_WALK_ENTRIES)} entries`
      : "time limit reached";
  }
}

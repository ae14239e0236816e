/**
 * grep's own search, for machines without rg: the same walk order, ignore rules, binary and size
 * skips as the rg search, with JavaScript regular expressions. The main thread walks; workers
 * (search_workers.ts), one per core, open each file beneath its held directory, read and search
 * them in batches (file_searcher.ts), and the results are reported in walk order.
 */
import { closeSync } from "node:fs";
import type { FileHandle } from "node:fs/promises";
import { basename } from "node:path";
import { type Dir, openByPath, STRICT_READ } from "../../../../_lib/sandbox/mod.ts";
import type { FileOutcome, FileSearchOptions } from "./file_searcher.ts";
import { searchBatch } from "./search_workers.ts";
import type { GrepOutcome } from "../engine.ts";
import type { FileMatches } from "../report.ts";
import { binaryFileError, type GrepQuery, MAX_FILE_BYTES, tooLargeError } from "../query.ts";
import { searchText } from "../text_search.ts";
import { bomOf } from "../../../../_lib/text/text.ts";
import { count } from "../../../../_lib/text/units.ts";
import { Walk } from "../../../../_lib/walk/walk.ts";

/** Entries a search looks at, at most. */
const MAX_WALK_ENTRIES = 500_000;
/** Files a worker is given at once. */
const BATCH_FILES = 64;
/** Batches handed out and not yet reported: with BATCH_FILES, the descriptors held at once. */
const BATCHES_IN_FLIGHT = 4;

/** How long a terminated worker may take to stop opening and reading. */
const DYING_WORKER_MS = 2_000;

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
  const handle = await openByPath(at, "read strictly");
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw Object.assign(new Error(`${at} is not a regular file`), { code: "EINVAL" });
  }
  return handle;
}

/** A file named on its own: a binary or too large one is an error, not a silent skip. */
async function searchNamedFile(path: string, search: GrepQuery): Promise<FileMatches> {
  const handle = await (search.within ? search.within.openFile(basename(path)) : openFile(path));
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
 * Workers open each file at its walk address (`/proc/self/fd/N/name` on Linux: entry `name` of
 * the directory held open as N) without following a link or waiting on a FIFO, so the walk's
 * directories stay held until the batches naming their entries are done (Walk's `release`).
 */
const WORKER_FLAGS = STRICT_READ;

/**
 * Files with matches, in path order: under `search.dir`, or just `search.file`; then how the
 * search ended. Once `full()` (the report shows nothing more), content lines are only counted.
 */
export async function* builtinSearch(
  search: GrepQuery,
  full: () => boolean = () => false,
): AsyncGenerator<FileMatches, GrepOutcome> {
  if (search.file) {
    const found = await searchNamedFile(search.file, search);
    if (found.matchedLines > 0) yield found;
    return { unreadable: false };
  }
  let unreadable = false;
  // Directories the walk is done with that hold files handed out, closed once every batch sent
  // until then is done; the others are closed at once.
  let released: Dir[] = [];
  const handedOut = new WeakSet<Dir>();
  let cancelled = false;
  const walk = new Walk({
    respectIgnores: true,
    rules: search.rulesAbove,
    maxEntries: MAX_WALK_ENTRIES,
    deadline: search.deadline,
    signal: search.signal,
    release: (dir) => void (handedOut.has(dir) ? released.push(dir) : dir.close()),
  });
  const options: FileSearchOptions = {
    pattern: search.pattern.source,
    caseInsensitive: search.caseInsensitive,
    multiline: search.multiline,
    mode: search.mode,
    before: search.before,
    after: search.after,
  };
  // Batches handed out, oldest first: results leave in walk order.
  const pending: Promise<FileOutcome[]>[] = [];
  const closeReleased = async () => {
    const dirs = released;
    released = [];
    await Promise.allSettled(pending);
    // A cancelled batch's worker is being terminated and may still be opening an entry of one
    // of them: their descriptors are not freed for reuse until it surely has stopped.
    if (cancelled) await new Promise((resolve) => setTimeout(resolve, DYING_WORKER_MS));
    await Promise.all(dirs.map((dir) => dir.close()));
  };
  const closing: Promise<void>[] = [];
  /** Each batch's descriptor open in its worker (SearchBatch.open). */
  const opens: Int32Array[] = [];
  let at: string[] = [];
  let paths: string[] = [];
  const send = () => {
    const open = new Int32Array(new SharedArrayBuffer(4)).fill(-1);
    opens.push(open);
    // Once the report is full, workers count content lines instead of sending them.
    const batch = { options, flags: WORKER_FLAGS, full: full(), open };
    pending.push(
      searchBatch(
        { ...batch, at: at.join("\0"), paths: paths.join("\0") },
        search.signal,
      ).catch((error) => {
        cancelled = true;
        throw error;
      }),
    );
    at = [];
    paths = [];
    if (released.length > 0) closing.push(closeReleased());
  };
  const report = function* (outcomes: FileOutcome[]) {
    for (const outcome of outcomes) {
      if (outcome === "unreadable") unreadable = true;
      else if (outcome) yield outcome;
    }
  };
  try {
    for await (const entry of walk.entries(search.within ?? search.dir)) {
      if (entry.kind !== "file" || (search.filter && !search.filter.matches(entry.rel))) continue;
      at.push(entry.at);
      paths.push(entry.path);
      handedOut.add(entry.dir);
      if (at.length >= BATCH_FILES) {
        send();
        if (pending.length >= BATCHES_IN_FLIGHT) yield* report(await pending.shift()!);
      }
    }
    if (at.length > 0) send();
    while (pending.length > 0) yield* report(await pending.shift()!);
  } finally {
    // Also when stopped early (cancelled, or an error): nothing still out may outlive the
    // directories it names, the searched one included (its caller closes it next).
    closing.push(closeReleased());
    await Promise.all(closing);
    // Its worker surely stopped by now (closeReleased waited): a file a cancelled batch's worker
    // was searching when it was terminated is still open, and would stay open for good.
    if (cancelled) {
      for (const open of opens) {
        const fd = Atomics.exchange(open, 0, -1);
        if (fd >= 0) closeSync(fd);
      }
    }
  }
  if (!walk.stopped || walk.stopped === "cancelled") return { unreadable };
  const stopped = walk.stopped === "entry limit"
    ? `after looking at ${count(MAX_WALK_ENTRIES)} entries`
    : "time limit reached";
  return { stopped, unreadable };
}

/**
 * The worker that searches files for grep's built-in search (search_workers.ts): a batch
 * `{ id, options, flags, full, at, paths }` comes in, `{ id, outcomes }` goes back
 * with one outcome per file (null: no match or skipped). Each file is opened at `at` with
 * `flags` (the sandbox's STRICT_READ: no link followed, no FIFO waited on): on Linux
 * `/proc/self/fd/N/name`, entry `name` of a directory the main thread's walk holds open until
 * the batch is done; elsewhere its path. It is closed before the next. It is its own entry point: `bun build --compile` bundles it beside main.ts
 * (scripts/build.ts), and Deno loads it from source.
 *
 * stdout is the JSON-RPC channel: the console writes to stderr here, before anything else loads.
 */
import "../../../../_lib/workers/worker_console.ts";
import { closeSync, openSync } from "node:fs";
import { type FileOutcome, FileSearcher, type FileSearchOptions } from "./file_searcher.ts";

export interface SearchBatch {
  options: FileSearchOptions;
  /** open(2) flags for every file of the batch. */
  flags: number;
  /** The report is full: content lines are counted, not sent (FileSearcher.search). */
  full: boolean;
  /**
   * Where to open each file, and its path for the results, each list joined by NUL (which no
   * path holds): two strings cross to a worker far faster than an array of objects.
   */
  at: string;
  paths: string;
  /**
   * Where the worker keeps the descriptor it has open (-1: none), shared with the main thread:
   * a worker terminated by a cancel may stop between opening a file and closing it, and the
   * descriptor is then closed for it (builtin_search.ts).
   */
  open?: Int32Array;
}

export type SearchBatchReply =
  | { id: number; outcomes: (Exclude<FileOutcome, undefined> | null)[] }
  | { id: number; error: string };

/** The part of a worker's global scope used here (Deno type-checks with the window's lib). */
interface WorkerScope {
  onmessage: ((event: MessageEvent<SearchBatch & { id: number }>) => void) | null;
  postMessage(message: SearchBatchReply): void;
}

const scope = globalThis as unknown as WorkerScope;

/** The searcher of the last options seen: a call's batches share it (and its buffer). */
let last: { key: string; searcher: FileSearcher } | undefined;

function searcherFor(options: FileSearchOptions): FileSearcher {
  const key = JSON.stringify(options);
  if (last?.key !== key) last = { key, searcher: new FileSearcher(options) };
  return last.searcher;
}

scope.onmessage = ({ data: { id, options, flags, full, at: addresses, paths: joined, open } }) => {
  let reply: SearchBatchReply;
  try {
    const searcher = searcherFor(options);
    const paths = joined.split("\0");
    const outcomes = addresses.split("\0").map((at, i) => {
      const path = paths[i];
      let fd: number;
      try {
        fd = openSync(at, flags);
      } catch {
        return "unreadable" as const;
      }
      if (open) Atomics.store(open, 0, fd);
      try {
        return searcher.search(fd, path, full) ?? null;
      } finally {
        // Whoever takes it from `open` closes it (this worker, or the main thread once it gave
        // up on this one): never both, so a number reused since is never closed.
        if (!open || Atomics.exchange(open, 0, -1) === fd) closeSync(fd);
      }
    });
    reply = { id, outcomes };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  scope.postMessage(reply);
};

/**
 * The worker that searches files for grep's built-in search (grep_pool.ts): a batch
 * `{ id, options, flags, files: [{ at, path }] }` comes in, `{ id, outcomes }` goes back with one
 * outcome per file (null: no match or skipped). Each file is opened at `at` with `flags`: on
 * Linux `/proc/self/fd/N` of a file the main thread opened beneath its held directory (this
 * reopens that very file, whatever has been renamed since), elsewhere its path with O_NOFOLLOW;
 * closed again before the next. It is its own entry point: `bun build --compile` bundles it
 * beside main.ts (scripts/build.ts), and Deno loads it from source.
 *
 * stdout is the JSON-RPC channel: the console writes to stderr here, before anything else loads.
 */
import "../../_lib/worker_console.ts";
import { closeSync, openSync } from "node:fs";
import { type FileOutcome, FileSearcher, type FileSearchOptions } from "./grep_file.ts";

export interface SearchBatch {
  options: FileSearchOptions;
  /** open(2) flags for every file of the batch. */
  flags: number;
  /** Over a SharedArrayBuffer: [0] is 1 once the report is full (FileSearcher.search). */
  full: Int32Array;
  files: { at: string; path: string }[];
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

scope.onmessage = ({ data: { id, options, flags, full, files } }) => {
  let reply: SearchBatchReply;
  try {
    const searcher = searcherFor(options);
    const outcomes = files.map(({ at, path }) => {
      let fd: number;
      try {
        fd = openSync(at, flags);
      } catch {
        return "unreadable" as const;
      }
      try {
        return searcher.search(fd, path, Atomics.load(full, 0) === 1) ?? null;
      } finally {
        closeSync(fd);
      }
    });
    reply = { id, outcomes };
  } catch (error) {
    reply = { id, error: error instanceof Error ? error.message : String(error) };
  }
  scope.postMessage(reply);
};

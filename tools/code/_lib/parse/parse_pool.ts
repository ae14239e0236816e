/**
 * Files parsed off the main thread: a worker_pool.ts pool running worker.ts, none until the
 * first parse, reused, ended when idle or when its call is cancelled. A batch that outlives its
 * deadline (a grammar stuck) has its worker terminated; a worker whose runtime's memory grew (a
 * file too complex, or one that nearly was) is ended once it has answered. Batches holding a
 * large file run one at a time, so that at most one worker holds a large tree.
 */
import { availableParallelism, freemem } from "node:os";
import { createWorkerPool, workerModule } from "../../../_lib/workers/worker_pool.ts";
import type { ParseJob, ParseReply, ParseRequest } from "./worker.ts";
import type { ParseOutcome } from "./types.ts";
import { HEAVY_FILE_CHARS, PARSE_MEMORY_BYTES, RETIRE_MEMORY_BYTES } from "./bounds.ts";
import { modulesFor } from "./compiled_modules.ts";

/** One file may take this long to parse; tree-sitter itself stops then. */
export const FILE_PARSE_MS = 10_000;
/** Loading the runtime and a grammar, on top of the parses. */
const LOAD_MS = 15_000;
/** Workers at most, however many cores: the files of one map are rarely more than they can take. */
const MAX_WORKERS = 4;
/** What one worker may hold: its runtime's memory at the most, and its own heap. */
const WORKER_BYTES = PARSE_MEMORY_BYTES * 1.2 + 32 * 1024 * 1024;

/**
 * As many workers as cores (at most MAX_WORKERS), and no more than the free memory holds at the
 * worst a file can make each one take (at least one).
 */
export function parseWorkers(cores = availableParallelism(), free = freemem()): number {
  return Math.max(1, Math.min(cores, MAX_WORKERS, Math.floor(free / 2 / WORKER_BYTES)));
}

export class ParseCancelled extends Error {
  constructor() {
    super("The parse was cancelled.");
    this.name = "AbortError";
  }
}

const WORKERS = parseWorkers();

const pool = createWorkerPool<Omit<ParseRequest, "id">, ParseOutcome[]>({
  workerUrl: workerModule(import.meta.url, "tools/code/_lib/parse/worker.ts"),
  maxWorkers: WORKERS,
  cancelled: () => new ParseCancelled(),
  message: (id, request) => ({ message: { id, ...request } }),
  reply(data) {
    const reply = data as ParseReply;
    if ("error" in reply) return { error: new Error(reply.error) };
    return { result: reply.outcomes };
  },
  retire: (data) => (data as ParseReply).memoryBytes > RETIRE_MEMORY_BYTES,
  crashed: (_request, message) => new Error(`the parser's worker failed: ${message}`),
  timedOut: (request, ms) =>
    new Error(
      `parsing ${request.files.length} file${
        request.files.length === 1 ? "" : "s"
      } took longer than ${ms / 1000} s and was stopped`,
    ),
});

/** How many batches are worth having under way at once: every worker busy, one more waiting each. */
export function parseConcurrency(): number {
  return WORKERS * 2;
}

/** The batch holding a heavy file that runs now, if one does: the next waits for it. */
let heavyLane: Promise<unknown> = Promise.resolve();

/** Whether a batch holds a file large enough to fill a worker's memory (run one at a time). */
export function isHeavy(files: readonly { text: string }[]): boolean {
  return files.some((file) => file.text.length > HEAVY_FILE_CHARS);
}

/**
 * Parses `files` in a worker: one outcome per file, in order. A batch holding a heavy file waits
 * until no other such batch runs.
 */
export function parseBatch(files: ParseJob[], signal?: AbortSignal): Promise<ParseOutcome[]> {
  const run = async () => {
    const compiling = modulesFor(files.map((file) => file.lang));
    // The first batch's worker starts while the runtime and its grammars compile.
    pool.prepare();
    const modules = await compiling;
    if (signal?.aborted) throw new ParseCancelled();
    return pool.run(
      { files, fileMs: FILE_PARSE_MS, modules },
      signal,
      LOAD_MS + FILE_PARSE_MS * files.length,
    );
  };
  if (!isHeavy(files)) return run();
  const result = heavyLane.then(() => {
    if (signal?.aborted) throw new ParseCancelled();
    return run();
  });
  heavyLane = result.catch(() => {});
  return result;
}

/** Ends every worker now (tests, and a process that is leaving). */
export function stopParseWorkers(): void {
  pool.stop();
}

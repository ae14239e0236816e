/**
 * Files parsed off the main thread: a worker_pool.ts pool running worker.ts, none until the
 * first parse, reused, ended when idle or when its call is cancelled. A batch that outlives its
 * deadline (a grammar stuck, memory exhausted) has its worker terminated.
 */
import { createWorkerPool, workerModule } from "../../../_lib/workers/worker_pool.ts";
import type { ParseJob, ParseReply, ParseRequest } from "./worker.ts";
import type { ParseOutcome } from "./types.ts";

/** One file may take this long to parse; tree-sitter itself stops then. */
export const FILE_PARSE_MS = 10_000;
/** Loading the runtime and a grammar, on top of the parses. */
const LOAD_MS = 15_000;

export class ParseCancelled extends Error {
  constructor() {
    super("The parse was cancelled.");
    this.name = "AbortError";
  }
}

const pool = createWorkerPool<Omit<ParseRequest, "id">, ParseOutcome[]>({
  workerUrl: workerModule(import.meta.url, "tools/code/_lib/parse/worker.ts"),
  cancelled: () => new ParseCancelled(),
  message: (id, request) => ({ message: { id, ...request } }),
  reply(data) {
    const reply = data as ParseReply;
    if ("error" in reply) return { error: new Error(reply.error) };
    return { result: reply.outcomes };
  },
  crashed: (_request, message) => new Error(`the parser's worker failed: ${message}`),
  timedOut: (request, ms) =>
    new Error(
      `parsing ${request.files.length} file${
        request.files.length === 1 ? "" : "s"
      } took longer than ${ms / 1000} s and was stopped`,
    ),
});

/** Parses `files` in a worker: one outcome per file, in order. */
export function parseBatch(files: ParseJob[], signal?: AbortSignal): Promise<ParseOutcome[]> {
  return pool.run(
    { files, fileMs: FILE_PARSE_MS },
    signal,
    LOAD_MS + FILE_PARSE_MS * files.length,
  );
}

/** Ends every worker now (tests, and a process that is leaving). */
export function stopParseWorkers(): void {
  pool.stop();
}

/**
 * Files searched off the main thread, on every core: a worker_pool.ts pool running
 * search_worker.ts, none until the first search, reused, at most one per core (two at most), ended
 * when idle or when their call is cancelled. The main thread walks and hands out batches.
 */
import type { FileOutcome } from "./file_searcher.ts";
import type { SearchBatch, SearchBatchReply } from "./search_worker.ts";
import { createWorkerPool, workerModule } from "../../../../_lib/workers/worker_pool.ts";

export class SearchCancelled extends Error {
  constructor() {
    super("The search was cancelled.");
    this.name = "AbortError";
  }
}

const pool = createWorkerPool<SearchBatch, FileOutcome[]>({
  workerUrl: workerModule(import.meta.url, "tools/search/_lib/grep/builtin/search_worker.ts"),
  cancelled: () => new SearchCancelled(),
  message: (id, request) => ({ message: { id, ...request } }),
  reply(data) {
    const reply = data as SearchBatchReply;
    if ("error" in reply) return { error: new Error(reply.error) };
    return { result: reply.outcomes.map((outcome) => outcome ?? undefined) };
  },
  crashed: (_request, message) => new Error(`grep's search worker failed: ${message}`),
});

/** Searches a batch of files in a worker: one outcome per file, in order. */
export function searchBatch(batch: SearchBatch, signal?: AbortSignal): Promise<FileOutcome[]> {
  return pool.run(batch, signal);
}

/** Ends every worker now (tests, and a process that is leaving). */
export function stopSearchWorkers(): void {
  pool.stop();
}

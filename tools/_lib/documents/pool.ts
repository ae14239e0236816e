/**
 * Document extraction off the main thread, in the manner of the HTML converter's pool: a
 * worker_pool.ts pool running worker.ts, none until the first document, reused, at most two,
 * ended when idle or when their call is cancelled. Unlike conversion, extraction reads files made
 * by anyone, so each job also has a deadline: past it the worker is terminated — whatever a
 * hostile file made the library do, it stops there — and the call gets a clear error. A worker
 * that fails (a crash inside a library) is replaced the same way.
 */
import type { Extracted, ExtractReply, ExtractRequest } from "./types.ts";
import { DocumentError } from "./types.ts";
import { createWorkerPool, workerModule } from "../workers/worker_pool.ts";
import { DOCUMENT_MEMORY_LIMIT, guardMemory } from "./memory_guard.ts";

/** How long one extraction may take, from when a worker takes it. */
export const DEADLINE_MS = 20_000;

export class ExtractionCancelled extends Error {
  constructor() {
    super("The extraction was cancelled.");
    this.name = "AbortError";
  }
}

const pool = createWorkerPool<ExtractRequest, Extracted>({
  workerUrl: workerModule(import.meta.url, "tools/_lib/documents/worker.ts"),
  cancelled: () => new ExtractionCancelled(),
  message(id, request) {
    // Transfer the bytes; a view into a bigger buffer (Node's pooled Buffers) is copied first.
    const { bytes } = request;
    const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
      ? bytes
      : bytes.slice();
    return {
      message: { id, request: { ...request, bytes: owned } },
      transfer: [owned.buffer as ArrayBuffer],
    };
  },
  reply(data) {
    const reply = data as ExtractReply;
    if ("error" in reply) {
      return { error: reply.clear ? new DocumentError(reply.error) : new Error(reply.error) };
    }
    return { result: reply.result };
  },
  crashed: (request, message) =>
    new DocumentError(
      `${request.name} could not be read: the extractor failed (${message}); the file may be damaged`,
    ),
  timedOut: (request, deadlineMs) =>
    new DocumentError(
      `${request.name} took longer than ${
        deadlineMs / 1000
      } s to read and was given up (a damaged or hostile file, or one too large to read here)`,
    ),
});

/**
 * Extracts a document in a worker. The request's bytes are transferred: the caller's buffer is
 * emptied. Rejects with DocumentError (a message to show as it is) for a file that cannot be
 * read, ExtractionCancelled on `signal`.
 */
export async function extractInWorker(
  request: ExtractRequest,
  signal?: AbortSignal,
  deadlineMs = DEADLINE_MS,
  memoryLimit = DOCUMENT_MEMORY_LIMIT,
): Promise<Extracted> {
  const guard = guardMemory(memoryLimit);
  const stopped = signal ? AbortSignal.any([signal, guard.signal]) : guard.signal;
  try {
    return await pool.run(request, stopped, deadlineMs);
  } catch (error) {
    if (guard.grown === undefined || signal?.aborted) throw error;
    const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
    throw new DocumentError(
      `${request.name} was given up: reading it grew toolhost's memory by ${
        mib(guard.grown)
      }, past the ${mib(memoryLimit)} a document may take (a decompression bomb, or a ` +
        "document too large to read here)",
    );
  } finally {
    guard.stop();
  }
}

/** Ends every worker now (tests). */
export function stopExtractors(): void {
  pool.stop();
}

export function extractorCount(): number {
  return pool.count();
}

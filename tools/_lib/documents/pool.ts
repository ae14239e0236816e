/**
 * Document extraction off the main thread, in the manner of the HTML converter's pool
 * (tools/web/_lib/convert_pool.ts): web-standard Workers running worker.ts, none until the first
 * document, reused, at most two, ended when idle for IDLE_MS or when their call is cancelled.
 * Unlike conversion, extraction reads files made by anyone, so each job also has a deadline:
 * past it the worker is terminated — whatever a hostile file made the library do, it stops
 * there — and the call gets a clear error. A worker that fails (a crash inside a library) is
 * replaced the same way.
 */
import type { Extracted, ExtractReply, ExtractRequest } from "./types.ts";
import { DocumentError } from "./types.ts";

const MAX_WORKERS = Math.max(1, Math.min(2, globalThis.navigator?.hardwareConcurrency ?? 1));
const IDLE_MS = 30_000;
/** How long one extraction may take, from when a worker takes it. */
export const DEADLINE_MS = 20_000;

export class ExtractionCancelled extends Error {
  constructor() {
    super("The extraction was cancelled.");
    this.name = "AbortError";
  }
}

interface Job {
  id: number;
  request: ExtractRequest;
  deadlineMs: number;
  resolve(result: Extracted): void;
  reject(error: Error): void;
  settle(): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  idle?: ReturnType<typeof setTimeout>;
  deadline?: ReturnType<typeof setTimeout>;
}

const slots = new Set<Slot>();
const waiting: Job[] = [];
let nextId = 1;

function unref(handle: unknown): void {
  (handle as { unref?: () => void }).unref?.();
}

/** From source, this module's neighbour; in the binary, the entry point scripts/build.ts lists. */
function workerUrl(): string {
  const bundled = !import.meta.url.endsWith("/pool.ts");
  return new URL(bundled ? "./tools/_lib/documents/worker.ts" : "./worker.ts", import.meta.url)
    .href;
}

function startWorker(): Slot {
  const worker = new Worker(workerUrl(), { type: "module" });
  unref(worker);
  const slot: Slot = { worker };
  worker.onmessage = ({ data }: MessageEvent<ExtractReply>) => {
    const job = slot.job;
    if (!job || job.id !== data.id) return;
    clearTimeout(slot.deadline);
    slot.job = undefined;
    job.settle();
    if ("error" in data) {
      job.reject(data.clear ? new DocumentError(data.error) : new Error(data.error));
    } else job.resolve(data.result);
    next(slot);
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    const job = slot.job;
    stop(slot);
    if (job) {
      job.settle();
      job.reject(
        new DocumentError(
          `${job.request.name} could not be read: the extractor failed (${
            event.message || "worker error"
          }); the file may be damaged`,
        ),
      );
    }
    dispatch();
  };
  slots.add(slot);
  return slot;
}

function stop(slot: Slot): void {
  clearTimeout(slot.idle);
  clearTimeout(slot.deadline);
  slots.delete(slot);
  slot.job = undefined;
  slot.worker.terminate();
}

function run(slot: Slot, job: Job): void {
  clearTimeout(slot.idle);
  slot.idle = undefined;
  slot.job = job;
  slot.deadline = setTimeout(() => {
    if (slot.job !== job) return;
    stop(slot);
    job.settle();
    job.reject(
      new DocumentError(
        `${job.request.name} took longer than ${
          job.deadlineMs / 1000
        } s to read and was given up (a damaged or hostile file, or one too large to read here)`,
      ),
    );
    dispatch();
  }, job.deadlineMs);
  unref(slot.deadline);
  // Transfer the bytes; a view into a bigger buffer (Node's pooled Buffers) is copied first.
  const { bytes } = job.request;
  const owned = bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength
    ? bytes
    : bytes.slice();
  slot.worker.postMessage({ id: job.id, request: { ...job.request, bytes: owned } }, [
    owned.buffer as ArrayBuffer,
  ]);
}

function next(slot: Slot): void {
  const job = waiting.shift();
  if (job) return run(slot, job);
  slot.idle = setTimeout(() => {
    if (!slot.job) stop(slot);
  }, IDLE_MS);
  unref(slot.idle);
}

function dispatch(): void {
  while (waiting.length) {
    let free: Slot | undefined;
    for (const slot of slots) if (!slot.job) free = slot;
    if (!free && slots.size < MAX_WORKERS) free = startWorker();
    if (!free) return;
    run(free, waiting.shift()!);
  }
}

function cancel(job: Job): void {
  const at = waiting.indexOf(job);
  if (at >= 0) waiting.splice(at, 1);
  for (const slot of slots) {
    if (slot.job === job) {
      stop(slot);
      dispatch();
    }
  }
  job.settle();
  job.reject(new ExtractionCancelled());
}

/**
 * Extracts a document in a worker. The request's bytes are transferred: the caller's buffer is
 * emptied. Rejects with DocumentError (a message to show as it is) for a file that cannot be
 * read, ExtractionCancelled on `signal`.
 */
export function extractInWorker(
  request: ExtractRequest,
  signal?: AbortSignal,
  deadlineMs = DEADLINE_MS,
): Promise<Extracted> {
  if (signal?.aborted) return Promise.reject(new ExtractionCancelled());
  return new Promise((resolve, reject) => {
    const onAbort = () => cancel(job);
    const job: Job = {
      id: nextId++,
      request,
      deadlineMs,
      resolve,
      reject,
      settle: () => signal?.removeEventListener("abort", onAbort),
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    waiting.push(job);
    dispatch();
  });
}

/** Ends every worker now (tests). */
export function stopExtractors(): void {
  for (const slot of slots) {
    const job = slot.job;
    stop(slot);
    if (job) {
      job.settle();
      job.reject(new ExtractionCancelled());
    }
  }
  for (const job of waiting.splice(0)) {
    job.settle();
    job.reject(new ExtractionCancelled());
  }
}

export function extractorCount(): number {
  return slots.size;
}

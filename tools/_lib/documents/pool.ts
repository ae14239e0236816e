/**
 * Document extraction off the main thread, in the manner of the HTML converter's pool: a
 * worker_pool.ts pool running worker.ts, none until the first document, reused, one document at a
 * time, ended when idle or when its call is cancelled. Unlike conversion, extraction reads files made
 * by anyone, so each job also has a deadline, and a ceiling on memory (memory_guard.ts): past
 * either the worker is terminated — whatever a hostile file made the library do, it stops there —
 * and the call gets a clear error. The deadline is of work done, the process's CPU time, so a busy
 * machine does not fail a document it would read (a file that took 8 s alone took over 20 s beside
 * other work), with a cap in time as well (WALL_FACTOR times as long). A worker that fails (a crash
 * inside a library) is replaced the same way.
 */
import process from "node:process";
import type { Extracted, ExtractReply, ExtractRequest } from "./types.ts";
import { DocumentError } from "./types.ts";
import { createWorkerPool, workerModule } from "../workers/worker_pool.ts";
import { guardMemory } from "./memory_guard.ts";

/** How much work one extraction may take: CPU time of the process, from when it is asked for. */
export const DEADLINE_MS = 20_000;
/** However little CPU it gets, an extraction ends this many times its deadline after it began. */
const WALL_FACTOR = 6;
/** A document stopped having grown memory by less than this found the server busy already. */
const BUSY_GROWTH = 8e6;
/** Most of what a worker with its library loaded holds, given back when it ends. */
const WORKER_BYTES = 20e6;
/** How long the next document waits for the memory of one stopped for it to come back. */
const RECOVERY_MS = 3_000;
const CPU_SAMPLE_MS = 50;

export class ExtractionCancelled extends Error {
  constructor() {
    super("The extraction was cancelled.");
    this.name = "AbortError";
  }
}

const makePool = () =>
  createWorkerPool<ExtractRequest, Extracted>({
    workerUrl: workerModule(import.meta.url, "tools/_lib/documents/worker.ts"),
    // One at a time (nextTurn).
    maxWorkers: 1,
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
    timedOut: (request, wallMs) =>
      new DocumentError(
        `${request.name} took longer than ${
          wallMs / 1000
        } s to read and was given up (a damaged or hostile file, or one too large to read here)`,
      ),
  });

/**
 * A pool per format: a worker holds the library of one format only (each takes about 40 MB), and
 * before a document is read the workers of the other formats are ended, so that no two of those
 * libraries are ever held at once, whatever was read before.
 */
const pools = new Map<ExtractRequest["format"], ReturnType<typeof makePool>>();

async function poolFor(format: ExtractRequest["format"]): Promise<ReturnType<typeof makePool>> {
  const before = process.memoryUsage.rss();
  let stopped = false;
  for (const [other, pool] of pools) {
    if (other === format || pool.count() === 0) continue;
    pool.stop();
    stopped = true;
  }
  // A terminated worker's heap goes some milliseconds later: the next library waits for it.
  const until = Date.now() + 1_000;
  while (stopped && process.memoryUsage.rss() > before - WORKER_BYTES && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  let pool = pools.get(format);
  if (!pool) pools.set(format, pool = makePool());
  return pool;
}

/** Aborts once the process has spent `cpuMs` of CPU time since it was made. */
function workDeadline(cpuMs: number): { signal: AbortSignal; passed: boolean; stop(): void } {
  const controller = new AbortController();
  const used = () => {
    const { user, system } = process.cpuUsage();
    return (user + system) / 1000;
  };
  const start = used();
  const deadline = { signal: controller.signal, passed: false, stop: () => clearInterval(timer) };
  const timer = setInterval(() => {
    if (used() - start <= cpuMs) return;
    deadline.passed = true;
    clearInterval(timer);
    controller.abort();
  }, Math.min(CPU_SAMPLE_MS, cpuMs));
  // Never what keeps the process alive.
  (timer as { unref?: () => void }).unref?.();
  return deadline;
}

/**
 * Extracts a document in a worker. The request's bytes are transferred: the caller's buffer is
 * emptied. Rejects with DocumentError (a message to show as it is) for a file that cannot be
 * read, ExtractionCancelled on `signal`.
 */
export async function extractInWorker(
  request: ExtractRequest,
  signal?: AbortSignal,
  deadlineMs = DEADLINE_MS,
  memoryCeiling?: number,
): Promise<Extracted> {
  const done = await nextTurn(signal);
  const pool = await poolFor(request.format);
  const guard = guardMemory(memoryCeiling);
  const work = workDeadline(deadlineMs);
  const stopped = AbortSignal.any([...(signal ? [signal] : []), guard.signal, work.signal]);
  try {
    return await pool.run(request, stopped, deadlineMs * WALL_FACTOR);
  } catch (error) {
    if (signal?.aborted) throw error;
    if (work.passed && guard.resident === undefined) {
      throw new DocumentError(
        `${request.name} took more than ${deadlineMs / 1000} s of work to read and was given up ` +
          "(a damaged or hostile file, or one too large to read here)",
      );
    }
    if (guard.resident === undefined) throw error;
    throw new DocumentError(memoryRefusal(request.name, guard));
  } finally {
    guard.stop();
    work.stop();
    // The next document waits until what this one's worker held is given back (its heap goes
    // some milliseconds after it is terminated): it would otherwise find the server still full.
    if (guard.resident !== undefined) void memoryBack(guard.ceiling).then(done);
    else done();
  }
}

/** Resolves once resident memory is well under `ceiling` again, or after RECOVERY_MS. */
async function memoryBack(ceiling: number): Promise<void> {
  const until = Date.now() + RECOVERY_MS;
  while (process.memoryUsage.rss() > ceiling * 0.8 && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Why a document was stopped by the memory guard: its own growth, or a server already busy. */
function memoryRefusal(name: string, guard: { start: number; resident?: number; ceiling: number }) {
  const mb = (bytes: number) => `${Math.round(bytes / 1e6)} MB`;
  if (guard.resident! - guard.start < BUSY_GROWTH) {
    return `${name} was not read: toolhost's memory was already at ${mb(guard.start)}, near the ` +
      `${mb(guard.ceiling)} reading a document may take it to; try again when it is less busy`;
  }
  return `${name} was given up: reading it took toolhost's memory to ${mb(guard.resident!)}, ` +
    `past the ${mb(guard.ceiling)} a document may take it to (a decompression bomb, or a ` +
    "document too large to read here)";
}

/** Extractions take turns, one at a time; each one's guards start with its turn. */
let last: Promise<void> = Promise.resolve();

function nextTurn(signal?: AbortSignal): Promise<() => void> {
  const previous = last;
  let done!: () => void;
  last = new Promise<void>((resolve) => (done = resolve));
  return new Promise((resolve, reject) => {
    const leave = () => {
      // Its turn passes on when it would have come.
      previous.then(done);
      reject(new ExtractionCancelled());
    };
    if (signal?.aborted) return leave();
    signal?.addEventListener("abort", leave, { once: true });
    previous.then(() => {
      if (signal?.aborted) return;
      signal?.removeEventListener("abort", leave);
      resolve(done);
    });
  });
}

/** Ends every worker now (tests). */
export function stopExtractors(): void {
  for (const pool of pools.values()) pool.stop();
}

export function extractorCount(): number {
  let count = 0;
  for (const pool of pools.values()) count += pool.count();
  return count;
}

/**
 * HTML conversion off the main thread. Parsing, extracting and converting a big page takes
 * hundreds of milliseconds of CPU; on the thread every request shares, that held every other
 * request (a `ping` waited as long as the conversion). Here the work goes to web-standard
 * Workers (convert_worker.ts), in Deno and in the Bun binary alike:
 *
 * - none starts until the first conversion; a worker is then reused, a second one starts only
 *   while two conversions are wanted at once (at most one per core, at most two), and further
 *   conversions wait in line;
 * - a worker idle for IDLE_MS ends, giving its memory back, and a worker never keeps the
 *   process alive (unref'd where the runtime can);
 * - a cancelled call's conversion stops: waiting, it leaves the line; running, its worker is
 *   terminated (a conversion cannot be interrupted) and a new one starts when next needed.
 */
import type { ConvertedPage, ConvertPageOptions } from "./main_content.ts";
import type { ConvertReply, ConvertRequest } from "./convert_worker.ts";

/** Conversions at once: the machines this runs on have two cores or more to spare for it. */
const MAX_WORKERS = Math.max(1, Math.min(2, globalThis.navigator?.hardwareConcurrency ?? 1));
/** An idle worker ends after this long; the next conversion starts a fresh one. */
const IDLE_MS = 30_000;

/** The conversion was given up because the call was cancelled. */
export class ConversionCancelled extends Error {
  constructor() {
    super("The conversion was cancelled.");
    this.name = "AbortError";
  }
}

interface Job {
  id: number;
  html: string;
  options: ConvertPageOptions;
  signal?: AbortSignal;
  resolve(page: ConvertedPage): void;
  reject(error: Error): void;
  /** Undoes the abort listener once the job is settled. */
  settle(): void;
}

interface Slot {
  worker: Worker;
  job?: Job;
  idle?: ReturnType<typeof setTimeout>;
}

const slots = new Set<Slot>();
const waiting: Job[] = [];
let nextId = 1;

/** Node-style ref counting where the runtime has it (Bun); Deno's workers have none. */
function unref(handle: unknown): void {
  (handle as { unref?: () => void }).unref?.();
}

/**
 * The worker's module. From source it is this module's neighbour. In the binary this module is
 * bundled into one file whose import.meta.url is the binary's root, where `bun build --compile`
 * keeps each entry point (scripts/build.ts) under its path from the project's root.
 */
function workerUrl(): string {
  const bundled = !import.meta.url.endsWith("/convert_pool.ts");
  return new URL(
    bundled ? "./tools/web/_lib/convert_worker.ts" : "./convert_worker.ts",
    import.meta.url,
  ).href;
}

function startWorker(): Slot {
  const worker = new Worker(workerUrl(), { type: "module" });
  unref(worker);
  const slot: Slot = { worker };
  worker.onmessage = ({ data }: MessageEvent<ConvertReply>) => {
    const job = slot.job;
    if (!job || job.id !== data.id) return;
    slot.job = undefined;
    job.settle();
    if ("error" in data) job.reject(new Error(data.error));
    else job.resolve(data.page);
    next(slot);
  };
  worker.onerror = (event: ErrorEvent) => {
    event.preventDefault();
    const job = slot.job;
    stop(slot);
    if (job) {
      job.settle();
      job.reject(new Error(`The HTML converter failed: ${event.message || "worker error"}`));
    }
    dispatch();
  };
  slots.add(slot);
  return slot;
}

function stop(slot: Slot): void {
  clearTimeout(slot.idle);
  slots.delete(slot);
  slot.job = undefined;
  slot.worker.terminate();
}

function run(slot: Slot, job: Job): void {
  clearTimeout(slot.idle);
  slot.idle = undefined;
  slot.job = job;
  const request: ConvertRequest = { id: job.id, html: job.html, options: job.options };
  slot.worker.postMessage(request);
}

/** Gives a worker that just finished the next job in line, or lets it idle out. */
function next(slot: Slot): void {
  const job = waiting.shift();
  if (job) return run(slot, job);
  slot.idle = setTimeout(() => {
    if (!slot.job) stop(slot);
  }, IDLE_MS);
  unref(slot.idle);
}

/** Starts what waits on idle workers, or on new ones while there is room. */
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
      // A conversion cannot be interrupted from outside: the worker goes, and a new one starts
      // when the next conversion needs it.
      stop(slot);
      dispatch();
    }
  }
  job.settle();
  job.reject(new ConversionCancelled());
}

/** convertHtml (main_content.ts) in a worker; rejects with ConversionCancelled on `signal`. */
export function convertInWorker(
  html: string,
  options: ConvertPageOptions,
  signal?: AbortSignal,
): Promise<ConvertedPage> {
  if (signal?.aborted) return Promise.reject(new ConversionCancelled());
  return new Promise((resolve, reject) => {
    const onAbort = () => cancel(job);
    const job: Job = {
      id: nextId++,
      html,
      options,
      signal,
      resolve,
      reject,
      settle: () => signal?.removeEventListener("abort", onAbort),
    };
    signal?.addEventListener("abort", onAbort, { once: true });
    waiting.push(job);
    dispatch();
  });
}

/** Ends every worker now, failing what they were doing (tests, and a process that is leaving). */
export function stopConverters(): void {
  for (const slot of slots) {
    const job = slot.job;
    stop(slot);
    if (job) {
      job.settle();
      job.reject(new ConversionCancelled());
    }
  }
  for (const job of waiting.splice(0)) {
    job.settle();
    job.reject(new ConversionCancelled());
  }
}

/** How many workers are running now: for tests and the benchmark. */
export function converterCount(): number {
  return slots.size;
}

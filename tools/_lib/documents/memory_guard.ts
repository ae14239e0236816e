/**
 * A bound on what reading a document may bring the process's memory to. Extraction libraries
 * decode what a file asks (a PDF's compressed streams have no size cap in pdf.js; exceljs builds
 * every shared string and cell of a workbook as objects), and a worker's heap cannot be measured
 * from outside it, so the process's resident memory is sampled every SAMPLE_MS while the job runs:
 * past DOCUMENT_RSS_CEILING (after a collection of the main thread's garbage, which may be what
 * put it there), the job is stopped (its worker is terminated, which frees that heap) and the call
 * gets a clear error. A ceiling for the whole process, not an allowance over the job's start: the
 * server's promise is its total (150 MB), which two documents at once, or one beside other work,
 * would otherwise pass; a document read while the server is busy may be refused for that, and
 * its error says so. (An allowance of 1 GiB over the start, sampled every 50 ms, let a PDF bomb take
 * the process to 1.2 GB before it tripped.)
 */
import process from "node:process";

/**
 * Resident bytes past which a document's extraction is stopped: below the server's 150 MB by what
 * a library can allocate between two samples and a collection (about 10 MB).
 */
export const DOCUMENT_RSS_CEILING = 136e6;
/**
 * From source under Deno (the unit tests) the runtime alone takes several hundred MB, and the
 * 150 MB is the binary's promise: there a document may grow the process by this much instead.
 */
const FROM_SOURCE_GROWTH = 192e6;
const SAMPLE_MS = 10;

type Collect = (full: boolean) => void;
const bunGc = (globalThis as { Bun?: { gc?: Collect } }).Bun?.gc;

export interface MemoryGuard {
  /** Aborted when the ceiling is passed. */
  signal: AbortSignal;
  /** The resident bytes seen when it tripped. */
  resident?: number;
  /** The resident bytes when the job began. */
  start: number;
  stop(): void;
}

/** The ceiling for a job begun at `start` resident bytes, in this runtime. */
export function documentCeiling(start: number): number {
  return bunGc ? DOCUMENT_RSS_CEILING : start + FROM_SOURCE_GROWTH;
}

export function guardMemory(
  ceiling?: number,
  rss = () => process.memoryUsage.rss(),
  collect: Collect | undefined = bunGc,
): MemoryGuard & { ceiling: number } {
  const controller = new AbortController();
  const start = rss();
  ceiling ??= documentCeiling(start);
  const guard = {
    signal: controller.signal,
    start,
    ceiling,
    resident: undefined as number | undefined,
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    let resident = rss();
    if (resident <= ceiling!) return;
    // What this thread threw away may be what is over: collected, is it still?
    collect?.(true);
    resident = rss();
    if (resident <= ceiling!) return;
    guard.resident = resident;
    clearInterval(timer);
    controller.abort();
  }, SAMPLE_MS);
  // Never what keeps the process alive.
  (timer as { unref?: () => void }).unref?.();
  return guard;
}

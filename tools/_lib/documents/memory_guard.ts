/**
 * A bound on what one document may cost in memory. Extraction libraries decode what a file asks
 * (a PDF's compressed streams have no size cap in pdf.js; a 1 MB PDF can inflate to gigabytes), and
 * a worker's heap cannot be measured from outside it, so the process's resident memory is sampled
 * while the job runs: grown past the limit since the job began, the job is stopped (its worker is
 * terminated, which frees that heap) and the call gets a clear error. Other work growing at the
 * same moment can trip it too; the limit is set so that ordinary documents never come close.
 */
import process from "node:process";

/** Growth of the resident set, over the job's start, at which it is stopped. */
export const DOCUMENT_MEMORY_LIMIT = 1024 * 1024 * 1024;
const SAMPLE_MS = 50;

export interface MemoryGuard {
  /** Aborted when the limit is passed. */
  signal: AbortSignal;
  /** The resident growth seen when it tripped, in bytes. */
  grown?: number;
  stop(): void;
}

export function guardMemory(limit = DOCUMENT_MEMORY_LIMIT, rss = () => process.memoryUsage.rss()) {
  const controller = new AbortController();
  const start = rss();
  const guard: MemoryGuard = {
    signal: controller.signal,
    stop: () => clearInterval(timer),
  };
  const timer = setInterval(() => {
    const grown = rss() - start;
    if (grown <= limit) return;
    guard.grown = grown;
    clearInterval(timer);
    controller.abort();
  }, SAMPLE_MS);
  // Never what keeps the process alive.
  (timer as { unref?: () => void }).unref?.();
  return guard;
}

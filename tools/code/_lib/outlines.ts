/**
 * The symbols of many files, parsed in the worker in batches and kept while each file stays the
 * same (device, inode, size and modification time): a second map or find of a project reads and
 * parses only what changed since.
 */
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { versionKey } from "../../_lib/transaction/mod.ts";
import { type CodeSymbol, parseBatch, type ParseJob, type ParseOutcome } from "./parse/mod.ts";
import { readSource, type SourceText, Unparsable } from "./source_files.ts";

export interface FileOutline {
  real: string;
  shown: string;
  symbols: CodeSymbol[];
  identifiers?: Record<string, number>;
}

interface Cached {
  version: string;
  symbols: CodeSymbol[];
  identifiers?: Record<string, number>;
}

/**
 * What is kept, counted in symbols plus distinct identifiers (about 100 bytes each); the files
 * parsed longest ago go first.
 */
const MAX_CACHED_ENTRIES = 1_000_000;
const cache = new Map<string, Cached>();
let cachedEntries = 0;

function weight(entry: Cached): number {
  return entry.symbols.length + Object.keys(entry.identifiers ?? {}).length;
}

/** Files in one message to the worker, and text in one. */
const BATCH_FILES = 64;
const BATCH_CHARS = 2 * 1024 * 1024;

function remember(real: string, entry: Cached): void {
  forget(real);
  cache.set(real, entry);
  cachedEntries += weight(entry);
  while (cachedEntries > MAX_CACHED_ENTRIES && cache.size > 1) forget(cache.keys().next().value!);
}

function forget(real: string): void {
  const old = cache.get(real);
  if (!old) return;
  cachedEntries -= weight(old);
  cache.delete(real);
}

export interface Outlines {
  files: FileOutline[];
  /** Files not parsed, with why (binary, too large, too slow). */
  skipped: { shown: string; why: string }[];
}

/**
 * The outlines of `reals`, in order, with the identifiers each file uses (counted in the same
 * pass, so that a map after a find parses nothing again).
 * `progress` is told how many files are done.
 */
export async function outlinesOf(
  sandbox: Sandbox,
  reals: string[],
  options: { signal: AbortSignal; progress?: (done: number) => void },
): Promise<Outlines> {
  const files: FileOutline[] = [];
  const skipped: Outlines["skipped"] = [];
  let batch: SourceText[] = [];
  let chars = 0;
  let done = 0;
  const running: Promise<void>[] = [];

  const flush = () => {
    if (batch.length === 0) return;
    const sources = batch;
    batch = [];
    chars = 0;
    const jobs: ParseJob[] = sources.map((s) => ({
      lang: s.lang,
      text: s.text,
      symbols: true,
      identifiers: true,
    }));
    const parsed = parseBatch(jobs, options.signal).then((outcomes: ParseOutcome[]) => {
      for (const [i, outcome] of outcomes.entries()) {
        const source = sources[i];
        if ("failed" in outcome) {
          skipped.push({ shown: source.shown, why: outcome.failed });
          continue;
        }
        remember(source.real, {
          version: source.version,
          symbols: outcome.symbols,
          identifiers: outcome.identifiers,
        });
        files.push({
          real: source.real,
          shown: source.shown,
          symbols: outcome.symbols,
          identifiers: outcome.identifiers,
        });
      }
      done += sources.length;
      options.progress?.(done);
    });
    // Awaited below; marked handled now, so that a batch failing while another is awaited (a
    // cancel fails both) is not an unhandled rejection.
    parsed.catch(() => {});
    running.push(parsed);
  };

  for (const real of reals) {
    if (options.signal.aborted) break;
    // A file unchanged since it was parsed is not read again.
    const info = await sandbox.info(real).catch(() => undefined);
    const known = cache.get(real);
    if (info && known && known.version === versionKey(info)) {
      files.push({ real, shown: sandbox.display(real), ...known });
      continue;
    }
    let source: SourceText;
    try {
      source = await readSource(sandbox, real);
    } catch (error) {
      skipped.push({ shown: sandbox.display(real), why: (error as Error).message });
      continue;
    }
    batch.push(source);
    chars += source.text.length;
    if (batch.length >= BATCH_FILES || chars >= BATCH_CHARS) {
      flush();
      // Two batches at a time: the pool has at most two workers.
      if (running.length >= 2) await running.shift();
    }
  }
  flush();
  await Promise.all(running);
  // In the order asked for, whatever order the batches finished in.
  const order = new Map(reals.map((real, i) => [real, i]));
  files.sort((a, b) => order.get(a.real)! - order.get(b.real)!);
  return { files, skipped };
}

export { Unparsable };

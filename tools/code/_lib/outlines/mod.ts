/**
 * The outlines of many files: kept in memory and on disk while each file stays the same (inode,
 * size and modification time), and otherwise read and parsed in the workers, several batches at
 * once. Everything on the main thread runs in slices, so that other requests are answered while a
 * map of 20,000 files is made.
 *
 * @example
 * ```ts
 * const { files, skipped, parsed } = await outlinesOf(sandbox, reals, {
 *   signal: ctx.signal,
 *   progress: (done, total, message) => ctx.progress(done, total, message),
 *   store: { stateDir: ctx.state.dir, project: sandbox.base },
 * });
 * ```
 */
import type { Dir, Sandbox } from "../../../_lib/sandbox/mod.ts";
import {
  type CodeSymbol,
  HEAVY_FILE_CHARS,
  parseBatch,
  ParseCancelled,
  parseConcurrency,
  type ParseJob,
  type ParseOutcome,
} from "../parse/mod.ts";
import {
  readSource,
  readSourceAt,
  type SourceText,
  Unparsable,
  versionOf,
} from "../source_files.ts";

/** What a parse needs of a file read: its text, not its bytes. */
type Source = Pick<SourceText, "real" | "shown" | "lang" | "text" | "version">;
import { TimeSlice } from "../time_slice.ts";
import { diskStore } from "./_disk_cache.ts";
import { HeldDirectories } from "./_held_directories.ts";
import {
  cached,
  cachedFiles,
  type CachedOutline,
  failedBefore,
  isLastingFailure,
  remember,
  rememberFailure,
  useCache,
} from "./_memory_cache.ts";
import type { FileOutline, Outline, OutlineSymbol } from "./_types.ts";
import { internWords } from "./_words.ts";

export type { FileOutline, Outline, OutlineSymbol } from "./_types.ts";
export { internWords, usesOf, WORDS } from "./_words.ts";
export { flushDiskStores } from "./_disk_cache.ts";

export interface Outlines {
  /** The files parsed or found unchanged, in the order asked for. */
  files: FileOutline[];
  /** Files not parsed, with why (binary, too large, too complex, too slow). */
  skipped: { shown: string; why: string }[];
  /**
   * How many files this call gave the parser, whether it succeeded or not (the others were kept
   * from before, or could not be read).
   */
  parsed: number;
}

export interface OutlineOptions {
  signal: AbortSignal;
  /** Told how many files are done, of how many, and a sentence saying so. */
  progress?: (done: number, total: number, message: string) => void;
  /** The state directory and project whose disk cache to read and update. */
  store?: { stateDir: string; project: string };
}

/** Files in one message to a worker, and text in one. */
const BATCH_FILES = 32;
const BATCH_CHARS = 512 * 1024;
/** Files looked at (stat, read) at once. */
const READERS = 8;
/** The share of the kept files a call must have parsed to write the disk cache before answering. */
const SAVE_BEFORE_ANSWER = 1 / 20;
/** Progress at most this often. */
const PROGRESS_MS = 200;

/** What the map keeps of a symbol. */
function outlineSymbol(symbol: CodeSymbol): OutlineSymbol {
  return {
    name: symbol.name,
    kind: symbol.kind,
    namePath: symbol.namePath,
    line: symbol.line,
    endLine: symbol.endLine,
    signature: symbol.signature,
    member: symbol.parent !== undefined,
    ...(symbol.local ? { local: true as const } : {}),
  };
}

/** A worker's outcome as kept: its symbols, and its words as numbers. */
export function outlineOf(outcome: Exclude<ParseOutcome, { failed: string }>): Outline {
  const identifiers = outcome.identifiers ?? { words: [], counts: [] };
  return {
    symbols: outcome.symbols.map(outlineSymbol),
    ...internWords(identifiers.words, identifiers.counts),
  };
}

const plural = (n: number) => `${n.toLocaleString("en-US")} file${n === 1 ? "" : "s"}`;

/**
 * The outlines of `reals`, in order, with the identifiers each file uses (counted in the same
 * pass, so that a map after a find parses nothing again).
 */
export async function outlinesOf(
  sandbox: Sandbox,
  reals: string[],
  options: OutlineOptions,
): Promise<Outlines> {
  const release = useCache();
  try {
    const store = options.store ? diskStore(options.store.stateDir, options.store.project) : null;
    if (store) {
      options.progress?.(0, reals.length, "reading the parse cache");
      await store.load();
    }
    const outlines = await parseAll(sandbox, reals, options);
    if (store && outlines.parsed > 0) {
      const saving = store.save((real) => sandbox.contains(real));
      // A call that parsed much writes before it answers, so that a client closing at once
      // keeps it; one that parsed a few files of many kept answers first (the write of them all
      // would cost it more than its parse did) and the write follows at once.
      if (outlines.parsed >= cachedFiles() * SAVE_BEFORE_ANSWER) {
        options.progress?.(reals.length, reals.length, "saving the parse cache");
        await saving;
      }
    }
    return outlines;
  } finally {
    release();
  }
}

async function parseAll(
  sandbox: Sandbox,
  reals: string[],
  { signal, progress }: OutlineOptions,
): Promise<Outlines> {
  const results: (FileOutline | undefined)[] = new Array(reals.length);
  const skipped: Outlines["skipped"] = [];
  const slice = new TimeSlice();
  let done = 0;
  let parsed = 0;
  let reported = 0;
  const report = (force = false) => {
    const now = performance.now();
    if (!progress || (!force && now - reported < PROGRESS_MS)) return;
    reported = now;
    progress(
      done,
      reals.length,
      `parsing ${done.toLocaleString("en-US")} of ${plural(reals.length)}`,
    );
  };

  const keep = (index: number, source: Source, outcome: ParseOutcome) => {
    done++;
    parsed++;
    if ("failed" in outcome) {
      skipped.push({ shown: source.shown, why: outcome.failed });
      // What the file holds decides these, not the machine's load: not tried again unchanged.
      if (isLastingFailure(outcome.failed)) {
        rememberFailure(source.real, source.version, outcome.failed);
      }
      return;
    }
    const outline = outlineOf(outcome);
    remember(source.real, { version: source.version, ...outline });
    results[index] = { real: source.real, shown: source.shown, ...outline };
  };

  /** A batch whose worker failed (crashed, too slow) is tried again file by file, once. */
  const parse = async (batch: { index: number; source: Source }[], retry: boolean) => {
    const jobs: ParseJob[] = batch.map(({ source }) => ({
      lang: source.lang,
      text: source.text,
      symbols: true,
      identifiers: true,
    }));
    let outcomes: ParseOutcome[];
    try {
      outcomes = await parseBatch(jobs, signal);
    } catch (error) {
      if (error instanceof ParseCancelled || signal.aborted) throw error;
      if (!retry || batch.length === 1) {
        for (const { index, source } of batch) {
          keep(index, source, { failed: (error as Error).message });
        }
        return;
      }
      await Promise.all(batch.map((one) => parse([one], false)));
      return;
    }
    for (const [i, outcome] of outcomes.entries()) {
      keep(batch[i].index, batch[i].source, outcome);
      if (slice.due()) await slice.pause();
    }
    report();
  };

  const running = new Set<Promise<void>>();
  let failure: unknown;
  let batch: { index: number; source: Source }[] = [];
  let chars = 0;
  /** Starts parsing `taken` once there is room. */
  const send = async (taken: { index: number; source: Source }[]) => {
    // Every worker busy and one batch waiting for each: more would only hold texts in memory.
    while (running.size >= parseConcurrency()) await Promise.race(running);
    const parsing = parse(taken, true).catch((error) => {
      failure ??= error;
    });
    running.add(parsing);
    void parsing.finally(() => running.delete(parsing));
  };
  const flush = async () => {
    if (batch.length === 0) return;
    const taken = batch;
    batch = [];
    chars = 0;
    await send(taken);
  };

  const held = new HeldDirectories(sandbox, reals);
  let heavyTurn = Promise.resolve();
  const look = async (index: number) => {
    const real = reals[index];
    const { dir, name } = await held.of(real);
    try {
      // A file unchanged since it was parsed is not read again.
      const info = HeldDirectories.info(dir, name);
      const known: CachedOutline | undefined = cached(real);
      if (info && known && known.version === versionOf(info)) {
        results[index] = { real, shown: sandbox.display(real), ...known };
        done++;
        return;
      }
      const failed = info && failedBefore(real, versionOf(info));
      if (failed) {
        skipped.push({ shown: sandbox.display(real), why: failed });
        done++;
        return;
      }
      // A large file is read only when the one before it is parsed, and parsed alone: one such
      // text at a time in memory, and one tree at a time in the workers.
      const heavy = info !== undefined && info.size > HEAVY_FILE_CHARS;
      const previous = heavyTurn;
      let endTurn = () => {};
      if (heavy) {
        heavyTurn = new Promise((resolve) => (endTurn = resolve));
        await previous;
      }
      try {
        const source = await read(dir, name, real);
        if (!source) return;
        if (heavy) {
          return await parse([{ index, source }], true).catch((error) => {
            failure ??= error;
          });
        }
        batch.push({ index, source });
        chars += source.text.length;
        if (batch.length >= BATCH_FILES || chars >= BATCH_CHARS) await flush();
      } finally {
        endTurn();
      }
    } finally {
      held.done(real);
    }
  };

  /** The file's text, or undefined when it is not one to parse (said in `skipped`). */
  const read = async (dir: Dir | undefined, name: string, real: string) => {
    const shown = sandbox.display(real);
    try {
      if (dir) return readSourceAt(dir, name, real, shown) as Source;
    } catch (error) {
      if (error instanceof Unparsable) return unreadable(shown, error);
      // Not opened through its directory (gone, a link, not a file): readSource says why.
    }
    try {
      const { lang, text, version } = await readSource(sandbox, real);
      return { real, shown, lang, text, version };
    } catch (error) {
      return unreadable(shown, error);
    }
  };
  const unreadable = (shown: string, error: unknown): undefined => {
    skipped.push({ shown, why: (error as Error).message });
    done++;
    return undefined;
  };

  let next = 0;
  const reader = async () => {
    while (next < reals.length && !signal.aborted && failure === undefined) {
      await look(next++);
      if (slice.due()) {
        report();
        await slice.pause();
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(READERS, reals.length) }, reader));
    if (!signal.aborted && failure === undefined) await flush();
    await Promise.all(running);
  } finally {
    await held.close();
  }
  if (failure !== undefined) throw failure;
  if (signal.aborted) throw new ParseCancelled();
  report(true);
  const files = results.filter((file): file is FileOutline => file !== undefined);
  return { files, skipped, parsed };
}

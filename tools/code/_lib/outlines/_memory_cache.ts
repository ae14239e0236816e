/**
 * Parsed files kept in memory while their inode, size and modification time stay the same (the
 * version): a second map or find reads only what changed. Bounded in files and in weight
 * (symbols plus words, about 100 bytes each); the files kept longest go first.
 */
import type { Outline } from "./_types.ts";
import { MAX_WORDS, WORDS } from "./_words.ts";

export interface CachedOutline extends Outline {
  version: string;
}

/** Files kept at most. */
export const MAX_CACHED_FILES = 50_000;
/** Symbols plus words kept at most. */
const MAX_CACHED_WEIGHT = 2_000_000;

const cache = new Map<string, CachedOutline>();
let weight = 0;
/** Calls using the cache now: the word table is renewed only when none is. */
let users = 0;

function weightOf(entry: CachedOutline): number {
  return entry.symbols.length + entry.words.length;
}

export function cached(real: string): CachedOutline | undefined {
  return cache.get(real);
}

/** How many files are kept. */
export function cachedFiles(): number {
  return cache.size;
}

export function remember(real: string, entry: CachedOutline): void {
  forget(real);
  cache.set(real, entry);
  weight += weightOf(entry);
  while ((weight > MAX_CACHED_WEIGHT || cache.size > MAX_CACHED_FILES) && cache.size > 1) {
    forget(cache.keys().next().value!);
  }
}

export function forget(real: string): void {
  const old = cache.get(real);
  if (!old) return;
  weight -= weightOf(old);
  cache.delete(real);
}

/** Files whose parse failed for what they hold (too complex, nested too deep), at most. */
export const MAX_FAILED_FILES = 10_000;
const failures = new Map<string, { version: string; why: string }>();

/** Parse failures that the file's text decides (parse/bounds.ts's bounds, and the nesting). */
const LASTING_FAILURE = /^(skipped: too complex \(|its brackets nest more than )/;

/** Whether `why` is a failure the file's text decides, not the machine's load. */
export function isLastingFailure(why: string): boolean {
  return why.length <= 300 && LASTING_FAILURE.test(why);
}

/**
 * Remembers that this version of a file failed for what it holds, so that a map repeated does
 * not pay for it again (a hostile file costs its parse's whole bound each time).
 */
export function rememberFailure(real: string, version: string, why: string): void {
  failures.delete(real);
  failures.set(real, { version, why });
  if (failures.size > MAX_FAILED_FILES) failures.delete(failures.keys().next().value!);
}

/** Why this version of the file failed before, if it did. */
export function failedBefore(real: string, version: string): string | undefined {
  const failure = failures.get(real);
  return failure?.version === version ? failure.why : undefined;
}

/** Every remembered failure, oldest first. */
export function failureEntries(): IterableIterator<[string, { version: string; why: string }]> {
  return failures.entries();
}

/** Every kept file, oldest first. */
export function cachedEntries(): IterableIterator<[string, CachedOutline]> {
  return cache.entries();
}

/**
 * Marks a call that uses the cache until `release()`. A word table grown past its bound is
 * renewed first, with the cache (whose numbers name its words), while no call holds them.
 */
export function useCache(): () => void {
  if (users === 0 && WORDS.size > MAX_WORDS) {
    cache.clear();
    weight = 0;
    WORDS.clear();
  }
  users++;
  let released = false;
  return () => {
    if (!released) users--;
    released = true;
  };
}

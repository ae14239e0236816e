/**
 * Walking a directory tree the way search tools need it: depth first, each directory's entries in
 * byte order of their names (the order `rg --sort path` uses, so both searches list alike),
 * ignore rules honoured, and bounded by an entry limit, a deadline and cancellation.
 * Symbolic links are reported but never followed, so a walk cannot leave the directory it started
 * in. Started from a directory opened beneath a root (Sandbox.directory), each directory is listed
 * and entered through its open parent (sandbox/_beneath.ts), so a directory swapped for a link
 * meanwhile is never entered. Listing and entering are synchronous calls (microseconds each, where
 * the event loop's round trips cost more than the calls), and the walk lets the event loop run at
 * least every few milliseconds.
 */
import { setImmediate } from "node:timers";
import { Dir, type EntryType, type ListedKind } from "../sandbox/mod.ts";
import { IgnoreRules, RULE_NAMES } from "./gitignore.ts";

/** Names skipped (files too, like a worktree's .git file) unless ignored files are asked for. */
export const SKIPPED_NAMES = new Set([".git", "node_modules"]);

export interface WalkEntry {
  /** Absolute path. */
  path: string;
  /**
   * Where to open it: an address beneath the open directory that holds it (sandbox/_beneath.ts),
   * valid until the walk goes on (open it before asking for the next entry).
   */
  at: string;
  /** Path from the start, "/"-separated. */
  rel: string;
  kind: EntryType;
  /** The open directory holding it, where `at` is valid (see WalkOptions.release). */
  dir: Dir;
}

export interface WalkOptions {
  /** Skip ignored entries and SKIPPED_NAMES (true), or walk everything. */
  respectIgnores: boolean;
  /**
   * The rules the start's parent directories hold for it (IgnoreRules.above); by default none,
   * and ignore files met are never read through symbolic links.
   */
  rules?: IgnoreRules;
  /**
   * Whether to walk into a directory (its own depth: 1 for the start's entries); default: always.
   */
  enter?: (rel: string, depth: number) => boolean;
  /**
   * Which entries the caller wants (default: all): the others are counted but not reported, and
   * not tested against the ignore rules. Directories are still entered (see `enter`).
   */
  wanted?: (rel: string, kind: EntryType, name: string) => boolean;
  maxEntries: number;
  /**
   * Called with each entry the ignore rules (or SKIPPED_NAMES) leave out, where it is (not
   * entered): for a caller that says when an ignored entry changed.
   */
  ignored?: (entry: WalkEntry) => void;
  /**
   * Called with each directory the walk is done with, instead of closing it: the caller closes
   * it once nothing it handed on still uses the addresses of its entries.
   */
  release?: (dir: Dir) => void;
  /** Date.now() after which the walk stops. */
  deadline: number;
  signal?: AbortSignal;
}

export type StopReason = "entry limit" | "time limit" | "cancelled";

export function kindOf(entry: ListedKind): EntryType {
  if (entry.isSymbolicLink()) return "symlink";
  if (entry.isDirectory()) return "directory";
  return entry.isFile() ? "file" : "other";
}

const encoder = new TextEncoder();

/** Where UTF-16 order (JavaScript's) can differ from UTF-8 byte order: surrogates and above. */
const BEYOND_UTF16_ORDER = /[\ud800-\uffff]/;

/** The event loop gets a turn at least this often during a walk. */
const TURN_MS = 4;

/** Names in the byte order of their UTF-8 encoding, as ripgrep sorts them. */
export function byName<T extends { name: string }>(entries: T[]): T[] {
  // Below U+D800 code unit order is code point order, which is UTF-8 byte order.
  if (!entries.some((entry) => BEYOND_UTF16_ORDER.test(entry.name))) {
    return entries.slice().sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
  const keyed = entries.map((entry) => ({ entry, key: encoder.encode(entry.name) }));
  keyed.sort((a, b) => compareBytes(a.key, b.key));
  return keyed.map((k) => k.entry);
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/** Of a directory's entries, those IgnoreRules.within looks for (a Set of every name costs more). */
function ruleNames(listing: ListedKind[]): Set<string> {
  const names = new Set<string>();
  for (const { name } of listing) if (RULE_NAMES.has(name)) names.add(name);
  return names;
}

/** A directory being walked: its entries in order and the next one to look at. */
interface Level {
  dir: Dir;
  /** Its path from the start ("" for the start). */
  rel: string;
  /** 1 for the start. */
  depth: number;
  rules: IgnoreRules;
  /** Its path with a trailing slash. */
  base: string;
  entries: ListedKind[];
  next: number;
}

export class Walk {
  /** Entries looked at so far. */
  seen = 0;
  /** Why the walk ended before the whole tree was seen, if it did. */
  stopped: StopReason | undefined;
  /** When the event loop last had a turn. */
  #turn = Date.now();

  constructor(readonly options: WalkOptions) {}

  /**
   * Every entry under `start` that is not ignored, in order: a path (walked by path), or a
   * directory opened beneath its root (walked beneath it; the caller closes it).
   */
  async *entries(start: string | Dir): AsyncGenerator<WalkEntry> {
    for await (const batch of this.batches(start)) yield* batch;
  }

  /**
   * entries() a run at a time: the entries met until the walk next enters or leaves a directory
   * (so every `at` in a run is still valid while it is handled). A walk of thousands of entries
   * then costs an await per run rather than one per entry. One generator with a stack of open
   * directories.
   */
  async *batches(start: string | Dir): AsyncGenerator<WalkEntry[]> {
    const { respectIgnores, enter, wanted } = this.options;
    const stack: Level[] = [];
    let batch: WalkEntry[] = [];
    try {
      const top = await this.#open(
        typeof start === "string" ? Dir.named(start) : start,
        "",
        1,
        this.options.rules ?? IgnoreRules.empty(),
      );
      if (top) stack.push(top);
      while (stack.length > 0) {
        const level = stack[stack.length - 1];
        if (level.next >= level.entries.length) {
          if (batch.length > 0) {
            yield batch;
            batch = [];
          }
          stack.pop();
          if (level.depth > 1) await this.#done(level.dir);
          continue;
        }
        const entry = level.entries[level.next++];
        // One clock reading per entry serves both the deadline and the event loop's turn.
        const now = Date.now();
        if (this.#mustStop(now)) break;
        if (now - this.#turn >= TURN_MS) {
          if (batch.length > 0) {
            yield batch;
            batch = [];
          }
          await new Promise((resolve) => setImmediate(resolve));
          this.#turn = Date.now();
          if (this.#mustStop(this.#turn)) break;
        }
        this.seen++;
        const kind = kindOf(entry);
        const entryRel = level.rel === "" ? entry.name : `${level.rel}/${entry.name}`;
        const into = kind === "directory" && (enter?.(entryRel, level.depth) ?? true);
        // What the caller will drop anyway is not judged by the ignore rules (the dearer test).
        const want = wanted?.(entryRel, kind, entry.name) ?? true;
        if (!into && !want) continue;
        const { dir } = level;
        if (respectIgnores) {
          if (
            SKIPPED_NAMES.has(entry.name) || level.rules.ignores(entryRel, kind === "directory")
          ) {
            const at = this.options.ignored ? dir.at(entry.name) : "";
            this.options.ignored?.({ path: level.base + entry.name, at, rel: entryRel, kind, dir });
            continue;
          }
        }
        if (want) {
          batch.push({
            path: level.base + entry.name,
            at: dir.at(entry.name),
            rel: entryRel,
            kind,
            dir,
          });
        }
        if (into) {
          if (batch.length > 0) {
            yield batch;
            batch = [];
          }
          // Entered without following a link: one swapped in since the listing is not entered.
          const child = dir.childSync(entry.name);
          if (!child) continue;
          const below = await this.#open(child, entryRel, level.depth + 1, level.rules);
          if (below) stack.push(below);
          else await this.#done(child);
        }
      }
      if (batch.length > 0) yield batch;
    } finally {
      // Stopped early: the directories still open, innermost first (the start is the caller's).
      for (const level of stack.reverse()) if (level.depth > 1) await this.#done(level.dir);
    }
  }

  /** A directory's sorted entries and rules, or undefined when it cannot be listed (any more). */
  async #open(
    dir: Dir,
    rel: string,
    depth: number,
    parentRules: IgnoreRules,
  ): Promise<Level | undefined> {
    let listing: ListedKind[];
    try {
      listing = dir.entriesSync();
    } catch {
      return undefined; // unreadable or gone since it was listed: nothing to report under it
    }
    const rules = this.options.respectIgnores
      ? await parentRules.within(dir.path, rel, ruleNames(listing), (name) => dir.at(name))
      : parentRules;
    // dir.pathOf, without normalizing each time: dir.path is a normalized absolute path.
    const base = dir.path.endsWith("/") ? dir.path : `${dir.path}/`;
    return { dir, rel, depth, rules, base, entries: byName(listing), next: 0 };
  }

  /** A directory the walk is done with: released to the caller, or closed. */
  async #done(dir: Dir): Promise<void> {
    if (this.options.release) this.options.release(dir);
    else await dir.close();
  }

  #mustStop(now: number): boolean {
    if (this.stopped) return true;
    const { signal, maxEntries, deadline } = this.options;
    if (signal?.aborted) this.stopped = "cancelled";
    else if (this.seen >= maxEntries) this.stopped = "entry limit";
    else if (now > deadline) this.stopped = "time limit";
    return this.stopped !== undefined;
  }
}

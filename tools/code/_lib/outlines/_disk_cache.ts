/**
 * Parsed files kept on disk, so that a new session's map is warm: one file per project in
 * toolhost's state directory (`projects/<root>-<digest>/parse-cache.jsonl`), a header line then
 * one JSON line per source file with its version (inode, size, modification time), outline and
 * identifiers, or why it failed when its text decided it (too complex: not tried again). An entry
 * counts only while the file's version is the same, as in memory.
 *
 * The cache is read as untrusted input (another program may have written or cut it short): at
 * most MAX_CACHE_BYTES, line by line with each line bounded, every entry's shape and bounds
 * checked before it is used; a line that fails is skipped, a file that fails its header is
 * ignored (and replaced at the next save). It is written atomically (a temporary file renamed
 * over it), in slices between which other requests are answered, by the call that parsed
 * something before it answers: a client that closes at once (or a server killed) still leaves it.
 */
import { join } from "node:path";
import { projectStateDir } from "../../../_lib/state.ts";
import { replaceOwnFile } from "../../../_lib/transaction/mod.ts";
import { openByPath } from "../../../_lib/sandbox/mod.ts";
import { MAX_SYMBOLS_PER_FILE, MAX_WORDS_PER_FILE } from "../parse/mod.ts";
import { TimeSlice } from "../time_slice.ts";
import type { OutlineSymbol } from "./_types.ts";
import {
  cached,
  cachedEntries,
  type CachedOutline,
  failedBefore,
  failureEntries,
  isLastingFailure,
  MAX_CACHED_FILES,
  MAX_FAILED_FILES,
  remember,
  rememberFailure,
} from "./_memory_cache.ts";
import { internWords, WORDS } from "./_words.ts";

/** The cache's file in the project's state directory. */
export const CACHE_FILE = "parse-cache.jsonl";
/** Read and written at most: past it, the files kept longest are left out. */
export const MAX_CACHE_BYTES = 64 * 1024 * 1024;
/** One file's line at most. */
const MAX_LINE_CHARS = 4 * 1024 * 1024;
const HEADER = JSON.stringify({ format: "toolhost parse cache", version: 2 });
const READ_CHUNK = 1024 * 1024;

/** What one line holds: path, version, symbols, words, counts. */
type Line = [string, string, SymbolLine[], string[], number[]];
/** A file whose text failed the parse's bounds: path, version, why. */
type FailureLine = [string, string, string];
/** name, kind, namePath, line, endLine, signature, member (1) or not (0). */
type SymbolLine = [string, string, string, number, number, string, number, number];

const isText = (value: unknown, max: number, min = 0): value is string =>
  typeof value === "string" && value.length >= min && value.length <= max;
const isCount = (value: unknown, min: number, max: number): value is number =>
  Number.isSafeInteger(value) && (value as number) >= min && (value as number) <= max;

function checkedSymbol(value: unknown): OutlineSymbol | undefined {
  if (!Array.isArray(value) || value.length !== 8) return undefined;
  const [name, kind, namePath, line, endLine, signature, member, local] = value;
  if (!isText(name, 1_000, 1) || !isText(kind, 32, 1) || !isText(namePath, 4_000, 1)) return;
  if (!isCount(line, 1, 1e8) || !isCount(endLine, line, 1e8)) return;
  if (!isText(signature, 200) || (member !== 0 && member !== 1)) return;
  if (local !== 0 && local !== 1) return;
  const symbol: OutlineSymbol = {
    name,
    kind,
    namePath,
    line,
    endLine,
    signature,
    member: member === 1,
  };
  if (local === 1) symbol.local = true;
  return symbol;
}

const isPath = (value: unknown): value is string =>
  isText(value, 4_096, 2) && value.startsWith("/") && !value.includes("\0");
const isVersion = (value: unknown): value is string =>
  isText(value, 64, 5) && /^\d+:\d+:\d+(\.\d+)?$/.test(value);

/** One line's entry when every part of it has the shape and bounds this module writes. */
export function checkedLine(
  text: string,
): [string, CachedOutline] | { failed: FailureLine } | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (Array.isArray(value) && value.length === 3) {
    const [real, version, why] = value;
    if (!isPath(real) || !isVersion(version) || typeof why !== "string") return;
    return isLastingFailure(why) ? { failed: [real, version, why] } : undefined;
  }
  if (!Array.isArray(value) || value.length !== 5) return undefined;
  const [real, version, symbolLines, words, counts] = value;
  if (!isPath(real) || !isVersion(version)) return;
  if (!Array.isArray(symbolLines) || symbolLines.length > MAX_SYMBOLS_PER_FILE) return;
  if (!Array.isArray(words) || !Array.isArray(counts) || words.length !== counts.length) return;
  if (words.length > MAX_WORDS_PER_FILE) return;
  const symbols: OutlineSymbol[] = [];
  for (const line of symbolLines) {
    const symbol = checkedSymbol(line);
    if (!symbol) return undefined;
    symbols.push(symbol);
  }
  const seen = new Set<string>();
  for (const [i, word] of words.entries()) {
    if (!isText(word, 100, 2) || seen.has(word) || !isCount(counts[i], 1, 1e8)) return undefined;
    seen.add(word);
  }
  return [real, { version, symbols, ...internWords(words, counts) }];
}

function lineOf(real: string, entry: CachedOutline): string {
  const symbols: SymbolLine[] = entry.symbols.map((s) => [
    s.name,
    s.kind,
    s.namePath,
    s.line,
    s.endLine,
    s.signature,
    s.member ? 1 : 0,
    s.local ? 1 : 0,
  ]);
  const words = Array.from(entry.words, (id) => WORDS.word(id));
  const line: Line = [real, entry.version, symbols, words, Array.from(entry.counts)];
  return JSON.stringify(line);
}

/** Reads `path` into the memory cache (what memory holds already stays): how many were taken. */
async function load(path: string): Promise<{ taken: number; refused: number }> {
  let handle;
  try {
    // Without following a link and without blocking on a FIFO put in its place.
    handle = await openByPath(path);
  } catch {
    return { taken: 0, refused: 0 }; // none yet, or not one this module made
  }
  let taken = 0;
  let refused = 0;
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_CACHE_BYTES) return { taken, refused: 1 };
    const slice = new TimeSlice();
    const decoder = new TextDecoder();
    const buffer = new Uint8Array(READ_CHUNK);
    let rest = "";
    let header = true;
    let total = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, null);
      total += bytesRead;
      // A file that grows while it is read is read no further than the bound.
      if (bytesRead === 0 || total > MAX_CACHE_BYTES) break;
      rest += decoder.decode(buffer.subarray(0, bytesRead), { stream: true });
      let start = 0;
      for (let end = rest.indexOf("\n"); end >= 0; end = rest.indexOf("\n", start)) {
        const text = rest.slice(start, end);
        start = end + 1;
        if (header) {
          if (text !== HEADER) return { taken, refused: 1 };
          header = false;
          continue;
        }
        const entry = checkedLine(text);
        if (!entry) refused++;
        else if ("failed" in entry) {
          const [real, version, why] = entry.failed;
          if (!failedBefore(real, version) && taken < MAX_CACHED_FILES) {
            rememberFailure(real, version, why);
            taken++;
          }
        } else if (!cached(entry[0]) && taken < MAX_CACHED_FILES) {
          remember(entry[0], entry[1]);
          taken++;
        }
        if (slice.due()) await slice.pause();
      }
      rest = rest.slice(start);
      if (rest.length > MAX_LINE_CHARS) return { taken, refused: refused + 1 };
    }
  } finally {
    await handle.close();
  }
  return { taken, refused };
}

/** The lines of the kept files `keep` accepts, as bytes in chunks, written between slices. */
async function* linesOf(keep: (real: string) => boolean): AsyncGenerator<Uint8Array> {
  const encoder = new TextEncoder();
  const slice = new TimeSlice();
  // Newest first, so that the bounds leave out the files kept longest.
  const entries = [...cachedEntries()].reverse();
  let chunk = `${HEADER}\n`;
  let bytes = 0;
  let files = 0;
  for (const [real, entry] of entries) {
    if (!keep(real)) continue;
    const line = `${lineOf(real, entry)}\n`;
    if (line.length > MAX_LINE_CHARS || bytes + chunk.length + line.length > MAX_CACHE_BYTES) {
      continue;
    }
    chunk += line;
    if (++files >= MAX_CACHED_FILES) break;
    if (chunk.length >= 64 * 1024) {
      bytes += chunk.length;
      yield encoder.encode(chunk);
      chunk = "";
    }
    if (slice.due()) await slice.pause();
  }
  // Then the files whose text failed the bounds, newest first, as many as memory keeps.
  let failed = 0;
  for (const [real, { version, why }] of [...failureEntries()].reverse()) {
    if (!keep(real) || ++failed > MAX_FAILED_FILES) continue;
    const failure: FailureLine = [real, version, why];
    const line = `${JSON.stringify(failure)}\n`;
    if (bytes + chunk.length + line.length > MAX_CACHE_BYTES) break;
    chunk += line;
  }
  if (chunk) yield encoder.encode(chunk);
}

/** One project's cache file: read once per process, written by each call that changed it. */
class DiskStore {
  #loading?: Promise<unknown>;
  #pending = false;
  #saving?: Promise<void>;
  #keep: (real: string) => boolean = () => false;

  constructor(readonly stateDir: string, readonly project: string) {}

  async #path(): Promise<string> {
    return join(await projectStateDir(this.stateDir, this.project), CACHE_FILE);
  }

  /** Reads the file into memory, the first time it is asked (a failure leaves it unread). */
  load(): Promise<unknown> {
    this.#loading ??= this.#path().then(load, () => undefined);
    return this.#loading;
  }

  /**
   * Writes the kept files that `keep` accepts (those under the roots); resolves once written, or
   * given up. Calls at once write one after the other, a call waiting for a write under way
   * writing what changed meanwhile.
   */
  save(keep: (real: string) => boolean): Promise<void> {
    this.#keep = keep;
    this.#pending = true;
    return this.flush();
  }

  /** Writes now what waits to be written; resolves when it is (a failure is given up). */
  async flush(): Promise<void> {
    if (!this.#pending) return await this.#saving;
    this.#pending = false;
    // One write at a time; the one after it takes what changed meanwhile.
    const before = this.#saving;
    const saving = (async () => {
      await before;
      await replaceOwnFile(await this.#path(), linesOf(this.#keep));
    })().catch(() => {
      // A cache that cannot be written is a cold start next time, nothing worse.
    });
    this.#saving = saving;
    await saving;
    if (this.#saving === saving) this.#saving = undefined;
  }
}

const stores = new Map<string, DiskStore>();

/** The store of the project whose first root is `project`. */
export function diskStore(stateDir: string, project: string): DiskStore {
  const key = `${stateDir}\0${project}`;
  let store = stores.get(key);
  if (!store) {
    store = new DiskStore(stateDir, project);
    stores.set(key, store);
  }
  return store;
}

/** Finishes every store's write under way (the server is stopping). */
export async function flushDiskStores(): Promise<void> {
  await Promise.all([...stores.values()].map((store) => store.flush()));
}

export type { DiskStore };

/**
 * Changes made outside toolhost to a project a language server runs for, sent to it as
 * `workspace/didChangeWatchedFiles`: the files its registered watchers ask for (globs, kinds), or,
 * where it registered none, its language's files and project markers. Pyright, gopls,
 * rust-analyzer and `tsc --lsp` watch nothing themselves: without this, a file changed by an
 * editor that no query had opened was never seen by them. Bursts (a `git checkout`) go as one
 * notification a debounce later, or before the next query (drain), whichever is first.
 */
import { lstatSync, readdirSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import picomatch from "picomatch";
import { uriOf } from "./_uris.ts";
import { fence, holdFence, releaseFence } from "./_watch_fence.ts";
import { type Seen, WatchedDirs } from "./_watched_dirs.ts";

/** LSP's FileChangeType: created, changed, deleted. */
export type ChangeType = 1 | 2 | 3;
export interface FileEvent {
  uri: string;
  type: ChangeType;
}

/** A registered watcher: a glob (or a glob relative to a base) and the kinds (1|2|4) it wants. */
interface Watcher {
  globPattern: string | { baseUri: string | { uri: string }; pattern: string };
  kind?: number;
}

/** Quiet time after the last event before a batch is sent, and the longest a batch waits. */
const DEBOUNCE_MS = 100;
const BATCH_MAX_WAIT_MS = 1000;
/** Paths held at most between two sends (a checkout of more: the rest are dropped, and said). */
const MAX_PENDING = 20_000;
/** Changes in one notification at most. */
const PER_NOTIFICATION = 5000;
/** Files of a directory that appeared reported as created at most (its watch came after them). */
const NEW_DIR_FILES = 2000;

interface Matcher {
  test: (path: string) => boolean;
  /** LSP WatchKind bits: 1 create, 2 change, 4 delete. */
  kind: number;
}

export class ProjectWatcher {
  readonly #dirs: WatchedDirs;
  #pending = new Map<string, boolean>();
  #overflow = false;
  #quiet: ReturnType<typeof setTimeout> | undefined;
  #longest: ReturnType<typeof setTimeout> | undefined;
  #registered = new Map<string, Matcher[]>();
  #closed = false;
  /** The walk that watches the project's directories, once begun. */
  ready: Promise<void> | undefined;

  /**
   * @example
   * ```ts
   * const watcher = new ProjectWatcher(root, (p) => p.endsWith(".py"), sendChanges, log);
   * watcher.start();
   * await watcher.drain(); // before a request: what changed outside is sent first
   * ```
   */
  constructor(
    readonly root: string,
    private readonly fallback: (path: string) => boolean,
    private readonly send: (changes: FileEvent[]) => void,
    private readonly log: (message: string) => void,
  ) {
    this.#dirs = new WatchedDirs(root, (seen) => this.#seen(seen), log);
    holdFence();
  }

  /** Begins watching (the directories are found by a walk, in the background). */
  start(): void {
    this.ready ??= this.#dirs.add(this.root).then(() => {}, (error) => {
      this.log(`watching ${this.root} failed: ${(error as Error).message}`);
    });
  }

  /** How many directories are watched. */
  get watched(): number {
    return this.#dirs.count;
  }

  /** A `client/registerCapability` registration for workspace/didChangeWatchedFiles. */
  register(id: string, watchers: unknown): void {
    if (!Array.isArray(watchers)) return;
    const matchers: Matcher[] = [];
    for (const watcher of watchers as Watcher[]) {
      const matcher = this.#matcher(watcher);
      if (matcher) matchers.push(matcher);
    }
    this.#registered.set(id, matchers);
  }

  unregister(id: string): void {
    this.#registered.delete(id);
  }

  /** Sends what changed until now: the watch events not yet delivered are had first. */
  async drain(): Promise<void> {
    if (this.#closed) return;
    await fence();
    await this.#flush();
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    clearTimeout(this.#quiet);
    clearTimeout(this.#longest);
    this.#pending.clear();
    this.#dirs.close();
    releaseFence();
  }

  #seen({ path, renamed }: Seen): void {
    if (this.#closed) return;
    if (!this.#pending.has(path) && this.#pending.size >= MAX_PENDING) {
      if (!this.#overflow) {
        this.log(
          `more than ${MAX_PENDING} files of ${this.root} changed at once outside toolhost; ` +
            "the server is told of the first ones",
        );
      }
      this.#overflow = true;
      return;
    }
    this.#pending.set(path, (this.#pending.get(path) ?? false) || renamed);
    clearTimeout(this.#quiet);
    this.#quiet = setTimeout(() => void this.#flush(), DEBOUNCE_MS);
    this.#longest ??= setTimeout(() => void this.#flush(), BATCH_MAX_WAIT_MS);
  }

  async #flush(): Promise<void> {
    clearTimeout(this.#quiet);
    clearTimeout(this.#longest);
    this.#quiet = this.#longest = undefined;
    this.#overflow = false;
    if (this.#pending.size === 0 || this.#closed) return;
    const pending = this.#pending;
    this.#pending = new Map();
    const changes: FileEvent[] = [];
    for (const [path, renamed] of pending) {
      let info;
      try {
        info = lstatSync(path);
      } catch {
        info = undefined;
      }
      if (!info) {
        const wasDir = this.#dirs.has(path);
        if (wasDir) this.#dirs.drop(path);
        if (wasDir || this.#wanted(path, 3)) changes.push({ uri: uriOf(path), type: 3 });
      } else if (info.isDirectory()) {
        if (renamed && !this.#dirs.has(path)) {
          for (const dir of await this.#dirs.add(path)) changes.push(...this.#filesIn(dir));
        }
      } else if (info.isFile()) {
        const type: ChangeType = renamed ? 1 : 2;
        if (this.#wanted(path, type)) changes.push({ uri: uriOf(path), type });
      }
    }
    for (let at = 0; at < changes.length; at += PER_NOTIFICATION) {
      this.send(changes.slice(at, at + PER_NOTIFICATION));
    }
  }

  /** The files of a directory watched only now, as created (they may predate its watch). */
  #filesIn(dir: string): FileEvent[] {
    const found: FileEvent[] = [];
    try {
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (found.length >= NEW_DIR_FILES) break;
        const path = join(dir, entry.name);
        if (entry.isFile() && this.#wanted(path, 1)) found.push({ uri: uriOf(path), type: 1 });
      }
    } catch {
      // gone again
    }
    return found;
  }

  #wanted(path: string, type: ChangeType): boolean {
    if (this.#registered.size === 0) return this.fallback(path);
    const bit = type === 1 ? 1 : type === 2 ? 2 : 4;
    for (const matchers of this.#registered.values()) {
      for (const matcher of matchers) {
        if ((matcher.kind & bit) !== 0 && matcher.test(path)) return true;
      }
    }
    return false;
  }

  #matcher(watcher: Watcher): Matcher | undefined {
    const kind = typeof watcher?.kind === "number" ? watcher.kind : 7;
    const glob = watcher?.globPattern;
    const options = { dot: true };
    if (typeof glob === "string") {
      const match = picomatch(glob, options);
      // A relative glob is the workspace's; an absolute one names the path.
      return { kind, test: (path) => match(path) || match(relative(this.root, path)) };
    }
    if (glob && typeof glob === "object" && typeof glob.pattern === "string") {
      const base = typeof glob.baseUri === "string" ? glob.baseUri : glob.baseUri?.uri;
      if (typeof base !== "string") return undefined;
      let basePath: string;
      try {
        basePath = fileURLToPath(base);
      } catch {
        return undefined;
      }
      const match = picomatch(glob.pattern, options);
      return {
        kind,
        test: (path) => {
          const rel = relative(basePath, path);
          return !rel.startsWith("..") && match(rel);
        },
      };
    }
    return undefined;
  }
}

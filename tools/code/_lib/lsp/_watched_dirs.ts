/**
 * A project's directories watched for changes made outside toolhost (an editor, `git checkout`),
 * one non-recursive watch per directory (inotify through fs.watch; a recursive watch would also
 * enter node_modules, .git and target). The directories are those the map walks (gitignored ones,
 * .git, node_modules and target left out), at most MAX_WATCHED_DIRS; new ones are watched as they
 * appear, removed ones dropped. What changed is collected as paths, for the caller to take.
 */
import { type FSWatcher, lstatSync, watch } from "node:fs";
import { join } from "node:path";
import { Walk } from "../../../_lib/walk/walk.ts";
import { IgnoreRules } from "../../../_lib/walk/gitignore.ts";
import { isWithin } from "../../../_lib/sandbox/mod.ts";

/** Directories of one project watched at most; past it, the rest are not (the log says so). */
export const MAX_WATCHED_DIRS = 4000;
/** Build output as large as node_modules, skipped as the map's users expect (Cargo's target). */
const SKIPPED_DIRS = new Set(["target"]);
/** Entries looked at and time spent at most by a walk for directories. */
const WALK_ENTRIES = 400_000;
const WALK_MS = 20_000;

/** A path that changed: "rename" (appeared or went) or "change" (written). */
export interface Seen {
  path: string;
  renamed: boolean;
}

export class WatchedDirs {
  #watchers = new Map<string, FSWatcher>();
  #closed = false;
  /** Why no more directories are watched (cap, inotify limit), once that happened. */
  full: string | undefined;

  constructor(
    readonly root: string,
    private readonly onSeen: (seen: Seen) => void,
    private readonly log: (message: string) => void,
  ) {}

  get count(): number {
    return this.#watchers.size;
  }

  /** Watches `dir` and the directories below it that the map would walk; returns their paths. */
  async add(dir: string): Promise<string[]> {
    const added: string[] = [];
    if (!this.#watch(dir)) return added;
    added.push(dir);
    const walk = new Walk({
      respectIgnores: true,
      rules: IgnoreRules.empty((real) => isWithin(this.root, real)),
      enter: (rel) => !SKIPPED_DIRS.has(rel.slice(rel.lastIndexOf("/") + 1)),
      wanted: (_rel, kind, name) => kind === "directory" && !SKIPPED_DIRS.has(name),
      maxEntries: WALK_ENTRIES,
      deadline: Date.now() + WALK_MS,
    });
    for await (const entry of walk.entries(dir)) {
      if (this.#closed || this.full) break;
      if (this.#watch(entry.path)) added.push(entry.path);
    }
    return added;
  }

  /** Stops watching `dir` and everything below it (it was removed or renamed). */
  drop(dir: string): void {
    for (const [path, watcher] of this.#watchers) {
      if (path === dir || isWithin(dir, path)) {
        watcher.close();
        this.#watchers.delete(path);
      }
    }
  }

  has(dir: string): boolean {
    return this.#watchers.has(dir);
  }

  close(): void {
    this.#closed = true;
    for (const watcher of this.#watchers.values()) watcher.close();
    this.#watchers.clear();
  }

  #watch(dir: string): boolean {
    if (this.#closed || this.full || this.#watchers.has(dir)) return false;
    if (this.#watchers.size >= MAX_WATCHED_DIRS) {
      this.#stop(`the project has more than ${MAX_WATCHED_DIRS} directories to watch`);
      return false;
    }
    try {
      if (!lstatSync(dir).isDirectory()) return false;
      const watcher = watch(dir, { persistent: false }, (event, name) => {
        if (typeof name === "string" && name !== "") {
          this.onSeen({ path: join(dir, name), renamed: event === "rename" });
        }
      });
      // A directory removed under its watch: dropped (its parent's watch says it went).
      watcher.on("error", () => this.drop(dir));
      this.#watchers.set(dir, watcher);
      return true;
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR" || code === "EACCES") return false;
      // ENOSPC (the system's inotify watches used up), EMFILE: stop here, never take more.
      this.#stop(`watching ${dir} failed (${code ?? (error as Error).message})`);
      return false;
    }
  }

  #stop(why: string): void {
    this.full = why;
    this.log(
      `${why}: ${this.#watchers.size} directories of ${this.root} are watched for changes made ` +
        "outside toolhost, the others are not (the server sees changes there once a query opens " +
        "the file, or a toolhost tool or command changes it)",
    );
  }
}

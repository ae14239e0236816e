/**
 * One fs.watch per directory, however many watches (and paths) lead to it, made so that it
 * behaves the same under Bun, Node and Deno. Deno keeps all of a process's watches in one
 * inotify instance, which shows in two ways this module works around:
 * - two watches of one directory by different paths (the state directory through a symlink and
 *   by its real path) share one watch descriptor, and closing either silences both: so watches
 *   are shared by the directory's identity;
 * - a path watched again just after its watch was closed (the directory was replaced) is still
 *   watched on the old directory until the close has gone through: so such a watch starts a
 *   moment later, and tells its listeners that anything may have changed meanwhile.
 */
import { type FSWatcher, watch } from "node:fs";
import { basename } from "node:path";

/** What one watch of a directory hears. */
export interface Listener {
  /**
   * An entry changed: its name, or undefined when the platform gave none (or the watch started
   * late); `itself` when the name is the watched directory's own (it may be gone).
   */
  event(entry: string | undefined, itself: boolean): void;
  /** The fs.watch failed or was given up (its directory replaced) and is gone. */
  lost(): void;
}

interface Shared {
  path: string;
  listeners: Set<Listener>;
  watcher?: FSWatcher;
  /** While the fs.watch waits for a close of its path to go through. */
  timer?: ReturnType<typeof setTimeout>;
}

/** Shared watches by the identity (`dev:ino`) of their directory. */
const shared = new Map<string, Shared>();

/** How long after its watch closed a path is watched again; Deno needs a turn of its loop. */
const REOPEN_MS = 50;
/** When the watch of each path closed, for the last REOPEN_MS. */
const closedAt = new Map<string, number>();

/**
 * Starts hearing `dir`, whose identity is `id`; returns what stops that, or undefined when no
 * fs.watch can be had (the directory went, or the system has no watches left).
 */
export function listen(id: string, dir: string, listener: Listener): (() => void) | undefined {
  let entry = shared.get(id);
  if (!entry) {
    // A watch of this path that has another identity watches a directory since replaced.
    for (const [other, stale] of shared) {
      if (stale.path === dir) drop(other, stale, true);
    }
    entry = { path: dir, listeners: new Set() };
    const wait = REOPEN_MS - (Date.now() - (closedAt.get(dir) ?? -Infinity));
    if (wait > 0) {
      const late = entry;
      late.timer = setTimeout(() => start(id, late, true), wait);
      (late.timer as { unref?: () => void }).unref?.();
    } else if (!start(id, entry, false)) {
      return undefined;
    }
    shared.set(id, entry);
  }
  const joined = entry;
  joined.listeners.add(listener);
  return () => {
    if (joined.listeners.delete(listener) && joined.listeners.size === 0) drop(id, joined, false);
  };
}

/** Starts the entry's fs.watch; false (the entry dropped) when there is none to be had. */
function start(id: string, entry: Shared, late: boolean): boolean {
  entry.timer = undefined;
  const self = basename(entry.path);
  let watcher: FSWatcher;
  try {
    watcher = watch(entry.path, { persistent: false }, (_event, name) => {
      const item = name === null || name === undefined ? undefined : String(name);
      for (const each of [...entry.listeners]) each.event(item, item === self);
    });
  } catch {
    // ENOENT (removed meanwhile) or no watch to be had (ENOSPC: no inotify watches left).
    drop(id, entry, true);
    return false;
  }
  // Deno reports a missing directory here, after watch() returned.
  watcher.on("error", () => drop(id, entry, true));
  // `persistent: false` is ignored by some runtimes (Deno); unref() is honoured by all.
  watcher.unref?.();
  entry.watcher = watcher;
  if (late) {
    for (const each of [...entry.listeners]) each.event(undefined, false);
  }
  return true;
}

/** Stops the entry's fs.watch; `lost`: its listeners did not ask for that and are told. */
function drop(id: string, entry: Shared, lost: boolean): void {
  if (shared.get(id) === entry) shared.delete(id);
  clearTimeout(entry.timer);
  entry.timer = undefined;
  const watcher = entry.watcher;
  entry.watcher = undefined;
  if (watcher) {
    try {
      watcher.close();
    } catch {
      // Already closed by its own error.
    }
    const now = Date.now();
    for (const [path, at] of closedAt) {
      if (now - at >= REOPEN_MS) closedAt.delete(path);
    }
    closedAt.set(entry.path, now);
  }
  const listeners = [...entry.listeners];
  entry.listeners.clear();
  if (lost) { for (const each of listeners) each.lost(); }
}

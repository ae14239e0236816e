/**
 * Noticing changes on disk for change notifications: a directory's entries by name (which
 * survives files replaced by rename, as every atomic write does, where a watch on the file
 * would follow the old inode), a directory that may not exist yet or may be replaced, and the
 * bookkeeping of watches whose setup must await something (the client's roots).
 *
 * Nothing here keeps the process alive (watchers and timers are unref'd) or throws once set up.
 */
import { type Stats, statSync } from "node:fs";
import { stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import type { Unwatch, WatchContext } from "../../../mcp/features/mod.ts";
import { listen, type Listener } from "./fs_watchers.ts";

export const WATCH_LIMITS = {
  /**
   * How often a watched directory is checked for appearing, going away or being replaced. A
   * missing directory is polled rather than watched through its nearest existing parent: that
   * parent is often the home directory, which on macOS (FSEvents watches whole trees) would
   * mean hearing of every change under it. A stat per directory every 2 s costs nothing, and a
   * directory that is created (the first task list of a project, the first skill) is noticed
   * soon enough for a person to see it.
   */
  pollMs: 2_000,
};

/** `changed` as a callback that never throws: a watch must outlive one that does. */
export function safely(changed: () => void): () => void {
  return () => {
    try {
      changed();
    } catch {
      // The server's callback does not throw; nothing here may break for one that does.
    }
  };
}

/**
 * Runs `task` now, or once more after the run in progress when asked meanwhile: bursts of
 * events become at most two runs, and runs never overlap. The promise resolves when a run that
 * started after the call has ended.
 */
export function serially(
  task: () => Promise<void>,
  failed: (error: unknown) => void,
): () => Promise<void> {
  let tail = Promise.resolve();
  let queued: Promise<void> | undefined;
  const run = () => {
    queued = undefined;
    return task().catch((error) => {
      try {
        failed(error);
      } catch {
        // Reporting a failure must not fail the watch.
      }
    });
  };
  return () => {
    if (!queued) tail = queued = tail.then(run);
    return queued;
  };
}

/**
 * The directory's identity, or "" when there is no directory there. A directory removed and
 * made again often gets the same inode number back; its birth time tells them apart (where
 * the file system keeps one).
 */
export function directoryIdentity(info: Stats | undefined): string {
  return info?.isDirectory() ? `${info.dev}:${info.ino}:${info.birthtimeMs}` : "";
}

export interface DirectoryWatchOptions {
  /**
   * Check the directory every WATCH_LIMITS.pollMs (default true). Off for directories whose
   * parent is watched already and re-watches them when they come and go.
   */
  poll?: boolean;
}

/**
 * Calls `changed` when an entry of `dir` whose name passes `names` is created, written,
 * removed or renamed, and when `dir` itself appears, goes away or is replaced. `dir` need not
 * exist. Where fs.watch fails (no inotify watches left, a file system without events), the
 * poll compares the directory's times instead, which still catches files replaced by rename.
 */
export function watchDirectory(
  dir: string,
  names: (name: string) => boolean,
  changed: () => void,
  { poll = true }: DirectoryWatchOptions = {},
): Unwatch {
  const self = basename(dir);
  /** What hears the directory now; undefined while fs.watch is not available. */
  let heard: { listener: Listener; stop: () => void } | undefined;
  /** The identity of the directory watched (see directoryIdentity()); undefined until known. */
  let seen: string | undefined;
  /** The directory's mtime, compared only while fs.watch is not available. */
  let mtimeMs: number | undefined;
  let stopped = false;

  const notify = safely(changed);
  const fire = () => {
    if (!stopped) notify();
  };

  const detach = () => {
    const old = heard;
    heard = undefined;
    old?.stop();
  };

  const attach = (id: string) => {
    const listener: Listener = {
      event(entry, itself) {
        if (heard?.listener !== listener || stopped) return;
        if (itself || entry === self) {
          // The directory itself changed: removed, or replaced by one that may even have its
          // inode number. Watch afresh whatever is there now.
          seen = undefined;
          void check();
        } else if (entry === undefined) {
          void check();
        }
        if (entry === undefined || names(entry)) fire();
      },
      // Look again: the directory may be gone or replaced. If it is still there, its times
      // are compared from now on, and the watch retried only when they change (so that a
      // watch that always fails is not retried in a loop).
      lost() {
        if (heard?.listener !== listener) return;
        heard = undefined;
        void check();
      },
    };
    const stop = listen(id, dir, listener);
    if (stop) heard = { listener, stop };
  };

  const compare = (info: Stats | undefined, initial: boolean) => {
    const now = directoryIdentity(info);
    if (now !== seen) {
      detach();
      seen = now;
      if (now) attach(now);
      mtimeMs = info?.mtimeMs;
      if (!initial) fire();
    } else if (now && !heard && info!.mtimeMs !== mtimeMs) {
      // Without fs.watch, a changed mtime tells of entries created, removed or renamed.
      mtimeMs = info!.mtimeMs;
      attach(now);
      fire();
    }
  };

  const check = serially(async () => {
    const info = await stat(dir).catch(() => undefined);
    if (!stopped) compare(info, false);
  }, () => {});

  // Armed before returning, so that what changes after the call is seen.
  let first: Stats | undefined;
  try {
    first = statSync(dir);
  } catch {
    // Missing or not reachable: the same as no directory, until the poll sees one.
  }
  compare(first, true);
  const timer = poll ? setInterval(check, WATCH_LIMITS.pollMs) : undefined;
  // Deno and Bun type the timer differently; both have unref().
  (timer as { unref?: () => void } | undefined)?.unref?.();

  return () => {
    stopped = true;
    clearInterval(timer);
    detach();
  };
}

/** Calls `changed` when `file` is created, written, replaced or removed. */
export function watchFile(file: string, changed: () => void): Unwatch {
  const name = basename(file);
  return watchDirectory(dirname(file), (entry) => entry === name, changed);
}

/** An Unwatch that can say when the watch is in place (tests wait for it). */
export interface StartedWatch extends Unwatch {
  readonly ready: Promise<void>;
}

/** Watches started over time and stopped together; what is added after stop() stops at once. */
export class WatchGroup {
  #stops = new Set<Unwatch>();
  #stopped = false;

  get stopped(): boolean {
    return this.#stopped;
  }

  /** Keeps `unwatch` for stop(); returns what stops it alone (safe to call more than once). */
  add(unwatch: Unwatch): Unwatch {
    if (this.#stopped) {
      unwatch();
      return () => {};
    }
    let done = false;
    const one = () => {
      if (done) return;
      done = true;
      this.#stops.delete(one);
      unwatch();
    };
    this.#stops.add(one);
    return one;
  }

  stop(): void {
    this.#stopped = true;
    for (const one of [...this.#stops]) {
      try {
        one();
      } catch {
        // Each watch releases what it holds; one failing must not keep the others.
      }
    }
  }
}

/**
 * A watch whose setup awaits (the roots, a state file): `setup` adds what it starts to the
 * group, and the returned Unwatch stops all of it, even what setup adds after it was called.
 * A setup that fails is logged, not thrown: the subscription stays, without notifications.
 */
export function startWatch(
  ctx: Pick<WatchContext, "log">,
  what: string,
  setup: (group: WatchGroup) => Promise<void>,
): StartedWatch {
  const group = new WatchGroup();
  const ready = setup(group).catch((error) => {
    if (group.stopped) return;
    try {
      const reason = error instanceof Error ? error.message : String(error);
      ctx.log("warning", `changes to ${what} will not be noticed: ${reason}`);
    } catch {
      // Nowhere left to tell.
    }
  });
  return Object.assign(() => group.stop(), { ready });
}

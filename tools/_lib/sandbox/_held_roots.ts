/**
 * The allowed roots, each looked up by name once: when it is first established (at server start
 * for --root and config roots, when a client's list of roots arrives for the client's), resolved
 * to its real path and, on Linux, held open for as long as it is a root. Every later call works
 * beneath the held directory; a rename of a root's path (or a symbolic link put in its place)
 * never redirects anything. A root whose path no longer names the directory held is "moved": it
 * allows nothing until it is established again (a server restart, or the client's roots
 * changing), so a name and the directory it once meant can never disagree silently.
 */
import { constants, lstatSync, type Stats } from "node:fs";
import { type FileHandle, lstat, open, readlink, realpath } from "node:fs/promises";
import { addressing, O_DIRECTORY, O_NOFOLLOW_ANY } from "./_beneath.ts";

export interface HeldRoot {
  /** The root as it was asked for. */
  readonly requested: string;
  /** Its real path when it was established. */
  readonly path: string;
  /** Which directory it is (device and inode when established). */
  readonly dev: number;
  readonly ino: number;
  /** Linux: the directory, held open for as long as it is a root. */
  readonly handle?: FileHandle;
}

/** Per list of roots (by identity): each root's establishment, retried while it does not exist. */
const established = new WeakMap<readonly string[], Promise<HeldRoot | undefined>[]>();

/** Closes the held directories of a list of roots nobody uses any more. */
const release = new FinalizationRegistry<Promise<HeldRoot | undefined>[]>((held) => {
  for (const root of held) root.then((r) => r?.handle?.close()).catch(() => {});
});

/**
 * The roots of `requested`, established once per list (the same array is the same list): a
 * root that does not exist is left out, and tried again on a later call.
 */
export async function heldRoots(requested: readonly string[]): Promise<(HeldRoot | undefined)[]> {
  let held = established.get(requested);
  if (!held) {
    held = requested.map(establish);
    established.set(requested, held);
    release.register(requested, held);
  }
  const roots = await Promise.all(held);
  roots.forEach((root, i) => {
    if (root === undefined) held[i] = establish(requested[i]);
  });
  return roots;
}

/** Establishes `requested` now (at server start), so that a later rename cannot redirect it. */
export function establishRoots(requested: readonly string[]): Promise<unknown> {
  return heldRoots(requested).catch(() => {});
}

async function establish(requested: string): Promise<HeldRoot | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    let path: string;
    try {
      path = await realpath(requested);
    } catch {
      return undefined; // a root that does not exist allows nothing (yet)
    }
    if (addressing() !== "descriptor") {
      // Held by identity only: each call opens the path again and checks it is this directory.
      const info = await lstat(path).catch(() => undefined);
      if (!info?.isDirectory()) return undefined;
      return { requested, path, dev: info.dev, ino: info.ino };
    }
    let handle: FileHandle;
    try {
      handle = await open(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW_ANY);
    } catch {
      return undefined;
    }
    // What was opened must be what the name meant a moment ago; else the tree is changing: again.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => "");
    if (opened === path) {
      const info = await handle.stat();
      return { requested, path, dev: info.dev, ino: info.ino, handle };
    }
    await handle.close();
  }
  return undefined;
}

/**
 * Whether the root's path still names the directory established (checked on every call, by
 * name, only to narrow: what is worked on is the held directory either way). One lstat, made
 * synchronously: a few microseconds, where a trip through the event loop's thread pool took
 * 30-100 µs of every call.
 */
export function inPlace(root: HeldRoot): boolean {
  let now: Stats;
  try {
    now = lstatSync(root.path);
  } catch {
    return false;
  }
  return now.isDirectory() && now.dev === root.dev && now.ino === root.ino;
}

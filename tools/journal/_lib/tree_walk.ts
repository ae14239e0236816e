/**
 * The primitives of undo's tree walks: entries looked at and files digested as entries of
 * directories held open (sandbox/_beneath.ts), never following a link; anything found other than
 * what was listed means the tree changed under the walk (Changed), which the walks retry once.
 */
import { createHash } from "node:crypto";
import { closeSync, fstatSync, lstatSync, readlinkSync, readSync, type Stats } from "node:fs";
import { setImmediate } from "node:timers";
import { type Dir, NotADirectory } from "../../_lib/sandbox/mod.ts";

/** Files up to this size are read whole when kept. */
export const SMALL_FILE = 256 * 1024;

/** The tree changed under a walk: a directory became something else. */
export class Changed extends Error {}

export function identity(info: Stats, times: boolean): string {
  return times
    ? `${info.dev}:${info.ino}:${info.mtimeMs}:${info.ctimeMs}`
    : `${info.dev}:${info.ino}`;
}

/**
 * Entries are looked at with synchronous calls (microseconds each, where a round trip through
 * the event loop costs more: a walk of 20,000 entries took 1 s with promises); the event loop
 * gets a turn at least every few milliseconds.
 */
let lastTurn = Date.now();
export async function turn(): Promise<void> {
  if (Date.now() - lastTurn < 4) return;
  await new Promise((resolve) => setImmediate(resolve));
  lastTurn = Date.now();
}

export function lstatEntry(dir: Dir, name: string): Stats {
  try {
    return lstatSync(dir.at(name));
  } catch (error) {
    return vanished(error);
  }
}

/** An entry gone or replaced by a link between the listing and its use: the tree changed. */
export function vanished(error: unknown): never {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ELOOP" || code === "ENOTDIR") {
    throw new Changed(`an entry changed during the walk`);
  }
  throw error;
}

/** Opens subdirectory `name`; anything else there now (a link swapped in) is a change. */
export async function enter(dir: Dir, name: string): Promise<Dir> {
  try {
    return (await dir.child(name)).dir;
  } catch (error) {
    if (error instanceof NotADirectory) throw new Changed(`${dir.pathOf(name)} changed`);
    throw error;
  }
}

/** A link's target, read in its held directory. */
export function linkTarget(dir: Dir, name: string): string {
  try {
    return readlinkSync(dir.at(name));
  } catch (error) {
    return vanished(error);
  }
}

/**
 * The SHA-256 of regular file `name` of `dir`, read in its held directory; it must be the file
 * `info` describes, untouched while it is read (else the tree changed).
 */
export async function digestEntry(dir: Dir, name: string, info: Stats): Promise<string> {
  if (info.size <= SMALL_FILE) return digestSmall(dir, name, info);
  const handle = await dir.openFile(name).catch(vanished);
  try {
    const before = await handle.stat();
    if (!before.isFile() || identity(before, true) !== identity(info, true)) {
      throw new Changed(`${dir.pathOf(name)} changed`);
    }
    const hash = createHash("sha256");
    const buffer = new Uint8Array(Math.min(before.size + 1, 1 << 20));
    let at = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, buffer.length, at);
      if (bytesRead === 0) break;
      hash.update(buffer.subarray(0, bytesRead));
      at += bytesRead;
    }
    const after = await handle.stat();
    if (at !== before.size || identity(after, true) !== identity(before, true)) {
      throw new Changed(`${dir.pathOf(name)} changed`);
    }
    return hash.digest("hex");
  } finally {
    await handle.close();
  }
}

/**
 * digestEntry for a small file, with synchronous calls (microseconds each, where a round trip
 * through the event loop per call cost more than the reading: 2,000 files took 0.2 s).
 */
function digestSmall(dir: Dir, name: string, info: Stats): string {
  return createHash("sha256").update(readSmall(dir, name, info)).digest("hex");
}

/**
 * Small file `name` of `dir` read whole with synchronous calls, opened without following a link
 * or blocking; it must be the file `info` describes and stay so while read (else Changed).
 * `opened` is called once it is open (tests change the tree there).
 */
export function readSmall(
  dir: Dir,
  name: string,
  info: Stats,
  opened?: () => void,
): Uint8Array {
  let fd: number;
  try {
    fd = dir.openFileSync(name);
  } catch (error) {
    return vanished(error);
  }
  try {
    const before = fstatSync(fd);
    if (!before.isFile() || identity(before, true) !== identity(info, true)) {
      throw new Changed(`${dir.pathOf(name)} changed`);
    }
    opened?.();
    const bytes = new Uint8Array(before.size + 1);
    const read = readSync(fd, bytes, 0, bytes.length, 0);
    const after = fstatSync(fd);
    if (read !== before.size || identity(after, true) !== identity(before, true)) {
      throw new Changed(`${dir.pathOf(name)} changed`);
    }
    return bytes.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/** The stat of a directory held open. */
export function statHeld(dir: Dir): Promise<Stats> {
  return dir.stat();
}

/**
 * Whether a file is still the one someone saw: the one comparison every "changed since"
 * question asks (the session's last read or write, what a tool read before writing, a cache of
 * parsed files). Device, inode, size and modification time: a write in place moves the time (or
 * the size), a rename over it the inode. A file touched within the time stamps' granularity with
 * the same size is told apart only by content (the session check digests then).
 */
import type { Stats } from "node:fs";

/** What identifies one version of a file. */
export interface Version {
  readonly dev: number;
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
}

/** The version `info` describes. */
export function versionOf(info: Stats | Version): Version {
  const { dev, ino, size, mtimeMs } = info;
  return { dev, ino, size, mtimeMs };
}

/** Whether `now` is the version `was` describes. */
export function sameVersion(was: Version, now: Version): boolean {
  return was.dev === now.dev && was.ino === now.ino && was.size === now.size &&
    was.mtimeMs === now.mtimeMs;
}

/** The version as a short key (a cache's). */
export function versionKey(info: Version): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeMs}`;
}

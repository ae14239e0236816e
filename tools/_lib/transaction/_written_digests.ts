/**
 * The digests of files this server wrote, so the journal can tell what a file holds without
 * reading it back: writeFileAtomic remembers the SHA-256 of what it wrote together with what the
 * file looked like right after (device, inode, size, times); a lookup whose stat still matches
 * all of them gets the digest. Any later write, rename into place or chmod changes the ctime or
 * the inode, so a match means the same file, untouched since. Bounded: the oldest are forgotten.
 */
import type { Stats } from "node:fs";

const KEPT = 64;

interface Remembered {
  dev: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  sha: string;
}

const byPath = new Map<string, Remembered>();

/** Remembers that the file at `path`, as `info` describes it, holds content digested `sha`. */
export function rememberWritten(path: string, info: Stats, sha: string): void {
  byPath.delete(path);
  if (!info.isFile()) return;
  byPath.set(path, {
    dev: info.dev,
    ino: info.ino,
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    sha,
  });
  if (byPath.size > KEPT) byPath.delete(byPath.keys().next().value!);
}

/** The digest of the file at `path` when `info` shows it as this server wrote it. */
export function writtenDigest(path: string, info: Stats): string | undefined {
  const known = byPath.get(path);
  if (
    !known || !info.isFile() || known.dev !== info.dev || known.ino !== info.ino ||
    known.size !== info.size || known.mtimeMs !== info.mtimeMs || known.ctimeMs !== info.ctimeMs
  ) return undefined;
  return known.sha;
}

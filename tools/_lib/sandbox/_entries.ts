/**
 * A path's own directory entry, and what kind of thing it is. Sandbox.resolve follows a final
 * symlink to its target; describing or moving a link must act on the link itself.
 */
import type { Stats } from "node:fs";
import { lstat, realpath } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import type { ResolvedPath, Sandbox } from "./_sandbox.ts";

export interface Entry extends ResolvedPath {
  /** The entry the path names: the link itself when it is a symlink, else `real`. */
  entry: string;
  /** Whether the path names a symlink (then `real` is its target, `exists` whether that exists). */
  link: boolean;
}

/** Resolves `path` through the sandbox (its target must be inside) and finds its own entry. */
export async function resolveEntry(sandbox: Sandbox, path: string): Promise<Entry> {
  const resolved = await sandbox.resolve(path);
  const parent = await realpath(dirname(resolved.absolute)).catch(() => undefined);
  if (parent !== undefined) {
    const entry = join(parent, basename(resolved.absolute));
    const info = await lstat(entry).catch(() => undefined);
    if (info?.isSymbolicLink() && sandbox.contains(entry)) {
      return { ...resolved, entry, link: true };
    }
  }
  return { ...resolved, entry: resolved.real, link: false };
}

/** What entryType() tells, as output schemas list it. */
export const ENTRY_TYPES = ["file", "directory", "symlink", "other"] as const;
export type EntryType = typeof ENTRY_TYPES[number];

export function entryType(info: Stats): EntryType {
  if (info.isFile()) return "file";
  if (info.isDirectory()) return "directory";
  if (info.isSymbolicLink()) return "symlink";
  return "other";
}

/** The kind of entry in words, for messages: "file", "directory", "FIFO", ... */
export function describeEntry(info: Stats): string {
  if (info.isFIFO()) return "FIFO (named pipe)";
  if (info.isSocket()) return "socket";
  if (info.isCharacterDevice()) return "character device";
  if (info.isBlockDevice()) return "block device";
  return entryType(info);
}

/** What is at `real` (not following a link), or undefined when nothing is. */
export async function infoIfAny(sandbox: Sandbox, real: string): Promise<Stats | undefined> {
  try {
    return await sandbox.info(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return undefined;
    throw error;
  }
}

/**
 * Walking a directory tree through directories held open (the sandbox's Dir), for copy_file and
 * delete_file: every entry is looked at, opened, created or removed as an entry of its held
 * parent, subdirectories are entered without following a link, and a symbolic link is never
 * followed. A subdirectory swapped for a link while the walk runs fails the walk ("changed"); it
 * never leads it outside. Walks are bounded in entries, bytes and depth.
 */
import { ToolError } from "../../../mcp/tool/mod.ts";
import { describeEntry, type Dir, NotADirectory } from "../../_lib/sandbox/mod.ts";
import { bytes, count } from "../../_lib/text/units.ts";

/** What one call may copy or delete below a directory. */
export const MAX_TREE_ENTRIES = 10_000;
export const MAX_TREE_BYTES = 1024 * 1024 * 1024;
/** Directories held open at once along a path. */
export const MAX_TREE_DEPTH = 64;

export interface Tally {
  /** Entries below the top (files, directories, links, others). */
  entries: number;
  /** Bytes of the regular files. */
  bytes: number;
  /** Entries that were neither files, directories nor links (FIFOs, sockets, devices). */
  special: string[];
}

export const newTally = (): Tally => ({ entries: 0, bytes: 0, special: [] });

/** A tree over the bounds: refused before anything is done, with what to use instead. */
export class TreeTooBig extends ToolError {}

function check(tally: Tally, depth: number, shown: string, instead: string): void {
  if (tally.entries > MAX_TREE_ENTRIES || tally.bytes > MAX_TREE_BYTES) {
    throw new TreeTooBig(
      `${shown} holds more than ${count(MAX_TREE_ENTRIES)} entries or ${
        bytes(MAX_TREE_BYTES)
      }, over what one call handles; use ${instead} instead.`,
    );
  }
  if (depth > MAX_TREE_DEPTH) {
    throw new TreeTooBig(
      `${shown} is nested more than ${MAX_TREE_DEPTH} directories deep; use ${instead} instead.`,
    );
  }
}

/** Opens subdirectory `name` of `dir`; a link or anything else there now means the tree changed. */
async function enter(dir: Dir, name: string): Promise<Dir> {
  try {
    return (await dir.child(name)).dir;
  } catch (error) {
    if (error instanceof NotADirectory) {
      throw new ToolError(
        `${dir.pathOf(name)} changed during the walk (it is no longer a directory); try again`,
      );
    }
    throw error;
  }
}

/** Counts what `dir` holds, refusing (TreeTooBig) past the bounds. */
export async function measure(
  dir: Dir,
  shown: string,
  instead: string,
  signal?: AbortSignal,
  tally = newTally(),
  depth = 1,
): Promise<Tally> {
  check(tally, depth, shown, instead);
  for (const entry of await dir.entries()) {
    signal?.throwIfAborted();
    const info = await dir.lstat(entry.name);
    tally.entries++;
    if (info.isFile()) tally.bytes += info.size;
    check(tally, depth, shown, instead);
    if (info.isDirectory()) {
      const sub = await enter(dir, entry.name);
      try {
        await measure(sub, shown, instead, signal, tally, depth + 1);
      } finally {
        await sub.close();
      }
    }
  }
  return tally;
}

/**
 * Removes everything `dir` holds, depth first: files and links are unlinked, directories emptied
 * through their own held descriptor and then removed from `dir`. `removed` counts as it goes,
 * so a failure can say how far it got.
 */
export async function removeContents(
  dir: Dir,
  removed: Tally,
  signal?: AbortSignal,
  depth = 1,
): Promise<void> {
  if (depth > MAX_TREE_DEPTH) check(removed, depth, dir.path, "bash (rm -r)");
  for (const entry of await dir.entries()) {
    signal?.throwIfAborted();
    const info = await dir.lstat(entry.name);
    if (info.isDirectory()) {
      const sub = await enter(dir, entry.name);
      try {
        await removeContents(sub, removed, signal, depth + 1);
      } finally {
        await sub.close();
      }
      await dir.rmdir(entry.name);
    } else {
      await dir.unlink(entry.name);
      if (info.isFile()) removed.bytes += info.size;
    }
    removed.entries++;
  }
}

/** Removes entry `name` of `dir` whatever it is (work in progress: a temporary copy). */
export async function removeEntry(dir: Dir, name: string): Promise<void> {
  const info = await dir.lstat(name);
  if (!info.isDirectory()) return await dir.unlink(name);
  const sub = await enter(dir, name);
  try {
    await removeContents(sub, newTally());
  } finally {
    await sub.close();
  }
  await dir.rmdir(name);
}

const CHUNK = 1 << 20;

/**
 * Copies regular file `name` of `from` to a new entry `to` of `into` (created with O_EXCL, so
 * nothing is overwritten or written through a link), with the source's permissions.
 */
export async function copyFile(
  from: Dir,
  name: string,
  into: Dir,
  to: string,
  tally: Tally,
  signal?: AbortSignal,
): Promise<void> {
  const input = await from.openFile(name);
  try {
    const info = await input.stat();
    if (!info.isFile()) {
      throw new ToolError(`${from.pathOf(name)} changed during the copy; try again`);
    }
    const output = await into.createFile(to, 0o600);
    try {
      const buffer = new Uint8Array(CHUNK);
      for (let position = 0;;) {
        signal?.throwIfAborted();
        const { bytesRead } = await input.read(buffer, 0, CHUNK, position);
        if (bytesRead === 0) break;
        await output.write(buffer.subarray(0, bytesRead));
        position += bytesRead;
        tally.bytes += bytesRead;
        if (tally.bytes > MAX_TREE_BYTES) check(tally, 0, from.pathOf(name), "bash (cp)");
      }
      await output.chmod(info.mode & 0o7777);
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * Copies what `from` holds into `into` (an empty directory): files with their permissions,
 * directories, and symbolic links as links (their target text as it is, never followed).
 * FIFOs, sockets and devices are not copied; `tally.special` names them.
 */
export async function copyContents(
  from: Dir,
  into: Dir,
  tally: Tally,
  shown: (path: string) => string,
  signal?: AbortSignal,
  depth = 1,
): Promise<void> {
  check(tally, depth, shown(from.path), "bash (cp -r)");
  for (const entry of await from.entries()) {
    signal?.throwIfAborted();
    const name = entry.name;
    const info = await from.lstat(name);
    tally.entries++;
    check(tally, depth, shown(from.path), "bash (cp -r)");
    if (info.isFile()) {
      await copyFile(from, name, into, name, tally, signal);
    } else if (info.isSymbolicLink()) {
      await into.symlink(await from.readlink(name), name);
    } else if (info.isDirectory()) {
      const source = await enter(from, name);
      try {
        await into.mkdir(name);
        const target = await enter(into, name);
        try {
          await copyContents(source, target, tally, shown, signal, depth + 1);
          await target.chmod(info.mode & 0o7777);
        } finally {
          await target.close();
        }
      } finally {
        await source.close();
      }
    } else {
      tally.special.push(`${shown(from.pathOf(name))} (${describeEntry(info)})`);
    }
  }
}

/**
 * What undo keeps: the content of files a call replaces or deletes, as content-addressed blobs
 * in the project's state directory (undo/<sha256>), within a size budget (the oldest dropped
 * first). Files are read through the sandbox (beneath held roots, never by name).
 */
import { createHash } from "node:crypto";
import { type FileHandle, mkdir, open, readdir, rename, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { openByPath, type Sandbox, temporaryName } from "../../_lib/sandbox/mod.ts";
import { writtenDigest } from "../../_lib/transaction/mod.ts";
import { withLock } from "../../_lib/state.ts";
import type { PathState } from "./journal.ts";

export function blobDir(projectDir: string): string {
  return join(projectDir, "undo");
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** Read size when a file is digested or kept: memory stays bounded whatever its size. */
const CHUNK_BYTES = 1 << 20;

/** Where and within which budget pathState keeps a file's content as a blob. */
export interface Keep {
  projectDir: string;
  budget: number;
  /** Called once a file's descriptor is open, before its content is read. */
  opened?: () => void;
  /**
   * Take the digest of a file this server wrote and nobody touched since from the writer
   * (sandbox/_written_digests.ts) instead of computing it, and copy nothing when a blob of it is
   * kept already. For the journal's snapshot before a call: a wrong guess (a same-size change
   * within the file system's timestamp granularity) only makes a blob that undo refuses, its digest
   * checked. Never for what undo compares.
   */
  trustWritten?: boolean;
}

/**
 * What is at `real` now. A file's content is digested, read in chunks; with `keep`, it is also
 * kept as a blob, when it is at most `maxBytes` (`tooBig` otherwise, with no digest). Without
 * `keep`, a file this server just wrote and nobody touched since is not read again
 * (sandbox/_written_digests.ts).
 */
export async function pathState(
  sandbox: Sandbox,
  real: string,
  keep?: Keep,
  maxBytes = Infinity,
): Promise<{ state: PathState; tooBig?: boolean }> {
  let info;
  try {
    info = await sandbox.info(real);
  } catch (error) {
    // Only nothing there is "absent": a path that leads through a link, or cannot be looked
    // at, is not said to hold nothing (undo would report removing what was never reached).
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR") return { state: { kind: "absent" } };
    throw error;
  }
  if (info.isDirectory()) return { state: { kind: "dir" } };
  if (info.isSymbolicLink()) {
    const { dir, name } = await sandbox.parent(real);
    try {
      return { state: { kind: "link", target: await dir.readlink(name) } };
    } finally {
      await dir.close();
    }
  }
  if (!info.isFile()) throw new Error(`${sandbox.display(real)} is not a regular file`);
  if (info.size > maxBytes) {
    return {
      state: { kind: "file", sha: "", mode: info.mode & 0o7777, size: info.size },
      tooBig: true,
    };
  }
  // What undo compares is always read (see Keep.trustWritten).
  const known = !keep || keep.trustWritten ? writtenDigest(real, info) : undefined;
  if (known && (!keep || await touchBlob(keep.projectDir, known))) {
    return { state: { kind: "file", sha: known, mode: info.mode & 0o7777, size: info.size } };
  }
  const handle = await sandbox.openForReading(real);
  try {
    const mode = (await handle.stat()).mode & 0o7777;
    keep?.opened?.();
    const { sha, size } = await digestAndKeep(handle, keep, known);
    return { state: { kind: "file", sha, mode, size } };
  } finally {
    await handle.close();
  }
}

let lastStamp = 0;

/**
 * The time a blob kept or reused now is stamped with: later than every one this server stamped
 * before, so the budget drops blobs in the order they were kept even when two are kept within
 * one tick of the clock (which a tie would leave to chance).
 */
function newestStamp(): Date {
  lastStamp = Math.max(Date.now(), lastStamp + 1);
  return new Date(lastStamp);
}

/** Whether the blob `sha` is kept; if so it becomes the newest (the last to be pruned). */
export async function touchBlob(projectDir: string, sha: string): Promise<boolean> {
  const now = newestStamp();
  return await utimes(join(blobDir(projectDir), sha), now, now).then(() => true, () => false);
}

/**
 * Reads the open file to its end, digesting it (unless its digest is `known`) and, with `keep`,
 * copying it into a temporary blob that then takes its digest's name; once this server has kept
 * an eighth of the budget since it last looked, the oldest blobs past the budget are dropped in
 * the background (undo prunes first, so what it finds is within the budget).
 *
 * No fsync: a blob is written to a temporary name and renamed, so a reader never sees a partial
 * one, and readBlob checks the digest, so a blob a power loss tore (or a file changed in place
 * while it was copied) is refused (undo says it is no longer kept), never restored wrong.
 * Forcing it to disk would not make undo more reliable: the journal line naming it is not forced
 * to disk either.
 */
export async function digestAndKeep(
  handle: FileHandle,
  keep: Keep | undefined,
  known?: string,
): Promise<{ sha: string; size: number }> {
  const hash = known ? undefined : createHash("sha256");
  const dir = keep ? blobDir(keep.projectDir) : undefined;
  const temporary = dir ? join(dir, temporaryName()) : undefined;
  let blob: FileHandle | undefined;
  if (dir && temporary) {
    blob = await open(temporary, "wx", 0o600).catch(async (error) => {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
      await mkdir(dir, { recursive: true });
      return await open(temporary, "wx", 0o600);
    });
  }
  try {
    // Two buffers in turn: one is read into while the other is written out.
    const buffers = [new Uint8Array(CHUNK_BYTES), new Uint8Array(CHUNK_BYTES)];
    let size = 0;
    let writing: Promise<unknown> | undefined;
    for (let turn = 0;; turn ^= 1) {
      const { bytesRead } = await handle.read(buffers[turn], 0, CHUNK_BYTES, size);
      if (bytesRead === 0) break;
      const chunk = buffers[turn].subarray(0, bytesRead);
      await writing;
      if (blob) {
        writing = blob.write(chunk, 0, chunk.length, size);
        // Awaited after the next read: a failure meanwhile (ENOSPC, EFBIG) is not unhandled.
        writing.catch(() => {});
      }
      hash?.update(chunk);
      size += bytesRead;
    }
    await writing;
    const sha = known ?? hash!.digest("hex");
    if (blob && dir && temporary && keep) {
      const closing = blob;
      blob = undefined;
      await closing.close();
      const stamp = newestStamp();
      await utimes(temporary, stamp, stamp);
      // Named by its digest: a blob already kept is replaced by the same bytes, newest again.
      await rename(temporary, join(dir, sha));
      const added = (keptSincePrune.get(dir) ?? 0) + size;
      keptSincePrune.set(dir, added);
      if (added > keep.budget / 8) void pruneNow(keep.projectDir, keep.budget).catch(() => {});
    }
    return { sha, size };
  } catch (error) {
    await blob?.close().catch(() => {});
    if (temporary) await rm(temporary, { force: true });
    throw error;
  }
}

/** Keeps `text` as a blob (a tree's manifest); returns its digest. */
export function keepText(keep: Keep, text: string): Promise<string> {
  return keepBytes(keep, new TextEncoder().encode(text));
}

/**
 * Keeps `bytes` (a small file of a tree, read whole) as a blob; returns its digest. A blob kept
 * already is only made the newest: nothing is written.
 */
export async function keepBytes(keep: Keep, bytes: Uint8Array): Promise<string> {
  const sha = sha256(bytes);
  if (await touchBlob(keep.projectDir, sha)) return sha;
  const dir = blobDir(keep.projectDir);
  await mkdir(dir, { recursive: true });
  const temporary = join(dir, temporaryName());
  try {
    const blob = await open(temporary, "wx", 0o600);
    try {
      await blob.write(bytes, 0, bytes.length, 0);
    } finally {
      await blob.close();
    }
    const stamp = newestStamp();
    await utimes(temporary, stamp, stamp);
    await rename(temporary, join(dir, sha));
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  const added = (keptSincePrune.get(dir) ?? 0) + bytes.length;
  keptSincePrune.set(dir, added);
  if (added > keep.budget / 8) void pruneNow(keep.projectDir, keep.budget).catch(() => {});
  return sha;
}

/** Bytes this server kept per blob directory since it last pruned it. */
const keptSincePrune = new Map<string, number>();

/**
 * Blobs an undo of this server is about to restore, per blob directory, each with how many undos
 * want it: a prune leaves them (and does not count them) until they are let go. Without this, an
 * undo's own keeping of what each path holds now pushes the store past its budget and starts a
 * prune beside it, which drops the oldest blob: the one the undo is about to open.
 */
const pinned = new Map<string, Map<string, number>>();

/**
 * Pins the blobs `shas` of the project's store against pruning until the returned function is
 * called (once; again does nothing).
 *
 * @example undo, around everything it restores
 * ```ts
 * const release = pinBlobs(projectDir, [before.sha]);
 * try { await restore(); } finally { release(); }
 * ```
 */
export function pinBlobs(projectDir: string, shas: Iterable<string>): () => void {
  const dir = blobDir(projectDir);
  let counts = pinned.get(dir);
  if (!counts) pinned.set(dir, counts = new Map());
  const mine = [...new Set(shas)];
  for (const sha of mine) counts.set(sha, (counts.get(sha) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    for (const sha of mine) {
      const left = (counts.get(sha) ?? 1) - 1;
      if (left > 0) counts.set(sha, left);
      else counts.delete(sha);
    }
    if (counts.size === 0 && pinned.get(dir) === counts) pinned.delete(dir);
  };
}
/** A prune under way per blob directory: calls meanwhile share it. */
const pruning = new Map<string, Promise<void>>();

/** Drops the oldest blobs past `budget`, under the blob directory's lock. */
export function pruneNow(projectDir: string, budget: number): Promise<void> {
  const dir = blobDir(projectDir);
  let running = pruning.get(dir);
  if (!running) {
    keptSincePrune.set(dir, 0);
    running = withLock(dir, () => prune(dir, budget)).finally(() => pruning.delete(dir));
    pruning.set(dir, running);
  }
  return running;
}

async function prune(dir: string, budget: number): Promise<void> {
  const blobs = [];
  for (const name of await readdir(dir).catch(() => [])) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    // An undo under way is about to restore it: neither dropped nor counted until it is done.
    if (pinned.get(dir)?.has(name)) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info?.isFile()) blobs.push({ name, size: info.size, mtime: info.mtimeMs });
  }
  let total = blobs.reduce((sum, b) => sum + b.size, 0);
  blobs.sort((a, b) => a.mtime - b.mtime);
  for (const blob of blobs) {
    if (total <= budget) break;
    await rm(join(dir, blob.name), { force: true });
    total -= blob.size;
  }
}

/**
 * The kept blob `sha`, open, once its digest checked out (read in chunks); undefined when it is
 * no longer kept, or no longer whole. Held open, it outlives a prune meanwhile. Close it.
 */
export async function openBlob(projectDir: string, sha: string): Promise<FileHandle | undefined> {
  // Not blocking, and only a regular file: a FIFO put in the store would hold undo for ever.
  const handle = await openByPath(join(blobDir(projectDir), sha)).catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) throw new Error("not a regular file");
    const hash = createHash("sha256");
    for await (const chunk of chunksOf(handle)) hash.update(chunk);
    if (hash.digest("hex") === sha) return handle;
  } catch {
    // Unreadable: as good as gone.
  }
  await handle.close();
  return undefined;
}

/** An open file's content from its start, in chunks: memory stays bounded. */
export async function* chunksOf(handle: FileHandle): AsyncGenerator<Uint8Array> {
  // Two buffers in turn: the atomic write writes a chunk before asking for the one after next.
  const buffers = [new Uint8Array(CHUNK_BYTES), new Uint8Array(CHUNK_BYTES)];
  for (let turn = 0, at = 0;; turn ^= 1) {
    const { bytesRead } = await handle.read(buffers[turn], 0, CHUNK_BYTES, at);
    if (bytesRead === 0) return;
    at += bytesRead;
    yield buffers[turn].subarray(0, bytesRead);
  }
}

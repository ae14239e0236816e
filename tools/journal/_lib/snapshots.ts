/**
 * What undo keeps: the content of files a call replaces or deletes, as content-addressed blobs
 * in the project's state directory (undo/<sha256>), within a size budget (the oldest dropped
 * first). Files are read through the sandbox (beneath held roots, never by name).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { temporaryName } from "../../_lib/atomic_write.ts";
import type { Sandbox } from "../../_lib/sandbox.ts";
import { withLock } from "../../_lib/state.ts";
import type { PathState } from "./journal.ts";

export function blobDir(projectDir: string): string {
  return join(projectDir, "undo");
}

export function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** What is at `real` now, with a file's bytes when it is one of at most `maxBytes`. */
export async function pathState(
  sandbox: Sandbox,
  real: string,
  maxBytes = Infinity,
): Promise<{ state: PathState; bytes?: Uint8Array; tooBig?: boolean }> {
  let info;
  try {
    info = await sandbox.info(real);
  } catch {
    return { state: { kind: "absent" } };
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
  const handle = await sandbox.openForReading(real);
  try {
    const bytes = new Uint8Array(await handle.readFile());
    const mode = (await handle.stat()).mode & 0o7777;
    return { state: { kind: "file", sha: sha256(bytes), mode, size: bytes.length }, bytes };
  } finally {
    await handle.close();
  }
}

/**
 * Keeps `bytes` under its digest (`sha` when the caller hashed them already), then, once this
 * server has kept an eighth of `budget` since it last looked, drops the oldest blobs past
 * `budget` in the background (undo prunes first, so what it finds is within the budget).
 *
 * No fsync: a blob is written to a temporary name and renamed, so a reader never sees a partial
 * one, and readBlob checks the digest, so a blob a power loss tore is refused (undo says it is
 * no longer kept), never restored wrong. Forcing it to disk would not make undo more reliable:
 * the journal line naming it is not forced to disk either.
 */
export async function keepBlob(
  projectDir: string,
  bytes: Uint8Array,
  budget: number,
  sha = sha256(bytes),
) {
  const dir = blobDir(projectDir);
  const file = join(dir, sha);
  const now = new Date();
  // Kept already: it becomes the newest again.
  if (await utimes(file, now, now).then(() => false, () => true)) {
    const temporary = join(dir, temporaryName());
    try {
      await writeFile(temporary, bytes, { flag: "wx", mode: 0o600 }).catch(async (error) => {
        if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
        await mkdir(dir, { recursive: true });
        await writeFile(temporary, bytes, { flag: "wx", mode: 0o600 });
      });
      await rename(temporary, file);
    } catch (error) {
      await rm(temporary, { force: true });
      throw error;
    }
    const added = (keptSincePrune.get(dir) ?? 0) + bytes.length;
    keptSincePrune.set(dir, added);
    if (added > budget / 8) void pruneNow(projectDir, budget).catch(() => {});
  }
  return sha;
}

/** Bytes this server kept per blob directory since it last pruned it. */
const keptSincePrune = new Map<string, number>();
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

/** A kept blob, or undefined once the budget dropped it. */
export async function readBlob(projectDir: string, sha: string): Promise<Uint8Array | undefined> {
  const bytes = await readFile(join(blobDir(projectDir), sha)).catch(() => undefined);
  return bytes && sha256(bytes) === sha ? new Uint8Array(bytes) : undefined;
}

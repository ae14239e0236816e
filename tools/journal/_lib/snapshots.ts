/**
 * What undo keeps: the content of files a call replaces or deletes, as content-addressed blobs
 * in the project's state directory (undo/<sha256>), within a size budget (the oldest dropped
 * first). Files are read through the sandbox (beneath held roots, never by name).
 */
import { createHash } from "node:crypto";
import { mkdir, readdir, readFile, rm, stat, utimes } from "node:fs/promises";
import { join } from "node:path";
import { writeFileAtomic } from "../../_lib/atomic_write.ts";
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

/** Keeps `bytes` under its digest, then drops the oldest blobs past `budget`. */
export async function keepBlob(projectDir: string, bytes: Uint8Array, budget: number) {
  const dir = blobDir(projectDir);
  await mkdir(dir, { recursive: true });
  const sha = sha256(bytes);
  const file = join(dir, sha);
  const now = new Date();
  // Kept already: it becomes the newest again.
  if (await utimes(file, now, now).then(() => false, () => true)) {
    await writeFileAtomic(file, bytes);
  }
  await withLock(dir, () => prune(dir, budget));
  return sha;
}

async function prune(dir: string, budget: number): Promise<void> {
  const blobs = [];
  for (const name of await readdir(dir)) {
    if (!/^[0-9a-f]{64}$/.test(name)) continue;
    const info = await stat(join(dir, name)).catch(() => null);
    if (info) blobs.push({ name, size: info.size, mtime: info.mtimeMs });
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

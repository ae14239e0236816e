/**
 * Putting a kept directory tree back (undo of a delete) and taking one away (undo of a copy,
 * or what force replaces), beneath the held roots: directories are made, files created with
 * O_EXCL and links made as entries of directories held open (sandbox/_beneath.ts); a link's target
 * is written as it was kept, never followed. A tree is rebuilt under a temporary name beside its
 * path and takes the name only when whole, so a failure (a blob that no longer checks out, a
 * cancel, a full disk) leaves nothing half restored.
 */
import { createHash } from "node:crypto";
import type { Stats } from "node:fs";
import { type FileHandle, stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { ToolError } from "../../../mcp/tool/mod.ts";
import {
  type Dir,
  NotADirectory,
  openByPath,
  type Sandbox,
  temporaryName,
} from "../../_lib/sandbox/mod.ts";
import { blobDir, chunksOf, touchBlob } from "./snapshots.ts";
import { type Manifest, MAX_DEPTH, type TreeItem } from "./tree_manifest.ts";
import { PendingSyncs } from "./pending_syncs.ts";

/**
 * The first file of `manifest` whose blob is no longer kept (or not of its size), or undefined
 * when all are; the ones found are made the newest, the last a prune drops.
 */
export async function missingBlob(
  projectDir: string,
  manifest: Manifest,
): Promise<string | undefined> {
  for (const item of manifest.items) {
    if (item.t !== "f") continue;
    if (typeof item.s !== "string" || !/^[0-9a-f]{64}$/.test(item.s)) return item.p;
    const info = await stat(join(blobDir(projectDir), item.s)).catch(() => undefined);
    if (!info?.isFile() || info.size !== item.z) return item.p;
    await touchBlob(projectDir, item.s);
  }
  return undefined;
}

/** What a restore made: entries below the top, and bytes of files. */
export interface Made {
  entries: number;
  bytes: number;
}

/** The items below each directory, by the directory's path. */
function childrenOf(manifest: Manifest): Map<string, TreeItem[]> {
  const children = new Map<string, TreeItem[]>();
  for (const item of manifest.items) {
    if (item.p === "") continue;
    const slash = item.p.lastIndexOf("/");
    const parent = slash < 0 ? "" : item.p.slice(0, slash);
    let list = children.get(parent);
    if (!list) children.set(parent, list = []);
    list.push(item);
  }
  return children;
}

/** Copies the blob `item.s` into a new file `name` of `dir`, checking its digest on the way. */
async function restoreFile(
  dir: Dir,
  name: string,
  item: TreeItem,
  projectDir: string,
  syncs: PendingSyncs,
  made: Made,
  signal?: AbortSignal,
): Promise<void> {
  let blob: FileHandle;
  try {
    blob = await openByPath(join(blobDir(projectDir), item.s!));
  } catch {
    throw new ToolError(`the kept content of ${item.p} is no longer kept`);
  }
  try {
    if (!(await blob.stat()).isFile()) {
      throw new ToolError(`the kept content of ${item.p} is damaged`);
    }
    const output = await dir.createFile(name, 0o600);
    try {
      const hash = createHash("sha256");
      let size = 0;
      for await (const chunk of chunksOf(blob)) {
        signal?.throwIfAborted();
        hash.update(chunk);
        size += chunk.length;
        await output.write(chunk);
      }
      if (hash.digest("hex") !== item.s || size !== item.z) {
        throw new ToolError(`the kept content of ${item.p} changed in the undo store`);
      }
      await output.chmod((item.m ?? 0o644) & 0o7777);
      made.bytes += size;
    } catch (error) {
      await output.close();
      throw error;
    }
    await syncs.add(() => output.sync().finally(() => output.close()));
  } finally {
    await blob.close();
  }
}

async function fill(
  dir: Dir,
  rel: string,
  children: Map<string, TreeItem[]>,
  projectDir: string,
  depth: number,
  syncs: PendingSyncs,
  made: Made,
  signal?: AbortSignal,
): Promise<void> {
  if (depth > MAX_DEPTH + 1) throw new ToolError(`the kept tree is nested too deep`);
  for (const item of children.get(rel) ?? []) {
    signal?.throwIfAborted();
    const name = item.p.slice(rel === "" ? 0 : rel.length + 1);
    if (item.t === "f") await restoreFile(dir, name, item, projectDir, syncs, made, signal);
    else if (item.t === "l") await dir.symlink(String(item.l), name);
    else if (item.t === "d") await dir.mkdir(name);
    else continue;
    made.entries++;
    if (item.t === "d") {
      const sub = (await dir.child(name)).dir;
      try {
        await fill(sub, item.p, children, projectDir, depth + 1, syncs, made, signal);
        await sub.chmod((item.m ?? 0o755) & 0o7777);
      } catch (error) {
        await sub.close();
        throw error;
      }
      // Its entries (names, links) on disk too, not only its files' contents.
      await syncs.add(() => sub.sync().finally(() => sub.close()));
    }
  }
}

/**
 * Rebuilds the tree `manifest` describes (a content manifest whose blobs are kept) at `path`:
 * made under a temporary name in its held parent, renamed into place once whole. The path must
 * then be free: `clearPath` takes away what occupies it, once the tree is whole. Missing parent
 * directories are made.
 */
export async function restoreTree(
  sandbox: Sandbox,
  path: string,
  manifest: Manifest,
  projectDir: string,
  signal?: AbortSignal,
  clearPath?: () => Promise<void>,
): Promise<Made> {
  const shown = sandbox.display(path);
  const made: Made = { entries: 0, bytes: 0 };
  let clearing = false;
  /** What occupied the path is gone: a failure now does not leave it as it was. */
  let cleared = false;
  await (await sandbox.directory(dirname(path), true)).dir.close();
  const { dir, name } = await sandbox.parent(path);
  const temporary = temporaryName();
  let building = false;
  try {
    await dir.mkdir(temporary);
    building = true;
    const top = (await dir.child(temporary)).dir;
    const syncs = new PendingSyncs();
    try {
      await fill(top, "", childrenOf(manifest), projectDir, 1, syncs, made, signal);
      const mode = manifest.items.find((item) => item.p === "")?.m ?? 0o755;
      await top.chmod(mode & 0o7777);
      await syncs.drain();
      await top.sync();
    } finally {
      // Nothing is left open, whatever failed.
      await syncs.drain().catch(() => {});
      await top.close();
    }
    // Only now is what occupies the path taken away (force): a restore that fails first
    // leaves it as it was.
    if (clearPath) {
      clearing = true;
      await clearPath();
      clearing = false;
      cleared = true;
    }
    // A rename would replace an empty directory put there meanwhile: the name must be free.
    if (await dir.lstat(name).then(() => true, () => false)) {
      throw new ToolError(`${shown} was taken while the tree was being restored`);
    }
    await dir.rename(temporary, dir, name);
    building = false;
    await dir.sync();
    return made;
  } catch (error) {
    if (building) await removeEntry(dir, temporary).catch(() => {});
    if (clearing) {
      throw new ToolError(
        `could not take away what is at ${shown} to restore the tree there: ${
          (error as Error).message
        }`,
      );
    }
    const left = cleared ? "" : `; ${shown} was left as it was.`;
    if (error instanceof ToolError) throw new ToolError(`${error.message}${left}`);
    throw new ToolError(`could not restore ${shown}: ${(error as Error).message}${left}`);
  } finally {
    await dir.close();
  }
}

/** Opens subdirectory `name`; anything else there now means the tree changed. */
async function enter(dir: Dir, name: string): Promise<Dir> {
  try {
    return (await dir.child(name)).dir;
  } catch (error) {
    if (error instanceof NotADirectory) {
      throw new ToolError(`${dir.pathOf(name)} changed while it was being removed; try again`);
    }
    throw error;
  }
}

async function removeContents(dir: Dir, depth: number): Promise<void> {
  if (depth > MAX_DEPTH + 1) throw new ToolError(`${dir.path} is nested too deep to remove`);
  for (const entry of await dir.entries()) {
    const info: Stats = await dir.lstat(entry.name);
    if (info.isDirectory()) {
      const sub = await enter(dir, entry.name);
      try {
        await removeContents(sub, depth + 1);
      } finally {
        await sub.close();
      }
      await dir.rmdir(entry.name);
    } else {
      await dir.unlink(entry.name);
    }
  }
}

/** Removes entry `name` of `dir` whatever it is; a directory depth first, links not followed. */
export async function removeEntry(dir: Dir, name: string): Promise<void> {
  const info = await dir.lstat(name);
  if (!info.isDirectory()) return await dir.unlink(name);
  const sub = await enter(dir, name);
  try {
    await removeContents(sub, 1);
  } finally {
    await sub.close();
  }
  await dir.rmdir(name);
}

/** Removes what is at `path` (a tree too), beneath its held parent. */
export async function removePath(sandbox: Sandbox, path: string): Promise<void> {
  const { dir, name } = await sandbox.parent(path);
  try {
    await removeEntry(dir, name);
  } finally {
    await dir.close();
  }
}

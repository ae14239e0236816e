/**
 * What undo knows of a directory tree: a manifest listing every entry below it, walked through
 * directories held open beneath the roots (beneath.ts), links read and never followed, kept as
 * a blob in the undo store (snapshots.ts) and named in the journal by its digest.
 *
 * Two kinds. A content manifest (a tree about to be deleted) gives each directory's mode, each
 * file's mode and the digest of its content, kept as a blob, and each link's target: enough to
 * recreate the tree exactly. It is bounded: at most MAX_KEPT_ENTRIES entries, files within the
 * undo budget, and no FIFO, socket or device (which undo could not recreate). A shape manifest
 * (a tree moved or copied) gives each entry's mode, size, link target, device and inode, and a
 * file's or link's modification and change times: two walks that give the same manifest saw the
 * same entries, untouched in between (any write, chmod, rename or new hard link moves the change
 * time). It reads no content; past MAX_SHAPE_ENTRIES only the top level is listed.
 */
import type { Stats } from "node:fs";
import { join } from "node:path";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { type Dir, openByPath, type Sandbox } from "../../_lib/sandbox/mod.ts";
import { bytes, count } from "../../_lib/text/units.ts";
import { isItemPath, objectsWithin } from "./manifest_bounds.ts";
import type { TreeState } from "./journal.ts";
import {
  blobDir,
  digestAndKeep,
  type Keep,
  keepBytes,
  keepText,
  sha256,
  touchBlob,
} from "./snapshots.ts";
import {
  Changed,
  digestEntry,
  enter,
  identity,
  linkTarget,
  lstatEntry,
  readSmall,
  SMALL_FILE,
  statHeld,
  turn,
  vanished,
} from "./tree_walk.ts";

/** A tree deleted with more entries than this is not kept (delete_file takes 10,000 at most). */
export const MAX_KEPT_ENTRIES = 10_000;
/** A moved or copied tree with more entries than this is judged by its top level only. */
export const MAX_SHAPE_ENTRIES = 20_000;
/**
 * A moved or copied tree whose files hold at most this much gets their digests in its shape
 * (read once, after the call); a bigger one is judged by identity and times alone.
 */
export const DIGEST_UP_TO = 64 * 1024 * 1024;
/**
 * A partial shape (a tree past MAX_SHAPE_ENTRIES, its top level only) listing more than this is
 * refused when read back, like a damaged one (a crafted one could list millions): undo then says
 * what the move or copy left is no longer known. Within MAX_MANIFEST_BYTES at a few hundred bytes
 * an entry.
 */
const MAX_PARTIAL_ITEMS = 40_000;
/** A kept manifest larger than this is damaged (20,000 entries take a few MB). */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;
/** Directories deeper than this are not walked (delete_file's and copy_file's bound too). */
export const MAX_DEPTH = 64;

export interface TreeItem {
  /** Path below the top, "/"-separated; "" for the top itself. */
  p: string;
  /** Directory, file or link. */
  t: "d" | "f" | "l";
  /** Permission bits (directories and files). */
  m?: number;
  /** A file's size. */
  z?: number;
  /** A file's content digest (content manifests). */
  s?: string;
  /** A link's target, as it is. */
  l?: string;
  /** Identity and times (shape manifests). */
  i?: string;
}

export interface Manifest {
  v: 1;
  content: boolean;
  /** Only the top level is listed (a shape past MAX_SHAPE_ENTRIES). */
  partial?: true;
  /**
   * A shape with digests: when its walk began (ms). A file changed within the file system's
   * clock tick before that may be rewritten without its times moving: it is judged by content.
   */
  at?: number;
  items: TreeItem[];
}

/**
 * How long file times may stay put while a file changes: a kernel clock tick (1 to 10 ms), but
 * also whole seconds where times are read at that precision (Deno's fs.stat) and FAT's 2 s.
 */
export const TICK_MS = 2_000;

/** Whether a file last changed (`identity`'s change time) within a tick of `at`. */
export function racy(item: TreeItem, at: number | undefined): boolean {
  const ctime = Number(item.i?.split(":")[3]);
  return at !== undefined && !(ctime < at - TICK_MS);
}

/** Why a tree cannot be kept (too big, a FIFO in it, changed while it was walked). */
export class NotKept extends Error {}

export interface Limits {
  entries: number;
  /** Bytes of files (content manifests). */
  bytes: number;
}

interface Walked {
  items: TreeItem[];
  entries: number;
  bytes: number;
  /** Not files, directories or links: shown in the refusal. */
  special: string[];
  /** The walk stopped at the entry limit. */
  over: boolean;
}

/**
 * Lists `top` (held open) depth first, names in order, each entry lstat'ed in its held parent.
 * `file` is called for each regular file (content manifests read it there). Stops, with `over`,
 * past `maxEntries`; `maxDepth` 1 lists the top level only.
 */
async function walk(
  top: Dir,
  topInfo: Stats,
  shape: boolean,
  maxEntries: number,
  maxDepth: number,
  file?: (dir: Dir, name: string, info: Stats, item: TreeItem) => Promise<void>,
): Promise<Walked> {
  const walked: Walked = { items: [], entries: 0, bytes: 0, special: [], over: false };
  walked.items.push({
    p: "",
    t: "d",
    m: topInfo.mode & 0o7777,
    ...(shape ? { i: identity(topInfo, false) } : {}),
  });
  const visit = async (dir: Dir, rel: string, depth: number): Promise<void> => {
    const names = dir.entriesSync().map((e) => e.name).sort();
    for (const name of names) {
      if (walked.over) return;
      await turn();
      const info = lstatEntry(dir, name);
      const p = rel === "" ? name : `${rel}/${name}`;
      if (++walked.entries > maxEntries) {
        walked.over = true;
        return;
      }
      if (info.isDirectory()) {
        walked.items.push({
          p,
          t: "d",
          m: info.mode & 0o7777,
          ...(shape ? { i: identity(info, false) } : {}),
        });
        if (depth >= MAX_DEPTH && maxDepth > 1) {
          throw new NotKept(`it is nested more than ${MAX_DEPTH} deep`);
        }
        if (depth >= maxDepth) continue;
        const sub = await enter(dir, name);
        try {
          await visit(sub, p, depth + 1);
        } finally {
          await sub.close();
        }
      } else if (info.isFile()) {
        walked.bytes += info.size;
        const item: TreeItem = {
          p,
          t: "f",
          m: info.mode & 0o7777,
          z: info.size,
          ...(shape ? { i: identity(info, true) } : {}),
        };
        if (file) await file(dir, name, info, item);
        walked.items.push(item);
      } else if (info.isSymbolicLink()) {
        walked.items.push({
          p,
          t: "l",
          l: linkTarget(dir, name),
          ...(shape ? { i: identity(info, true) } : {}),
        });
      } else {
        walked.special.push(p);
      }
    }
  };
  await visit(top, "", 1);
  return walked;
}

/** Opens the directory at `real` beneath its root and its own stat; close the Dir. */
async function openTree(sandbox: Sandbox, real: string): Promise<{ dir: Dir; info: Stats }> {
  const { dir } = await sandbox.directory(real);
  try {
    return { dir, info: await statHeld(dir) };
  } catch (error) {
    await dir.close();
    throw error;
  }
}

/** The manifest `items` describe, kept as a blob: the state the journal records. */
async function record(keep: Keep, manifest: Manifest, walked: Walked): Promise<TreeState> {
  const sha = await keepText(keep, JSON.stringify(manifest));
  return {
    kind: "tree",
    content: manifest.content,
    manifest: sha,
    entries: walked.entries,
    bytes: walked.bytes,
  };
}

/** The digest a manifest would be kept under, without keeping it. */
export function manifestDigest(manifest: Manifest): string {
  return sha256(new TextEncoder().encode(JSON.stringify(manifest)));
}

/**
 * The shape of the directory tree at `real`: its manifest, and with `keep` the state to journal
 * (the manifest kept as a blob).
 */
export async function shapeOf(
  sandbox: Sandbox,
  real: string,
  keep?: Keep,
  maxEntries = MAX_SHAPE_ENTRIES,
  digestUpTo = 0,
): Promise<{ manifest: Manifest; sha: string; state?: TreeState }> {
  const { dir, info } = await openTree(sandbox, real);
  try {
    return await shapeOfDir(dir, info, keep, maxEntries, digestUpTo);
  } finally {
    await dir.close();
  }
}

/** shapeOf for a directory held open (and its own stat). */
export async function shapeOfDir(
  dir: Dir,
  info: Stats,
  keep?: Keep,
  maxEntries = MAX_SHAPE_ENTRIES,
  digestUpTo = 0,
): Promise<{ manifest: Manifest; sha: string; state?: TreeState }> {
  for (let attempt = 0;; attempt++) {
    try {
      // Small enough to read (up to `digestUpTo` in all): each file's digest too, taken as it is
      // met, so that a file rewritten with the same content (an edit, then its undo) is still
      // known for what it holds. Past that, the digests taken are dropped.
      let read = 0;
      const at = Date.now();
      let walked = await walk(
        dir,
        info,
        true,
        maxEntries,
        MAX_DEPTH + 1,
        digestUpTo > 0
          ? async (d, name, entry, item) => {
            read += entry.size;
            if (read <= digestUpTo) item.s = await digestEntry(d, name, entry);
          }
          : undefined,
      );
      const digested = digestUpTo > 0 && read <= digestUpTo;
      if (!digested) { for (const item of walked.items) delete item.s; }
      let manifest: Manifest = {
        v: 1,
        content: false,
        ...(digested ? { at } : {}),
        items: walked.items,
      };
      if (walked.over) {
        walked = await walk(dir, info, true, Infinity, 1);
        manifest = { v: 1, content: false, partial: true, items: walked.items };
      }
      const state = keep ? await record(keep, manifest, walked) : undefined;
      return { manifest, sha: state?.manifest ?? manifestDigest(manifest), state };
    } catch (error) {
      if (!(error instanceof Changed) || attempt > 0) throw error;
    }
  }
}

/**
 * Keeps the directory tree at `real` whole (content manifest, every file as a blob), within
 * `limits`; throws NotKept saying why not. The tree is walked three times: counted (nothing
 * kept when it is over the limits), kept, and its shape taken again; a file that changes while
 * it is read, or a shape that differs between the walks, means the tree changed meanwhile:
 * tried once more, then NotKept.
 */
export async function keepTree(
  sandbox: Sandbox,
  real: string,
  keep: Keep,
  limits: Limits,
): Promise<KeptTree> {
  const { dir, info } = await openTree(sandbox, real);
  try {
    for (let attempt = 0;; attempt++) {
      try {
        return await keepOnce(dir, info, keep, limits);
      } catch (error) {
        if (!(error instanceof Changed)) throw error;
        if (attempt > 0) {
          throw new NotKept(
            "it changed while it was being kept (another program was writing in it)",
          );
        }
      }
    }
  } finally {
    await dir.close();
  }
}

/**
 * A kept tree, and its files that changed within a tick before they were kept (by content: the
 * delete's last look reads them again, since their times may not show a rewrite).
 */
export type KeptTree = TreeState & { racy?: { p: string; s: string }[] };

async function keepOnce(top: Dir, topInfo: Stats, keep: Keep, limits: Limits): Promise<KeptTree> {
  const at = Date.now();
  const counted = await walk(top, topInfo, true, limits.entries, MAX_DEPTH);
  if (counted.over) throw new NotKept(`it holds more than ${count(limits.entries)} entries`);
  if (counted.special.length > 0) {
    throw new NotKept(
      `it holds ${counted.special.slice(0, 3).join(", ")}${
        counted.special.length > 3 ? " and more" : ""
      }, neither a file, a directory nor a link (a FIFO, socket or device), which undo cannot recreate`,
    );
  }
  if (counted.bytes > limits.bytes) {
    throw new NotKept(
      `its files hold ${bytes(counted.bytes)}, over the undo budget (journal.undo_budget_bytes, ${
        bytes(limits.bytes)
      })`,
    );
  }
  const kept = await walk(
    top,
    topInfo,
    false,
    limits.entries,
    MAX_DEPTH,
    async (dir, name, info, item) => {
      // A small file is read whole, synchronously (no 1 MiB buffers, no round trips).
      if (info.size <= SMALL_FILE) {
        item.s = await keepBytes(keep, readSmall(dir, name, info, keep.opened));
        return;
      }
      // Not blocking: a FIFO swapped in since the lstat must not hold the call.
      const handle = await dir.openFile(name).catch(vanished);
      try {
        const before = await handle.stat();
        if (!before.isFile() || identity(before, true) !== identity(info, true)) {
          throw new Changed(`${dir.pathOf(name)} changed`);
        }
        keep.opened?.();
        const { sha } = await digestAndKeep(handle, keep);
        const after = await handle.stat();
        if (identity(after, true) !== identity(before, true) || after.size !== before.size) {
          throw new Changed(`${dir.pathOf(name)} changed`);
        }
        item.s = sha;
      } finally {
        await handle.close();
      }
    },
  );
  // Each file was read as its walk's lstat saw it (above); the same shape before and after
  // means nothing was added, removed, renamed or written in between (change times only grow).
  const again = await walk(top, topInfo, true, limits.entries, MAX_DEPTH);
  if (
    JSON.stringify(counted.items) !== JSON.stringify(again.items) ||
    kept.items.length !== counted.items.length || kept.special.length > 0
  ) {
    throw new Changed("the tree changed");
  }
  const state = await record(keep, { v: 1, content: true, items: kept.items }, kept);
  const digests = new Map(kept.items.map((item) => [item.p, item.s]));
  const racyFiles = counted.items.filter((item) => item.t === "f" && racy(item, at))
    .map((item) => ({ p: item.p, s: digests.get(item.p)! }));
  return {
    ...state,
    shape: manifestDigest({ v: 1, content: false, items: counted.items }),
    ...(racyFiles.length ? { racy: racyFiles } : {}),
  };
}

/** A kept manifest, or undefined when the budget dropped it (or it is damaged). */
export async function loadManifest(
  projectDir: string,
  sha: string,
): Promise<Manifest | undefined> {
  try {
    // Not blocking, no link, a regular file of sane size: the store is only toolhost's.
    const handle = await openByPath(join(blobDir(projectDir), sha));
    let text: string;
    try {
      const info = await handle.stat();
      if (!info.isFile() || info.size > MAX_MANIFEST_BYTES) return undefined;
      text = await handle.readFile("utf8");
    } finally {
      await handle.close();
    }
    if (sha256(new TextEncoder().encode(text)) !== sha) return undefined;
    // Counted before anything is built.
    if (!objectsWithin(text, MAX_PARTIAL_ITEMS + 2, 3)) return undefined;
    const manifest = JSON.parse(text) as Manifest;
    if (!wellFormed(manifest)) return undefined;
    await touchBlob(projectDir, sha);
    return manifest;
  } catch {
    return undefined;
  }
}

/**
 * Whether a parsed manifest is one toolhost writes: a content manifest within MAX_KEPT_ENTRIES
 * (the bound delete_file's trees are kept within), items with a type and a path below the top.
 */
function wellFormed(manifest: Manifest): boolean {
  if (typeof manifest !== "object" || manifest === null) return false;
  if (manifest.v !== 1 || !Array.isArray(manifest.items)) return false;
  const max = manifest.content === true
    ? MAX_KEPT_ENTRIES + 1
    : manifest.partial
    ? MAX_PARTIAL_ITEMS
    : MAX_SHAPE_ENTRIES + 1;
  if (manifest.items.length > max) return false;
  return manifest.items.every((item) =>
    typeof item === "object" && item !== null && isItemPath(item.p) &&
    (item.t === "d" || item.t === "f" || item.t === "l")
  );
}

/** For messages. */
export function refusal(error: unknown): string {
  if (error instanceof NotKept || error instanceof ToolError) return error.message;
  return `it could not be read whole (${(error as Error).message})`;
}

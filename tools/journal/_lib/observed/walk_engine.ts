/**
 * Snapshots of a root that is not the top of a git work tree: the journal's own manifest, made by
 * walking the root beneath its held directory (tools/_lib/walk: ignore files honoured, links never
 * followed, .git and node_modules skipped) and looking at each entry: kind, size, times, inode,
 * mode, a link's target, a file's digest. The manifest is kept between snapshots, so a file that
 * looks as it did is not read again; one that is new or changed is read once, and its content
 * kept in the undo store (within the budget of one snapshot), so that undo can put it back after
 * the command that changes it next.
 */
import { lstatSync, readlinkSync } from "node:fs";
import { join } from "node:path";
import type { Change, PathState } from "../journal.ts";
import { digestAndKeep, type Keep, keepBytes, sha256 } from "../snapshots.ts";
import { lookAt, nativeLookups, type Sandbox } from "../../../_lib/sandbox/mod.ts";
import { IgnoreRules } from "../../../_lib/walk/gitignore.ts";
import { Walk, type WalkEntry } from "../../../_lib/walk/walk.ts";
import {
  changedLooks,
  type Engine,
  type Found,
  type Limits,
  listed,
  type Look,
  lookOf,
  lookOfMode,
  type NotTaken,
  renames,
  sameLook,
} from "./engine.ts";

/** One entry of a manifest. */
export interface Item extends Look {
  /** A file's SHA-256 (none over the per-file bound). */
  sha?: string;
  /** A file's content is in the undo store. */
  kept?: boolean;
  /** A link's target. */
  target?: string;
  /** Changed too recently to trust its look next time (a change within the clock's tick). */
  racy?: boolean;
}

export interface WalkSnapshot {
  items: Map<string, Item>;
  /** Ignored entries (not entered), by path from the root ("/" after a directory). */
  unseen: Map<string, Look>;
}

/** A file changed this recently is read again next time, whatever its look. */
const RACY_MS = 3_000;
/** Files up to this size are read whole; larger ones in chunks. */
const WHOLE_BYTES = 1 << 20;
/** Files read at once (new or changed ones: all of them on a server's first snapshot). */
const READ_AT_ONCE = 16;

export class WalkEngine implements Engine<WalkSnapshot> {
  readonly kind = "walk";
  #last: Map<string, Item> | undefined;

  /** `skip`: directories (from the root) never entered: toolhost's own state. */
  constructor(readonly root: string, readonly skip: Set<string>) {}

  async snapshot(limits: Limits, keep: Keep, sandbox: Sandbox): Promise<WalkSnapshot | NotTaken> {
    // Ignored entries are seen on the way, before and after alike (the phase changes nothing).
    const started = Date.now();
    const items = new Map<string, Item>();
    const unseen = new Map<string, Look>();
    const walk = new Walk({
      respectIgnores: true,
      rules: IgnoreRules.empty(),
      maxEntries: limits.maxEntries,
      deadline: started + limits.timeoutMs,
      enter: (rel) => !this.skip.has(rel),
      ignored: (entry) => {
        const look = lookAtEntry(entry);
        if (look) unseen.set(entry.kind === "directory" ? `${entry.rel}/` : entry.rel, look);
      },
    });
    const start = (await sandbox.directory(this.root)).dir;
    const budget = { bytes: limits.maxBytes };
    try {
      for await (const batch of walk.batches(start)) {
        // Looked at at once; the files to read (new or changed) read a few at a time, while
        // the batch's directories are still open.
        const reads: [WalkEntry, Item][] = [];
        for (const entry of batch) {
          if (this.skip.has(entry.rel)) continue;
          const item = this.#item(entry, started);
          if (!item) continue;
          items.set(entry.rel, item);
          if (item.kind === "file" && item.sha === undefined && item.size <= limits.maxFileBytes) {
            reads.push([entry, item]);
          }
        }
        for (let at = 0; at < reads.length; at += READ_AT_ONCE) {
          await Promise.all(
            reads.slice(at, at + READ_AT_ONCE).map(async ([entry, item]) => {
              const keepIt = item.size <= budget.bytes;
              if (keepIt) budget.bytes -= item.size;
              if (!(await read(entry, item, keepIt ? keep : undefined))) items.delete(entry.rel);
            }),
          );
        }
      }
    } finally {
      await start.close();
    }
    // Even a walk cut short is worth remembering: the files read so far are not read again,
    // so a large tree's first look is spread over calls rather than started over each time.
    this.#last = items;
    if (walk.stopped === "entry limit") {
      return {
        notTaken: `the root ${this.root} holds more files and directories than a snapshot ` +
          `covers (journal.snapshot_max_files, ${limits.maxEntries})`,
      };
    }
    if (walk.stopped) {
      return {
        notTaken: `walking ${this.root} took longer than ${limits.timeoutMs} ms (a first look ` +
          "reads every file; the next command goes on from where this one stopped)",
      };
    }
    return { items, unseen };
  }

  /**
   * One entry as the manifest holds it, looked at without reading: a file that looks as it did
   * keeps the digest it had; a new or changed one is left for read().
   */
  #item(entry: WalkEntry, started: number): Item | undefined {
    const look = lookAtEntry(entry);
    if (!look) return undefined;
    const item: Item = look;
    if (look.kind === "link") {
      try {
        item.target = readlinkSync(entry.at);
      } catch {
        return undefined; // gone meanwhile
      }
    }
    if (look.kind !== "file") return item;
    item.racy = Math.max(look.mtimeMs, look.ctimeMs) > started - RACY_MS;
    const before = this.#last?.get(entry.rel);
    if (before?.kind === "file" && !before.racy && sameLook(before, look)) {
      item.sha = before.sha;
      item.kept = before.kept;
    }
    return item;
  }

  compare(before: WalkSnapshot, after: WalkSnapshot, _keep: Keep, limits: Limits): Promise<Found> {
    const found: Found = {
      changes: [],
      notKept: [],
      unseen: changedLooks(before.unseen, after.unseen),
      renamed: [],
    };
    const notKept: string[] = [];
    const big: string[] = [];
    const rels = new Set([...before.items.keys(), ...after.items.keys()]);
    for (const rel of rels) {
      const was = before.items.get(rel);
      const now = after.items.get(rel);
      if (was && now && same(was, now)) continue;
      if (was?.kind === "other" || now?.kind === "other") {
        found.unseen.push(rel); // a FIFO, socket or device: nothing the journal restores
        continue;
      }
      const path = join(this.root, ...rel.split("/"));
      const change: Change = { path, before: stateOf(was), after: stateOf(now) };
      // Over the per-file bound (no digest) on either side: as git's snapshots say it.
      if ((was?.kind === "file" && !was.sha) || (now?.kind === "file" && !now.sha)) big.push(rel);
      else if (was?.kind === "file" && !was.kept) notKept.push(rel);
      found.changes.push(change);
    }
    if (big.length > 0) {
      found.notKept.push(
        `${listed(big)} changed and ${big.length === 1 ? "is" : "are"} larger than a snapshot ` +
          `keeps (${limits.maxFileBytes} bytes a file)`,
      );
    }
    if (notKept.length > 0) {
      found.notKept.push(
        `the earlier contents of ${listed(notKept)} were not kept (past what one snapshot ` +
          `keeps, ${limits.maxBytes} bytes)`,
      );
    }
    found.renamed = renames(found.changes);
    return Promise.resolve(found);
  }

  dispose(): Promise<void> {
    this.#last = undefined;
    return Promise.resolve();
  }
}

/** Reads a file into `item` (its digest; its content kept with `keep`): false when it is gone. */
async function read(entry: WalkEntry, item: Item, keep: Keep | undefined): Promise<boolean> {
  const name = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
  const handle = await entry.dir.openFile(name).catch(() => {
    return undefined;
  });
  if (!handle) return false;
  try {
    const opened = await handle.stat();
    if (!opened.isFile()) return false;
    if (opened.size <= WHOLE_BYTES) {
      const bytes = await handle.readFile();
      item.sha = keep ? await keepBytes(keep, bytes) : sha256(bytes);
      item.size = bytes.length;
    } else {
      const read = await digestAndKeep(handle, keep);
      item.sha = read.sha;
      item.size = read.size;
    }
  } finally {
    await handle.close();
  }
  item.kept = keep !== undefined;
  return true;
}

/** How an entry looks, straight from its open directory where libc can be called (Bun, Linux). */
function lookAtEntry(entry: WalkEntry): Look | undefined {
  const fd = entry.dir.fd;
  if (fd !== undefined && nativeLookups()) {
    const native = lookAt(fd, entry.rel.slice(entry.rel.lastIndexOf("/") + 1));
    if (native) return lookOfMode(native);
  }
  try {
    return lookOf(lstatSync(entry.at));
  } catch {
    return undefined;
  }
}

function same(a: Item, b: Item): boolean {
  if (a.kind !== b.kind) return false;
  switch (a.kind) {
    case "file":
      return a.mode === b.mode && (a.sha && b.sha ? a.sha === b.sha : sameLook(a, b));
    case "link":
      return a.target === b.target;
    case "dir":
      return true;
    default:
      return sameLook(a, b);
  }
}

function stateOf(item: Item | undefined): PathState {
  if (!item) return { kind: "absent" };
  if (item.kind === "dir") return { kind: "dir" };
  if (item.kind === "link") return { kind: "link", target: item.target ?? "" };
  return { kind: "file", sha: item.sha ?? "", mode: item.mode, size: item.size };
}

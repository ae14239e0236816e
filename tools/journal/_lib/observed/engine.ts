/**
 * What a snapshot engine is to the observation of a command (observation.ts): one per root, git's
 * (git_engine.ts) in the top of a work tree, the journal's own walk (walk_engine.ts) elsewhere.
 * Each takes snapshots of its root and compares two of them as journal changes, with the content
 * each changed path held before kept in the undo store, and says what it could not keep.
 */
import type { Stats } from "node:fs";
import { isAbsolute, relative, sep } from "node:path";
import type { Change } from "../journal.ts";
import type { Keep } from "../snapshots.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";

/** How an entry looked (no content): enough to tell it changed. */
export interface Look {
  kind: "file" | "dir" | "link" | "other";
  size: number;
  mtimeMs: number;
  ctimeMs: number;
  ino: number;
  mode: number;
}

/** A Look from st_mode and the rest (a native lookup's answer). */
export function lookOfMode(
  info: { mode: number; size: number; mtimeMs: number; ctimeMs: number; ino: number },
): Look {
  const type = info.mode & 0o170000;
  return {
    kind: type === 0o100000
      ? "file"
      : type === 0o040000
      ? "dir"
      : type === 0o120000
      ? "link"
      : "other",
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    ino: info.ino,
    mode: info.mode & 0o7777,
  };
}

export function lookOf(info: Stats): Look {
  return {
    kind: info.isFile()
      ? "file"
      : info.isDirectory()
      ? "dir"
      : info.isSymbolicLink()
      ? "link"
      : "other",
    size: info.size,
    mtimeMs: info.mtimeMs,
    ctimeMs: info.ctimeMs,
    ino: info.ino,
    mode: info.mode & 0o7777,
  };
}

export function sameLook(a: Look | undefined, b: Look | undefined): boolean {
  if (!a || !b) return a === b;
  return a.kind === b.kind && a.size === b.size && a.mtimeMs === b.mtimeMs &&
    a.ctimeMs === b.ctimeMs && a.ino === b.ino && a.mode === b.mode;
}

/** The keys of two maps of looks whose entry was added, removed or changed between them. */
export function changedLooks(before: Map<string, Look>, after: Map<string, Look>): string[] {
  const changed: string[] = [];
  for (const [rel, look] of after) if (!sameLook(before.get(rel), look)) changed.push(rel);
  for (const rel of before.keys()) if (!after.has(rel)) changed.push(rel);
  return changed.sort();
}

/** What comparing two snapshots of one root found. */
export interface Found {
  /** The changes, in no particular order (observation.ts orders them for undo). */
  changes: Change[];
  /** Why some paths' changes are not kept for undo (sentences naming them); none: all kept. */
  notKept: string[];
  /**
   * Entries changed that no snapshot holds, relative to the root ("/" after a directory):
   * ignored ones, nested repositories.
   */
  unseen: string[];
  /** Files moved (same content at a new path), as real paths: for the result's wording. */
  renamed: [string, string][];
}

/** Whether a snapshot is the one before a command or the one after it. */
export type Phase = "before" | "after";

/** A snapshot not taken: why (a sentence), e.g. the tree is over the budget. */
export interface NotTaken {
  notTaken: string;
}

export interface Engine<S = unknown> {
  readonly kind: "git" | "walk";
  readonly root: string;
  /**
   * A snapshot of the root now (never two at once: the caller queues them), reading beneath the
   * call's sandbox and keeping contents with `keep` where the engine keeps them as it goes.
   */
  snapshot(limits: Limits, keep: Keep, sandbox: Sandbox, phase: Phase): Promise<S | NotTaken>;
  /** What changed from `before` to `after`, the earlier contents kept with `keep`. */
  compare(before: S, after: S, keep: Keep, limits: Limits): Promise<Found>;
  /** Gives back what the engine holds (its private git directory). */
  dispose(): Promise<void>;
  /**
   * Bytes it stored of its own since its first snapshot after it was made or renewed (git's
   * objects of files read again: their earlier versions are what grows).
   */
  readonly written?: number;
  /** Drops what it stored and starts afresh; called only while no snapshot of it is in use. */
  renew?(): Promise<void>;
}

/** The budget of one snapshot. */
export interface Limits {
  /** Files and directories of a root, at most. */
  maxEntries: number;
  /** A file larger is not kept (its change is not undoable). */
  maxFileBytes: number;
  /** New content read into a snapshot, or kept by a comparison, at most. */
  maxBytes: number;
  /** Milliseconds one snapshot may take. */
  timeoutMs: number;
}

/** The journal's file mode of a git tree entry's mode (git keeps only the executable bit). */
export function gitFileMode(mode: number): number {
  return (mode & 0o111) !== 0 ? 0o755 : 0o644;
}

/** Files removed from one path and added at another with the same content. */
export function renames(changes: Change[]): [string, string][] {
  const gone = new Map<string, string>();
  for (const c of changes) {
    if (c.before.kind === "file" && c.after.kind === "absent") gone.set(c.before.sha, c.path);
  }
  const pairs: [string, string][] = [];
  for (const c of changes) {
    if (c.before.kind !== "absent" || c.after.kind !== "file") continue;
    const from = gone.get(c.after.sha);
    if (from !== undefined) {
      pairs.push([from, c.path]);
      gone.delete(c.after.sha);
    }
  }
  return pairs;
}

/** Some names of a list, and how many more. */
export function listed(names: string[], shown = 5): string {
  const head = names.slice(0, shown).join(", ");
  return names.length > shown ? `${head} and ${names.length - shown} more` : head;
}

/** A path under `root` as git names it ("/"-separated), or undefined when it is not under it. */
export function relativeTo(root: string, path: string): string | undefined {
  const rel = relative(root, path);
  if (rel === "" || rel === ".." || rel.startsWith(`..${sep}`) || isAbsolute(rel)) return undefined;
  return rel.split(sep).join("/");
}

/**
 * Undo's steps: each change of a call to reverse is checked first (what its path holds now
 * against what the call left there), with everything the undo will need opened or found kept,
 * before any step is carried out. What a path holds now is kept as it is checked (files as
 * blobs, a directory tree whole when it must be removed), so the undo can be undone in turn.
 *
 * A directory moved by move_file is moved back by a rename: the change of its destination names
 * its source (`from`), and the source's own change is part of that step.
 */
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { ToolError } from "../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import type { Target, Transaction } from "../../_lib/transaction/mod.ts";
import type { Change, Entry, PathState, TreeState } from "./journal.ts";
import { type Keep, openBlob, pathState } from "./snapshots.ts";
import {
  DIGEST_UP_TO,
  keepTree,
  loadManifest,
  type Manifest,
  MAX_KEPT_ENTRIES,
  NotKept,
  refusal,
  shapeOfDir,
} from "./tree_manifest.ts";
import { statHeld } from "./tree_walk.ts";
import { treeDifferences } from "./tree_compare.ts";
import { missingBlob } from "./tree_restore.ts";

export interface Undoing {
  sandbox: Sandbox;
  projectDir: string;
  keep: Keep;
  force: boolean;
  /** The edit transaction the restored files are written through. */
  tx: Transaction;
  /** The paths the undo names before changing any (the transaction's targets), by real path. */
  targets: Map<string, Target>;
}

/** What a path holds now, and what taking it away means. */
export interface Occupant {
  /** As the undo journals it (kept). */
  state: PathState;
  /** Whether it is what the undone call left there. */
  matches: boolean;
  /** How it is taken away: a directory tree is removed whole. */
  clear: "none" | "unlink" | "rmdir" | "tree";
  /** Why the undo itself cannot be undone, when a tree removed could not be kept. */
  noRedo?: string;
  /** How a tree differs from the shape expected (for the refusal). */
  differences?: string[];
}

export interface Step {
  entry: Entry;
  change: Change;
  now: Occupant;
  /** The earlier content of a file. */
  blob?: FileHandle;
  /** The earlier tree (a content manifest whose blobs are kept). */
  tree?: Manifest;
  /** A moved directory, moved back from change.path to change.from. */
  move?: { to: string; now: Occupant; before: PathState };
}

/** Whether `now` is `expected` (trees: the same manifest). */
export function same(now: PathState, expected: PathState): boolean {
  if (now.kind !== expected.kind) return false;
  if (now.kind === "file" && expected.kind === "file") return now.sha === expected.sha;
  if (now.kind === "link" && expected.kind === "link") return now.target === expected.target;
  if (now.kind === "tree" && expected.kind === "tree") {
    return now.content === expected.content && now.manifest === expected.manifest;
  }
  return true;
}

const limitsOf = (u: Undoing) => ({ entries: MAX_KEPT_ENTRIES, bytes: u.keep.budget });

/** What `path` holds now, judged against `expected`, what the undone call left there. */
export async function occupant(u: Undoing, path: string, expected: PathState): Promise<Occupant> {
  const { state } = await pathState(u.sandbox, path, u.keep);
  if (state.kind === "absent") return { state, matches: expected.kind === "absent", clear: "none" };
  if (state.kind !== "dir") return { state, matches: same(state, expected), clear: "unlink" };
  // A directory: as create_directory left it (removed only when empty), or a tree.
  if (expected.kind === "dir") return { state, matches: true, clear: "rmdir" };
  // A tree where none is expected is only kept (read whole) when force will remove it.
  if (!u.force && expected.kind !== "tree") return { state, matches: false, clear: "tree" };
  if (expected.kind === "tree" && !expected.content) return await shaped(u, path, expected);
  try {
    const { racy: _, ...kept } = await keepTree(u.sandbox, path, u.keep, limitsOf(u));
    return { state: kept, matches: same(kept, expected), clear: "tree" };
  } catch (error) {
    if (!(error instanceof NotKept)) throw error;
    return { state, matches: false, clear: "tree", noRedo: refusal(error) };
  }
}

/** A directory judged against the shape a move or copy recorded (tree_compare.ts). */
async function shaped(u: Undoing, path: string, expected: TreeState): Promise<Occupant> {
  const dir = (await u.sandbox.directory(path)).dir;
  try {
    const info = await statHeld(dir);
    const was = await loadManifest(u.projectDir, expected.manifest);
    const now = await shapeOfDir(dir, info);
    const differences = was
      ? await treeDifferences(was, now.manifest, dir)
      : ["what it held when the call left it is no longer kept (journal.undo_budget_bytes)"];
    // As it is now, kept (digests too, when small) so that undoing the undo can judge it.
    const state = (await shapeOfDir(dir, info, u.keep, undefined, DIGEST_UP_TO)).state!;
    return { state, matches: differences.length === 0, clear: "tree", differences };
  } catch (error) {
    if (!(error instanceof NotKept)) throw error;
    return {
      state: { kind: "dir" },
      matches: false,
      clear: "tree",
      differences: [refusal(error)],
    };
  } finally {
    await dir.close();
  }
}

/**
 * A tree about to be removed is kept whole first, so the undo can be undone; one that cannot be
 * kept is removed only when it is exactly what the undone call left (a copy), never by force.
 */
async function keepBeforeRemoving(u: Undoing, path: string, now: Occupant): Promise<void> {
  if (now.clear !== "tree" || (now.state.kind === "tree" && now.state.content)) return;
  const shown = u.sandbox.display(path);
  let reason = now.noRedo;
  if (!reason) {
    try {
      const { racy: _, ...kept } = await keepTree(u.sandbox, path, u.keep, limitsOf(u));
      now.state = kept;
      return;
    } catch (error) {
      if (!(error instanceof NotKept)) throw error;
      reason = refusal(error);
    }
  }
  if (!now.matches) {
    throw new ToolError(
      `${shown} cannot be kept for undo (${reason}), and force never removes what undo could ` +
        "not bring back; nothing was undone. Move or delete it yourself first.",
    );
  }
  now.noRedo = `${shown} was removed without being kept (${reason})`;
}

/** The refusal for a path that no longer holds what the call left there. */
function changedSince(
  u: Undoing,
  entry: Entry,
  path: string,
  expected: PathState,
  now: Occupant,
): ToolError {
  const shown = u.sandbox.display(path);
  const call = `${entry.tool} (call ${entry.id})`;
  const force = "Look at it first; force: true undoes it anyway.";
  if (now.differences?.length) {
    return new ToolError(
      `${shown} is no longer the tree ${call} left there: ${
        now.differences.join(", ")
      }; nothing was undone. ${force}`,
    );
  }
  if (expected.kind === "tree") {
    const there = now.state.kind === "absent"
      ? "nothing is there now"
      : now.state.kind === "tree" || now.state.kind === "dir"
      ? "a different tree is there now"
      : `a ${now.state.kind} is there now`;
    return new ToolError(
      `${shown} is no longer the tree ${call} left there (${there}); nothing was undone. ${force}`,
    );
  }
  if (expected.kind === "absent") {
    return new ToolError(
      `${shown} is taken: something was put there since ${call}; nothing was undone. ${force} ` +
        "(what is there is kept first, so undoing this undo brings it back).",
    );
  }
  return new ToolError(
    `${shown} was changed since ${call} wrote it, by someone else; nothing was undone. ${force}`,
  );
}

/** Checks one change and opens what restoring its earlier state needs. */
export async function planChange(u: Undoing, entry: Entry, change: Change): Promise<Step> {
  const shown = u.sandbox.display(change.path);
  const now = await occupant(u, change.path, change.after);
  if (!now.matches && !u.force) throw changedSince(u, entry, change.path, change.after, now);
  await keepBeforeRemoving(u, change.path, now);
  const step: Step = { entry, change, now };
  await earlier(u, step, change.before, shown);
  return step;
}

/** Finds the earlier state's content kept: a file's blob (opened), a tree's manifest and blobs. */
async function earlier(u: Undoing, step: Step, before: PathState, shown: string): Promise<void> {
  const gone = (what: string) =>
    new ToolError(
      `the earlier ${what} of ${shown} is no longer kept (journal.undo_budget_bytes dropped it, ` +
        "or what is kept is damaged); nothing was undone.",
    );
  if (before.kind === "file") {
    step.blob = await openBlob(u.projectDir, before.sha);
    if (!step.blob) throw gone("content");
  } else if (before.kind === "tree") {
    if (!before.content) {
      throw new ToolError(
        `only the shape of the earlier tree at ${shown} was kept, not its files; it cannot be ` +
          "recreated. Nothing was undone.",
      );
    }
    step.tree = await loadManifest(u.projectDir, before.manifest);
    // Only a content manifest (within MAX_KEPT_ENTRIES, loadManifest checks) is rebuilt.
    if (!step.tree?.content) throw gone("tree");
    const missing = await missingBlob(u.projectDir, step.tree);
    if (missing !== undefined) throw gone(`content of ${missing} in the tree`);
  }
}

/**
 * Checks moving the directory at `change.path` back to `change.from`: it must still be the tree
 * the move left (same identity, same entries untouched), and the path it came from free (as the
 * move left it), unless force. Both on one filesystem: a rename.
 */
export async function planMove(
  u: Undoing,
  entry: Entry,
  change: Change,
  source: Change | undefined,
): Promise<Step> {
  const to = change.from!;
  const [shown, toShown] = [u.sandbox.display(change.path), u.sandbox.display(to)];
  const now = await occupant(u, change.path, change.after);
  if (now.clear !== "tree") {
    throw new ToolError(
      `${shown} is no longer a directory, so there is nothing to move back to ${toShown}; ` +
        "nothing was undone.",
    );
  }
  if (!now.matches && !u.force) throw changedSince(u, entry, change.path, change.after, now);
  const expected: PathState = source?.after ?? { kind: "absent" };
  const there = await occupant(u, to, expected);
  if (!there.matches && !u.force) {
    throw new ToolError(
      `${toShown}, where ${shown} was moved from, is taken since ${entry.tool} (call ${entry.id}); ` +
        "nothing was undone. Look at it first; force: true replaces it (it is kept first, so " +
        "undoing this undo brings it back).",
    );
  }
  await keepBeforeRemoving(u, to, there);
  // A rename only: one across filesystems would be a copy of everything.
  const device = async (path: string): Promise<number> => {
    for (let at = path;; at = dirname(at)) {
      const info = await u.sandbox.info(at).catch(() => undefined);
      if (info) return info.dev;
      if (dirname(at) === at || !u.sandbox.contains(dirname(at))) return -1;
    }
  };
  if ((await device(change.path)) !== (await device(dirname(to)))) {
    throw new ToolError(
      `${shown} and ${toShown} are on different filesystems; undo moves a directory back only by ` +
        "a rename. Use move_file to move it back. Nothing was undone.",
    );
  }
  const step: Step = {
    entry,
    change,
    now,
    move: { to, now: there, before: source?.before ?? expected },
  };
  await earlier(u, step, change.before, shown);
  return step;
}

export type { TreeState };

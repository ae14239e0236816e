/**
 * Carrying out undo's steps (undo_steps.ts checked them): what a path holds now is taken away
 * (a tree removed whole through held directories) and its earlier state put back, or a moved
 * directory renamed back. Each step returns its own changes, journaled with the undo so that
 * undoing the undo redoes it.
 */
import type { FileHandle } from "node:fs/promises";
import { dirname } from "node:path";
import { quoted } from "../../../config/quote.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import type { Change, PathState } from "./journal.ts";
import { chunksOf } from "./snapshots.ts";
import { DIGEST_UP_TO, type Manifest, shapeOf } from "./tree_manifest.ts";
import { removePath, restoreTree } from "./tree_restore.ts";
import type { Occupant, Step, Undoing } from "./undo_steps.ts";

export interface Applied {
  changes: Change[];
  lines: string[];
  /** Why this undo cannot be undone in turn. */
  noRedo?: string;
}

/**
 * A step failed after it had taken away what its path held (kept first): that removal is
 * journaled with the undo, so undoing the undo brings it back. `cause` is the failure.
 */
export class StoppedAfterRemoving extends Error {
  constructor(override readonly cause: unknown, readonly done: Applied) {
    super(cause instanceof Error ? cause.message : String(cause));
  }
}

/** `work`, once `path`'s occupant may have been removed (`removed()` says): a failure says so. */
async function afterRemoving(
  sandbox: Sandbox,
  path: string,
  now: Occupant,
  removed: () => boolean,
  work: () => Promise<void>,
): Promise<void> {
  try {
    await work();
  } catch (error) {
    if (!removed()) throw error;
    throw new StoppedAfterRemoving(error, {
      changes: [{ path, before: now.state, after: { kind: "absent" } }],
      lines: [
        `- ${sandbox.display(path)}: what was there removed${
          now.noRedo ? "" : " (kept: undoing this undo puts it back)"
        }`,
      ],
      noRedo: now.noRedo,
    });
  }
}

export async function apply(u: Undoing, step: Step, signal?: AbortSignal): Promise<Applied> {
  const { change, now } = step;
  const shown = u.sandbox.display(change.path);
  if (step.move) return await moveBack(u, step, signal);
  const clearing = () => clear(u.sandbox, change.path, now, change.before);
  const clearingTree = async () => (await clearing()) === true;
  let removed = false;
  let done = "";
  // A tree is rebuilt first and what is there taken away only once it is whole.
  const work = change.before.kind === "tree"
    ? async () => {
      const made = await restoreTree(
        u.sandbox,
        change.path,
        step.tree!,
        u.projectDir,
        signal,
        async () => {
          removed = await clearingTree();
        },
      );
      done = madeTree(made);
    }
    : async () => {
      const cleared = await clearing();
      if (cleared === "kept") {
        done = KEPT_DIRECTORY;
        return;
      }
      removed = cleared;
      done = await put(u, change.path, change.before, step, signal) ??
        (removed ? "removed" : "nothing was there; nothing removed");
    };
  await afterRemoving(u.sandbox, change.path, now, () => removed, work);
  // Left as it was: no change of the undo's own.
  if (done === KEPT_DIRECTORY) return { changes: [], lines: [`- ${shown}: ${done}`] };
  return {
    changes: [{ path: change.path, before: now.state, after: change.before }],
    lines: [`- ${shown}: ${done}`],
    noRedo: now.noRedo,
  };
}

/** What a rebuilt tree holds, as counted while it was made (not as the journal claims). */
function madeTree(made: { entries: number; bytes: number }): string {
  return `directory tree restored (${made.entries} entr${
    made.entries === 1 ? "y" : "ies"
  }, ${made.bytes} bytes of files)`;
}

/** What undo says of a directory the call made that now holds what no journal line names. */
const KEPT_DIRECTORY = "left in place: it holds entries no journaled change made (ignored files, " +
  "say), so it is not removed";

/**
 * Takes away what `path` holds now, unless the earlier state simply replaces it: whether
 * something was removed ("kept": a directory the call made holds entries no change names, and
 * nothing is to be put there, so it is left).
 */
async function clear(
  sandbox: Sandbox,
  path: string,
  now: Occupant,
  before: PathState,
): Promise<boolean | "kept"> {
  if (now.clear === "none") return false;
  if (now.clear === "tree") {
    await removePath(sandbox, path);
    return true;
  }
  // A file is replaced by a rename when the earlier state is a file too.
  if (now.clear === "unlink" && before.kind === "file") return false;
  // An empty directory (create_directory) is the earlier state already when that was one.
  if (now.clear === "rmdir" && before.kind === "dir") return false;
  const { dir, name } = await sandbox.parent(path);
  try {
    if (now.clear === "rmdir") await dir.rmdir(name);
    else await dir.unlink(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (now.clear === "rmdir" && before.kind === "absent" && code === "ENOTEMPTY") return "kept";
    throw new ToolError(
      `cannot remove ${sandbox.display(path)}: ${(error as Error).message}`,
    );
  } finally {
    await dir.close();
  }
  return true;
}

/**
 * Puts `state` at `path` (now free, or a file the earlier file replaces), beneath the roots:
 * what was made, as found once made (undefined for "absent": nothing is put).
 */
async function put(
  u: Undoing,
  path: string,
  state: PathState,
  step: { blob?: FileHandle; tree?: Manifest },
  signal?: AbortSignal,
): Promise<string | undefined> {
  const { sandbox } = u;
  const shown = sandbox.display(path);
  if (state.kind === "absent") return undefined;
  if (state.kind === "dir") {
    const { dir, created } = await sandbox.directory(path, true);
    await dir.close();
    return created ? "directory restored" : "directory in place (it was there)";
  }
  if (state.kind === "tree") {
    return madeTree(await restoreTree(sandbox, path, step.tree!, u.projectDir, signal));
  }
  await (await sandbox.directory(dirname(path), true)).dir.close();
  if (state.kind === "link") {
    const { dir, name } = await sandbox.parent(path);
    try {
      await dir.symlink(state.target, name);
    } finally {
      await dir.close();
    }
    return `symlink to ${quoted(state.target, 200)} restored`;
  }
  // Streamed from the blob held open, through the edit transaction; one changed since it was
  // checked is refused before the rename.
  const target = u.targets.get(path);
  if (!target) throw new Error(`undo did not name ${path} before restoring it`);
  await u.tx.replace(target, chunksOf(step.blob!), {
    verify({ sha }) {
      if (sha !== state.sha) {
        throw new ToolError(
          `the earlier content of ${shown} changed in the undo store; ${shown} was left as it was.`,
        );
      }
    },
  });
  const handle = await sandbox.openForReading(path);
  try {
    await handle.chmod(state.mode & 0o7777);
    const made = await handle.stat();
    return `content restored (${made.size} bytes, mode ${(made.mode & 0o7777).toString(8)})`;
  } finally {
    await handle.close();
  }
}

/** Renames the directory at change.path back to change.from, then restores change.path. */
async function moveBack(u: Undoing, step: Step, signal?: AbortSignal): Promise<Applied> {
  const { sandbox } = u;
  const { change, now } = step;
  const move = step.move!;
  const [shown, toShown] = [sandbox.display(change.path), sandbox.display(move.to)];
  const removed = (await clear(sandbox, move.to, move.now, { kind: "absent" })) === true;
  await afterRemoving(sandbox, move.to, move.now, () => removed, () => moveDirectory(u, step));
  await put(u, change.path, change.before, step, signal);
  // What the move back left, so that undoing this undo moves it again.
  const after = (await shapeOf(sandbox, move.to, u.keep, undefined, DIGEST_UP_TO)).state!;
  return {
    changes: [
      { path: change.path, before: now.state, after: change.before },
      { path: move.to, before: move.now.state, after, from: change.path },
    ],
    lines: [`- ${shown}: moved back to ${toShown}`],
    noRedo: move.now.noRedo,
  };
}

/** The rename of moveBack: the directory at change.path to move.to (which must be free). */
async function moveDirectory(u: Undoing, step: Step): Promise<void> {
  const { sandbox } = u;
  const { change } = step;
  const move = step.move!;
  const [shown, toShown] = [sandbox.display(change.path), sandbox.display(move.to)];
  await (await sandbox.directory(dirname(move.to), true)).dir.close();
  const from = await sandbox.parent(change.path);
  try {
    const into = await sandbox.parent(move.to);
    try {
      // A rename would replace an empty directory put there meanwhile: the name must be free.
      if (await into.dir.lstat(into.name).then(() => true, () => false)) {
        throw new ToolError(`${toShown} was taken meanwhile; nothing was moved back.`);
      }
      await from.dir.rename(from.name, into.dir, into.name);
    } finally {
      await into.dir.close();
    }
  } catch (error) {
    if (error instanceof ToolError) throw error;
    throw new ToolError(`could not move ${shown} back to ${toShown}: ${(error as Error).message}`);
  } finally {
    await from.dir.close();
  }
}

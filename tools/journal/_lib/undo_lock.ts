/**
 * One undo at a time per project, across every server sharing the state directory: the lock
 * (the state directory's lock file, state.ts) is taken before undo reads the journal and given
 * back only once the undo's own line is in it (the recorder releases it after writing). So of two
 * undos of one call, the second reads the first's line and is refused, saying who undid it.
 */
import { join } from "node:path";
import { withLock } from "../../_lib/state.ts";

/**
 * How long a lock is held at most when the recorder never releases it (a bug): the next undo
 * waits, it is never stopped for good.
 */
const BACKSTOP_MS = 120_000;

const held = new WeakMap<Record<string, unknown>, () => void>();

/**
 * Takes the project's undo lock for the undo call whose arguments are `args`; releaseUndoLock
 * gives it back.
 *
 * @example
 * await holdUndoLock(projectDir, args);
 * try { await undoThings(); } finally { if (!reported) releaseUndoLock(args); }
 */
export async function holdUndoLock(projectDir: string, args: Record<string, unknown>) {
  const release = await new Promise<() => void>((taken, failed) => {
    withLock(join(projectDir, "journal.undoing"), () => new Promise<void>((done) => taken(done)))
      .catch(failed);
  });
  const timer = setTimeout(release, BACKSTOP_MS);
  held.set(args, () => {
    clearTimeout(timer);
    release();
  });
}

/** Gives back the lock holdUndoLock took for `args`, if it is still held. */
export function releaseUndoLock(args: Record<string, unknown>): void {
  held.get(args)?.();
  held.delete(args);
}

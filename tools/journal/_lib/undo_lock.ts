/**
 * One undo at a time per project, across every server sharing the state directory: the lock
 * (the state directory's lock file, state.ts) is taken before undo reads the journal and given
 * back only once the undo's own line is in it (the recorder releases it after writing). So of two
 * undos of one call, the second reads the first's line and is refused, saying who undid it.
 */
import { join } from "node:path";
import { Handoff, type ToolContext } from "../../../mcp/tool/mod.ts";
import { withLock } from "../../_lib/state.ts";

/**
 * How long a lock is held at most when the recorder never releases it (a bug): the next undo
 * waits, it is never stopped for good.
 */
const BACKSTOP_MS = 120_000;

/** The release of the lock an undo call holds, handed from undo to the recorder on its ctx. */
const held = new Handoff<() => void>("the project's undo lock");

type Writes = ToolContext["writes"];

/**
 * Takes the project's undo lock for the undo call whose ctx.writes is `writes`; releaseUndoLock
 * gives it back.
 *
 * @example
 * await holdUndoLock(projectDir, ctx.writes);
 * try { await undoThings(); } finally { if (!reported) releaseUndoLock(ctx.writes); }
 */
export async function holdUndoLock(projectDir: string, writes: Writes) {
  const release = await new Promise<() => void>((taken, failed) => {
    withLock(join(projectDir, "journal.undoing"), () => new Promise<void>((done) => taken(done)))
      .catch(failed);
  });
  const timer = setTimeout(release, BACKSTOP_MS);
  writes.give(held, () => {
    clearTimeout(timer);
    release();
  });
}

/** Gives back the lock holdUndoLock took for the call of `writes`, if it is still held. */
export function releaseUndoLock(writes: Writes): void {
  writes.take(held)?.();
}

/**
 * A hand-off between the journal and delete_file (two families, so it lives here): the journal,
 * having kept a directory tree that a call is about to delete, gives the call a last look at it,
 * from the directory the delete holds open, inside the file tools' lock; so a tree changed
 * between being kept and being deleted (by another program, or another call) is noticed, and its
 * delete said not undoable. Passed through the call's `ctx.writes`, never a module global.
 */
import { Handoff, type ToolContext } from "../../mcp/tool/mod.ts";
import type { Dir } from "./sandbox/mod.ts";

/** The journal's look at a tree, given the directory the delete holds open. */
export const lastLookAtTree = new Handoff<(dir: Dir) => Promise<void>>(
  "the journal's last look at a tree before it is removed",
);

/** delete_file: shows the tree it is about to empty (held open) to whoever asked. */
export async function showBeforeRemoving(ctx: ToolContext, dir: Dir): Promise<void> {
  const look = ctx.writes.take(lastLookAtTree);
  // Looking never stops the delete: a look that fails leaves the call not undoable.
  await look?.(dir).catch(() => {});
}

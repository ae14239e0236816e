/**
 * A hand-off between the journal and delete_file (two families, so it lives here): the journal,
 * having kept a directory tree that a call is about to delete, asks to look at it once more at
 * the last moment, from the directory the delete holds open, inside the file tools' lock; so a
 * tree changed between being kept and being deleted (by another program, or another call) is
 * noticed, and its delete said not undoable. Keyed by the call's arguments object, which the
 * journal's hooks and the tool share.
 */
import type { Dir } from "./sandbox/mod.ts";

type Look = (dir: Dir) => Promise<void>;

const looks = new WeakMap<object, Look>();

/** The journal: `look` is to see the tree the call with `args` removes, just before. */
export function lookBeforeRemoving(args: object, look: Look): void {
  looks.set(args, look);
}

/** delete_file: shows the tree it is about to empty (held open) to whoever asked. */
export async function showBeforeRemoving(args: object, dir: Dir): Promise<void> {
  const look = looks.get(args);
  if (!look) return;
  looks.delete(args);
  // Looking never stops the delete: a look that fails leaves the call not undoable.
  await look(dir).catch(() => {});
}

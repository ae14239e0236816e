/**
 * Between the journal and the tools that replace a file by renaming a new one over it
 * (write_file, edit_file, notebook_edit): such a tool may start at once, its new file written
 * while the journal opens the old one for undo, but its rename waits until the old file is held
 * open (or the journal gave up on it). Keyed by the call's arguments object, which the journal's
 * hook and the tool both receive.
 */

const gates = new WeakMap<object, Promise<void>>();

/** The journal: the call with `args` must not rename before `ready` settles. */
export function renameAfter(args: object, ready: Promise<void>): void {
  gates.set(args, ready);
}

/** The tool, just before its rename: waits for the journal when it asked for that. */
export async function renameAllowed(args: object): Promise<void> {
  await gates.get(args);
}

/**
 * Files a tool learns it will change only while it runs (a rename across a project: the
 * language server names them), declared before they are written so the journal keeps what undo
 * needs of them, exactly as it does for the files a tool's arguments name. The journal listens
 * per call (by the call's arguments object); a tool declares, awaits, then writes.
 */

type Listener = (paths: string[]) => Promise<void>;

const listeners = new WeakMap<Record<string, unknown>, Listener>();

/** The journal's side: called with every declaration the call's tool makes. */
export function onDeclaredWrites(args: Record<string, unknown>, listener: Listener): void {
  listeners.set(args, listener);
}

/**
 * The tool's side: the real paths (checked by the sandbox) it is about to change. Resolves once
 * they are kept for undo (at once when the journal is off). Declare once per call.
 *
 * @example
 * await declareWrites(args, ["/work/app/a.ts", "/work/app/b.ts"]);
 * // ...then write them
 */
export async function declareWrites(
  args: Record<string, unknown>,
  paths: string[],
): Promise<void> {
  const listener = listeners.get(args);
  listeners.delete(args);
  await listener?.(paths);
}

/** The journal's turns: calls that change the same path, one after another. */
import { normalize } from "node:path";

/**
 * Calls that change the same path go one after another, in the order they came: each call's
 * snapshot is taken once the previous call's change is recorded, so undo steps back one call at
 * a time even when a client sends its edits without waiting for replies. Keyed by the path as
 * given: two names of one file (through a link) are not put in line.
 */
const lastOnPath = new Map<string, Promise<void>>();

/** Ends a call's turn on its paths, by its arguments object. */
const turns = new WeakMap<Record<string, unknown>, () => void>();

/**
 * How long a call waits for the one before it on a path at most. Only a call that never got to
 * finished() (a bug) holds its turn that long: it delays the next one, never stops it.
 */
const TURN_BACKSTOP_MS = 60_000;

/** A call's turn on its paths: `free` when no earlier call on them was still under way. */
export function takeTurn(
  args: Record<string, unknown>,
  pathArgs: readonly string[],
): { ready: Promise<void>; free: boolean } {
  const keys = pathArgs.flatMap((arg) =>
    typeof args[arg] === "string" ? [normalize(args[arg] as string)] : []
  );
  let end!: () => void;
  const mine = new Promise<void>((resolve) => (end = resolve));
  const before = keys.flatMap((key) => lastOnPath.get(key) ?? []);
  for (const key of keys) lastOnPath.set(key, mine);
  turns.set(args, () => {
    end();
    for (const key of keys) if (lastOnPath.get(key) === mine) lastOnPath.delete(key);
  });
  if (before.length === 0) return { ready: Promise.resolve(), free: true };
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, TURN_BACKSTOP_MS);
    Promise.all(before).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { ready, free: false };
}

export function endTurn(args: Record<string, unknown>): void {
  turns.get(args)?.();
  turns.delete(args);
}

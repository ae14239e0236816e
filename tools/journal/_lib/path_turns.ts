/** The journal's turns: calls that change the same path, one after another. */
import { normalize } from "node:path";

/**
 * Calls that change the same path go one after another, in the order they came: each call's
 * snapshot is taken once the previous call's change is recorded, so undo steps back one call at
 * a time even when a client sends its edits without waiting for replies. Keyed by the path as
 * given: two names of one file (through a link) are not put in line.
 */
const lastOnPath = new Map<string, Promise<void>>();

/**
 * How long a call waits for the one before it on a path at most. Only a call that never got to
 * finished() (a bug) holds its turn that long: it delays the next one, never stops it.
 */
const TURN_BACKSTOP_MS = 60_000;

/** A call's turn on its paths (as given). */
export interface Turn {
  /** Settles once every earlier call on these paths has ended its turn. */
  ready: Promise<void>;
  /** No earlier call on them was still under way. */
  free: boolean;
  /** Ends the turn: the next call on these paths may go. */
  end(): void;
}

/** Takes a call's turn on `paths`, behind the calls on them that came before. */
export function takeTurn(paths: readonly string[]): Turn {
  const keys = [...new Set(paths.map((path) => normalize(path)))];
  let done!: () => void;
  const mine = new Promise<void>((resolve) => (done = resolve));
  const before = keys.flatMap((key) => lastOnPath.get(key) ?? []);
  for (const key of keys) lastOnPath.set(key, mine);
  const end = () => {
    done();
    for (const key of keys) if (lastOnPath.get(key) === mine) lastOnPath.delete(key);
  };
  if (before.length === 0) return { ready: Promise.resolve(), free: true, end };
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, TURN_BACKSTOP_MS);
    Promise.all(before).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { ready, free: false, end };
}

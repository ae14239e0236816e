/**
 * The one line of calls per path: calls that write the same path go one after another, in the
 * order they came. A call takes its place when it arrives (before any hook has run), and the
 * hooks that must see the change before it whole (the check against another's change, the
 * journal's snapshot) wait until the calls ahead of it have left the line. Keyed by the path as
 * given: two names of one file (through a link) are not put in line.
 */
import { normalize } from "node:path";

const lastOnPath = new Map<string, Promise<void>>();

/**
 * How long a call waits for the one before it on a path at most. Only a call that never left the
 * line (a bug) holds its place that long: it delays the next one, never stops it.
 */
const TURN_BACKSTOP_MS = 60_000;

/** A call's place in line on its paths (as given). */
export interface Turn {
  /** Settles once every earlier call on these paths has left the line. */
  readonly ready: Promise<void>;
  /** No earlier call on them was still under way. */
  readonly free: boolean;
  /** Leaves the line: the next call on these paths may go. Once is enough; again does nothing. */
  end(): void;
}

const FREE = Promise.resolve();

/** Takes a call's place on `paths`, behind the calls on them that came before. */
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
  if (before.length === 0) return { ready: FREE, free: true, end };
  const ready = new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, TURN_BACKSTOP_MS);
    Promise.all(before).then(() => {
      clearTimeout(timer);
      resolve();
    });
  });
  return { ready, free: false, end };
}

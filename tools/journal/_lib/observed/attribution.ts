/**
 * Whose a change is: a command's observation sees everything that changed in the roots while it
 * ran, its own writes and anyone else's. What another journaled call changed meanwhile (a file
 * tool of any session, an undo, another command that ended meanwhile, another server on the same
 * project) is not the command's: its paths are left out of the command's change, so undoing the
 * command never reverts them. Found in the journal's lines that ended after the command's first
 * snapshot began, and in this server's calls still being recorded (in_flight.ts).
 */
import { dirname } from "node:path";
import { type Entry, journalFiles } from "../journal.ts";
import { newScan, visitNewestFirst } from "../journal_scan.ts";
import { pathsInFlight } from "../in_flight.ts";
import { sees, sessionLabel, type Viewer } from "../session.ts";

/**
 * Lines are appended in the order their calls end, give or take the moment between a call's end
 * and its line; the journal is read back this much further than the window's start.
 */
const SLACK_MS = 5_000;
/** How long the calls in flight are waited for (they are keeping what they change). */
const IN_FLIGHT_WAIT_MS = 5_000;

/**
 * The real paths that journaled calls other than the command changed since `since` (ms), each
 * with who changed it, as a phrase told to `viewer` (the command's session): a call of another
 * OAuth subject is named only as such.
 */
export async function changedByOthers(
  journal: string,
  since: number,
  viewer: Viewer,
): Promise<Map<string, string>> {
  const others = new Map<string, string>();
  const from = new Date(since).toISOString();
  const stop = new Date(since - SLACK_MS).toISOString();
  await visitNewestFirst(journalFiles(journal), newScan(), (entry: Entry) => {
    if (entry.time < stop) return false;
    if (entry.time < from || !entry.changes) return;
    const who = sees(viewer, entry)
      ? `${entry.tool} call ${entry.id}, ${sessionLabel(entry.session, viewer)}`
      : "another user's call";
    for (const change of entry.changes) {
      if (!others.has(change.path)) others.set(change.path, who);
      if (change.from && !others.has(change.from)) others.set(change.from, who);
    }
  });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const inFlight = await Promise.race([
    pathsInFlight(),
    new Promise<Map<string, string>>((resolve) => {
      timer = setTimeout(() => resolve(new Map()), IN_FLIGHT_WAIT_MS);
    }),
  ]).finally(() => clearTimeout(timer));
  for (const [path, who] of inFlight) if (!others.has(path)) others.set(path, who);
  return others;
}

/** Who changed `path`, or a directory holding it, by `others` (changedByOthers). */
export function changedBy(others: Map<string, string>, path: string): string | undefined {
  for (let at = path;;) {
    const who = others.get(at);
    if (who !== undefined) return who;
    const up = dirname(at);
    if (up === at) return undefined;
    at = up;
  }
}

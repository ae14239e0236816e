/**
 * Which calls an undo reverses, read from the journal newest first (bounded, journal_scan.ts):
 * with an id, that call, whichever session made it, unless it is undone already; without, the
 * newest calls of this session that changed files and are not undone, up to `count`. A call the
 * caller may not see (another OAuth subject's) is not there for it, by id either.
 *
 * A call is undone while an undo that names it is itself not undone: an undo undone (a redo)
 * makes its calls live again. Reading newest first, each undo is met after every undo of it.
 */
import { quoted } from "../../../config/quote.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { type Entry, journalFiles } from "./journal.ts";
import { newScan, type Scan, visitNewestFirst } from "./journal_scan.ts";
import { sees, sessionLabel, type Viewer } from "./session.ts";

/** Calls undone, by the undo that undid them; beyond this many the scan stops (a crafted file). */
const MAX_UNDONE = 100_000;
/**
 * The journal lines of the calls one undo reverses, in bytes at most: past it, fewer calls are
 * undone (a line of toolhost's takes about a KB; a crafted one up to MAX_LINE_BYTES).
 */
const MAX_TARGET_BYTES = 8 << 20;

export async function chooseTargets(
  file: string,
  viewer: Viewer,
  id: string | undefined,
  count: number,
): Promise<Entry[]> {
  const scan = newScan();
  const undoneBy = new Map<string, { id: string; session?: string }>();
  const targets: Entry[] = [];
  let named: Entry | undefined;
  let kept = 0;
  await visitNewestFirst(journalFiles(file), scan, (entry, lineBytes) => {
    const by = undoneBy.get(entry.id);
    if (id !== undefined && entry.id === id && sees(viewer, entry)) {
      if (by) {
        throw new ToolError(
          `${entry.tool} call ${id} was already undone by undo call ${by.id} (${
            sessionLabel(by.session, viewer)
          }); nothing was undone. Undo ${by.id} to redo it.`,
        );
      }
      if (!entry.changes && !changedUnkept(entry)) {
        throw new ToolError(`${entry.tool} call ${id} changed no file.`);
      }
      named = entry;
      return false;
    }
    if (entry.undid && !by) {
      for (const undone of entry.undid) {
        if (!undoneBy.has(undone)) undoneBy.set(undone, { id: entry.id, session: entry.session });
      }
      if (undoneBy.size > MAX_UNDONE) {
        scan.stopped = `more than ${MAX_UNDONE} undone calls were listed`;
        return false;
      }
    }
    // A call that changed files it could not keep is a target too: undo refuses it, rather
    // than step past it to an older call.
    if (id !== undefined || by || entry.undid || !(entry.changes || changedUnkept(entry))) return;
    if (entry.session !== viewer.session || !sees(viewer, entry)) return;
    kept += lineBytes;
    if (kept > MAX_TARGET_BYTES && targets.length > 0) return false;
    // Undo needs the changes, not the arguments (which a line may fill).
    targets.push({ ...entry, args: {} });
    if (targets.length === count) return false;
  });
  if (named) return [named];
  if (id !== undefined) {
    throw new ToolError(
      `no journaled call has id ${quoted(id, 80)}${read(scan)}; history lists them.`,
    );
  }
  if (targets.length === 0) {
    throw new ToolError(
      `no file change of this session (${viewer.session}) by toolhost's file tools or commands is left ` +
        `to undo${read(scan)}. Another session's change is undone only by naming its id ` +
        "(history shows whose each change is).",
    );
  }
  return targets;
}

/** A call that changed files (it names them) and kept too little to undo them. */
function changedUnkept(entry: Entry): boolean {
  return entry.noUndo !== undefined && (entry.files?.length ?? 0) > 0;
}

/** What the scan left unread, for a refusal. */
function read(scan: Scan): string {
  return scan.stopped ? ` (the journal was read only until ${scan.stopped})` : "";
}

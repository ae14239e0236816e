/**
 * What the review app shows (ui://toolhost/review): this project's calls newest first, each with
 * its changes as diffs (change_diffs.ts), which calls undid it, and the tools the journal names
 * (for the app's filter). Bounded like history: one page of entries is held, the rest counted.
 */
import { shownName } from "../../_lib/text/shown_name.ts";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStatePath } from "../../_lib/state.ts";
import { diffOf, type FileDiff } from "./change_diffs.ts";
import { type Entry, journalFiles, journalPath } from "./journal.ts";
import { newScan, visitNewestFirst } from "./journal_scan.ts";
import { type Filter, matcher, pageNotes } from "./query.ts";
import { flushJournal } from "./recorder.ts";
import { sees, sessionLabel, type Viewer } from "./session.ts";

export const REVIEW_URI = "ui://toolhost/review";

/** A type, not an interface: the tool's output schema sees it as a plain object. */
export type ReviewedCall = {
  id: string;
  time: string;
  tool: string;
  outcome: string;
  session: string;
  /** The arguments, bounded, as one line. */
  args: string;
  /** Whether undo can reverse it (it changed files and kept what it needs). */
  undoable: boolean;
  noUndo?: string;
  /** The calls this one (an undo) reversed. */
  undid?: string[];
  /** The undo call that reversed this one, when one did. */
  undoneBy?: string;
  changes: FileDiff[];
  /** Changes not shown past MAX_CHANGES_SHOWN. */
  moreChanges?: number;
};

export interface ReviewPage {
  calls: ReviewedCall[];
  /** Calls matching the filter in all. */
  matched: number;
  /** Tool names the journal holds (the most recent MAX_TOOL_NAMES). */
  tools: string[];
  /** What the page leaves out, as history says it. */
  notes: string;
}

/** Changes shown per call; the rest are counted. */
const MAX_CHANGES_SHOWN = 20;
const MAX_TOOL_NAMES = 100;
/** Undo links remembered while the journal is read (an undo names at most 50 calls). */
const MAX_UNDO_LINKS = 20_000;
/** Bytes of file content one page may read to make its diffs, and diff lines it may show. */
const PAGE_DIFF_BYTES = 4 << 20;
const PAGE_DIFF_LINES = 20_000;

/**
 * The calls `filter` matches from `offset`, `limit` of them, newest first, of those `viewer` may
 * see; `all` includes calls that changed nothing.
 */
export async function reviewPage(
  stateDir: string,
  sandbox: Sandbox,
  viewer: Viewer,
  filter: Filter & { all?: boolean },
  offset: number,
  limit: number,
): Promise<ReviewPage> {
  await flushJournal();
  const projectDir = projectStatePath(stateDir, sandbox.base);
  const scan = newScan();
  const accepts = matcher(filter);
  const entries: Entry[] = [];
  const undoneBy = new Map<string, string>();
  const tools = new Set<string>();
  let matched = 0;
  await visitNewestFirst(journalFiles(journalPath(projectDir)), scan, (entry) => {
    // Newest first: an undo is met before the calls it reversed (one the viewer cannot see may
    // have undone one it can: the machine's user undoing a subject's call).
    for (const id of entry.undid ?? []) {
      if (undoneBy.size < MAX_UNDO_LINKS && !undoneBy.has(id)) undoneBy.set(id, entry.id);
    }
    if (!sees(viewer, entry)) return;
    if (tools.size < MAX_TOOL_NAMES) tools.add(entry.tool);
    if (!filter.all && !entry.changes?.length) return;
    if (!accepts(entry)) return;
    if (matched >= offset && entries.length < limit) entries.push(entry);
    matched++;
  });
  const budget = { bytes: PAGE_DIFF_BYTES, lines: PAGE_DIFF_LINES };
  const calls: ReviewedCall[] = [];
  for (const entry of entries) {
    const changes: FileDiff[] = [];
    for (const change of (entry.changes ?? []).slice(0, MAX_CHANGES_SHOWN)) {
      changes.push(await diffOf(change, sandbox, projectDir, budget));
    }
    const more = (entry.changes?.length ?? 0) - changes.length;
    calls.push({
      id: entry.id,
      time: entry.time,
      tool: entry.tool,
      outcome: entry.outcome,
      session: sessionLabel(entry.session, viewer),
      args: shownName(argsLine(entry.args)),
      undoable: Boolean(entry.changes?.length) && !entry.noUndo,
      ...(entry.noUndo ? { noUndo: entry.noUndo } : {}),
      ...(entry.undid ? { undid: entry.undid } : {}),
      ...(undoneBy.has(entry.id) ? { undoneBy: undoneBy.get(entry.id) } : {}),
      changes,
      ...(more > 0 ? { moreChanges: more } : {}),
    });
  }
  const shown = { lines: calls.map((c) => c.id), matched, scan };
  return { calls, matched, tools: [...tools].sort(), notes: pageNotes(shown, offset).trim() };
}

/** The arguments as one bounded line (the journal already cut and masked them). */
function argsLine(args: Record<string, unknown>): string {
  const text = JSON.stringify(args) ?? "{}";
  return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

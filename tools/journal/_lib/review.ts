/**
 * What the review app shows (ui://toolhost/review): this project's calls newest first, each with
 * a headline and its changes as diffs (call_diffs.ts), whether it stands or was undone (and by
 * which undo), and the tools the journal names (for the app's filter). Bounded like history: one
 * page of entries is held, the rest counted. The journal's revision lets an open page ask cheaply
 * whether anything landed since it last looked.
 */
import { stat } from "node:fs/promises";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStatePath } from "../../_lib/state.ts";
import { callDiffs, MAX_CHANGES_SHOWN } from "./call_diffs.ts";
import type { FileDiff } from "./change_diffs.ts";
import { type Entry, journalFiles, journalPath } from "./journal.ts";
import { newScan, visitNewestFirst } from "./journal_scan.ts";
import { type Filter, matcher, pageNotes } from "./query.ts";
import { flushJournal } from "./recorder.ts";
import { headline } from "./review_headline.ts";
import { sees, sessionLabel, type Viewer } from "./session.ts";

export const REVIEW_URI = "ui://toolhost/review";

/** A type, not an interface: the tool's output schema sees it as a plain object. */
export type ReviewedCall = {
  id: string;
  time: string;
  tool: string;
  outcome: string;
  session: string;
  /** The paths it named or changed, cut and counted. */
  paths: string;
  /** What it was asked, in a few words (an undo: what it undid). */
  excerpt: string;
  /** The arguments as indented JSON, bounded (behind the app's toggle). */
  args: string;
  /** Whether undo can reverse it (it changed files and kept what it needs). */
  undoable: boolean;
  noUndo?: string;
  /** The calls this one (an undo) reversed. */
  undid?: string[];
  /** The undo call that reversed this one, while that undo stands. */
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
  /** The journal's revision when read: the same one later means nothing landed since. */
  revision: string;
}

const MAX_TOOL_NAMES = 100;
/** Undo links remembered while the journal is read (an undo names at most 50 calls). */
const MAX_UNDO_LINKS = 20_000;
/** Bytes of file content one page may read to make its diffs, and diff lines it may show. */
const PAGE_DIFF_BYTES = 4 << 20;
const PAGE_DIFF_LINES = 20_000;

/**
 * The journal's revision: its current file's identity, size and time, taken after this server's
 * queued lines are written. Any line appended, by any server, changes it; reading it reads no
 * line.
 */
export async function journalRevision(stateDir: string, sandbox: Sandbox): Promise<string> {
  await flushJournal();
  const file = journalPath(projectStatePath(stateDir, sandbox.base));
  const info = await stat(file).catch(() => undefined);
  return info ? `${info.ino}-${info.size}-${info.mtimeMs}` : "none";
}

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
  const revision = await journalRevision(stateDir, sandbox);
  const projectDir = projectStatePath(stateDir, sandbox.base);
  const scan = newScan();
  const accepts = matcher(filter);
  const entries: Entry[] = [];
  const undoneBy = new Map<string, string>();
  /** What the page's undo calls undid, as "tool paths", met further down. */
  const targets = new Map<string, string | undefined>();
  const tools = new Set<string>();
  let matched = 0;
  await visitNewestFirst(journalFiles(journalPath(projectDir)), scan, (entry) => {
    // Newest first: an undo is met before the calls it reversed, and one that was itself undone
    // (a redo came later) reversed nothing that still holds. One the viewer cannot see may have
    // undone one it can (the machine's user undoing a subject's call).
    if (!undoneBy.has(entry.id)) {
      for (const id of entry.undid ?? []) {
        if (undoneBy.size < MAX_UNDO_LINKS && !undoneBy.has(id)) undoneBy.set(id, entry.id);
      }
    }
    if (!sees(viewer, entry)) return;
    // What an undo the viewer sees undid, named only from calls the viewer may see too.
    if (targets.has(entry.id)) {
      const { paths } = headline(entry);
      targets.set(entry.id, paths ? `${entry.tool} ${paths}` : entry.tool);
    }
    if (tools.size < MAX_TOOL_NAMES) tools.add(entry.tool);
    if (!filter.all && !entry.changes?.length) return;
    if (!accepts(entry)) return;
    if (matched >= offset && entries.length < limit) {
      entries.push(entry);
      for (const id of entry.undid ?? []) targets.set(id, undefined);
    }
    matched++;
  });
  const budget = { bytes: PAGE_DIFF_BYTES, lines: PAGE_DIFF_LINES };
  const calls: ReviewedCall[] = [];
  for (const entry of entries) {
    const changes = await callDiffs(entry, sandbox, projectDir, budget);
    const more = (entry.changes?.length ?? 0) -
      Math.min(entry.changes?.length ?? 0, MAX_CHANGES_SHOWN);
    calls.push({
      id: entry.id,
      time: entry.time,
      tool: entry.tool,
      outcome: entry.outcome,
      session: sessionLabel(entry.session, viewer),
      ...headline(entry, (id) => targets.get(id)),
      args: argsText(entry.args),
      undoable: Boolean(entry.changes?.length) && !entry.noUndo,
      ...(entry.noUndo ? { noUndo: entry.noUndo } : {}),
      ...(entry.undid ? { undid: entry.undid } : {}),
      ...(undoneBy.has(entry.id) ? { undoneBy: undoneBy.get(entry.id) } : {}),
      changes,
      ...(more > 0 ? { moreChanges: more } : {}),
    });
  }
  const shown = { lines: calls.map((c) => c.id), matched, scan };
  return {
    calls,
    matched,
    tools: [...tools].sort(),
    notes: pageNotes(shown, offset).trim(),
    revision,
  };
}

/** Characters of the arguments shown behind the app's toggle. */
const ARGS_CHARS = 2000;

/**
 * The arguments as indented JSON, bounded (the journal already cut and masked them); JSON
 * escapes control characters, and the separators and direction marks it leaves are escaped too.
 */
function argsText(args: Record<string, unknown>): string {
  const text = (JSON.stringify(args, null, 2) ?? "{}").replace(
    /[\u2028\u2029\u202a-\u202e\u2066-\u2069]/g,
    (c) => `\\u${c.charCodeAt(0).toString(16)}`,
  );
  return text.length > ARGS_CHARS ? `${text.slice(0, ARGS_CHARS)}…` : text;
}

/** The journal as history shows it: filtered, newest first, paged, one line per call. */
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { shownName } from "../../_lib/text/shown_name.ts";
import { projectStatePath } from "../../_lib/state.ts";
import { type Entry, journalFiles, journalPath } from "./journal.ts";
import { newScan, type Scan, visitNewestFirst } from "./journal_scan.ts";
import { flushJournal } from "./recorder.ts";
import { sees, sessionLabel, type Viewer } from "./session.ts";

/** What history and the review app filter by; `since` and `until` are ISO times (when.ts). */
export interface Filter {
  tool?: string;
  path?: string;
  since?: string;
  until?: string;
}

/** One call as history's structured result gives it: every field bounded like its line. */
export type CallRow = {
  id: string;
  time: string;
  session: string;
  tool: string;
  outcome: string;
  /** The files it changed (at most FILES_SHOWN, each cut), and how many more. */
  files: string[];
  moreFiles?: number;
  undoable: boolean;
  noUndo?: string;
  /** An undo call: the calls it reversed. */
  undid?: string[];
};

/** One page of the entries `filter` matches, newest first, and how many matched in all. */
export interface Page {
  /** Each entry of the page as history shows it (describe()): bounded, unlike the entry. */
  lines: string[];
  /** The same entries as rows (row()). */
  rows: CallRow[];
  matched: number;
  scan: Scan;
}

/**
 * The page of this project's journal from `offset`, `limit` entries long, of the lines `viewer`
 * may see: only the page's lines are held, the rest counted as the journal is read (within
 * journal_scan.ts's bounds).
 */
export async function projectPage(
  stateDir: string,
  sandbox: Sandbox,
  viewer: Viewer,
  filter: Filter,
  offset: number,
  limit: number,
): Promise<Page> {
  // This server's queued lines are written first.
  await flushJournal();
  const file = journalPath(projectStatePath(stateDir, sandbox.base));
  const page: Page = { lines: [], rows: [], matched: 0, scan: newScan() };
  const accepts = matcher(filter);
  await visitNewestFirst(journalFiles(file), page.scan, (entry) => {
    if (!sees(viewer, entry) || !accepts(entry)) return;
    if (page.matched >= offset && page.lines.length < limit) {
      page.lines.push(describe(entry, viewer));
      page.rows.push(row(entry, viewer));
    }
    page.matched++;
  });
  return page;
}

/** Whether an entry passes `filter` (tool, time range, a path it names). */
export function matcher(filter: Filter): (entry: Entry) => boolean {
  const { since, until } = filter;
  return (entry) => {
    if (filter.tool && entry.tool !== filter.tool) return false;
    if (since && entry.time < since) return false;
    if (until && entry.time > until) return false;
    if (filter.path) {
      const named = [
        ...(entry.files ?? []),
        ...Object.values(entry.args).filter((v) => typeof v === "string"),
      ] as string[];
      if (!named.some((p) => p.includes(filter.path!))) return false;
    }
    return true;
  };
}

/** Characters shown of a journal field that may be long (a path, a reason). */
const FIELD_CHARS = 200;
/** Files named per entry; the rest are counted. */
const FILES_SHOWN = 10;

const cut = (text: string, max = FIELD_CHARS) =>
  text.length > max ? `${text.slice(0, max)}… (${text.length} characters)` : text;

/** One entry as history shows `viewer` it: every field from the file bounded, on one line. */
export function describe(entry: Entry, viewer: Viewer): string {
  const listed = entry.files ?? [];
  const more = listed.length > FILES_SHOWN ? ` and ${listed.length - FILES_SHOWN} more` : "";
  const files = listed.length
    ? ` files: ${listed.slice(0, FILES_SHOWN).map((f) => cut(f)).join(", ")}${more}`
    : "";
  const undo = entry.noUndo
    ? ` (not undoable: ${cut(entry.noUndo)})`
    : entry.changes
    ? " (undoable)"
    : "";
  const args = argumentsPreview(entry.args);
  const ms = Number.isFinite(entry.ms) ? entry.ms : "?";
  // One line whatever the fields hold: a newline in a name or a forged field is escaped.
  return shownName(
    `${entry.id} ${entry.time} [${sessionLabel(entry.session, viewer)}] ${entry.tool} ` +
      `${entry.outcome} ${ms}ms${files}${undo} ` +
      (args.length > 200 ? args.slice(0, 200) + "…" : args),
  );
}

/** One entry as a row of history's structured result, bounded as its line is. */
export function row(entry: Entry, viewer: Viewer): CallRow {
  const listed = entry.files ?? [];
  const line = (text: string) => shownName(cut(text));
  return {
    id: line(entry.id),
    time: line(entry.time),
    session: sessionLabel(entry.session, viewer),
    tool: line(entry.tool),
    outcome: entry.outcome,
    files: listed.slice(0, FILES_SHOWN).map(line),
    ...(listed.length > FILES_SHOWN ? { moreFiles: listed.length - FILES_SHOWN } : {}),
    undoable: Boolean(entry.changes?.length) && !entry.noUndo,
    ...(entry.noUndo ? { noUndo: line(entry.noUndo) } : {}),
    ...(entry.undid ? { undid: entry.undid.map(line) } : {}),
  };
}

/** What a page leaves out: the entries after it, the lines not read or skipped. */
export function pageNotes(page: Pick<Page, "lines" | "matched" | "scan">, offset: number): string {
  const notes: string[] = [];
  const after = page.matched - offset - page.lines.length;
  if (after > 0) notes.push(`${after} more: offset ${offset + page.lines.length}`);
  if (page.scan.stopped) {
    notes.push(`older lines of the journal were not read: it was read until ${page.scan.stopped}`);
  }
  if (page.scan.skipped > 0) {
    notes.push(`${page.scan.skipped} damaged or unreadable journal lines skipped`);
  }
  return notes.length ? `\n(${notes.join("; ")})` : "";
}

/**
 * The arguments as JSON for history, without copying what is cut away: strings past 200
 * characters and arrays past 20 items are cut before they are serialized.
 */
function argumentsPreview(args: Record<string, unknown>): string {
  let budget = 400;
  return JSON.stringify(args, (_key, value) => {
    if (budget <= 0) return undefined;
    if (typeof value === "string") {
      budget -= Math.min(value.length, 200);
      return value.length > 200 ? value.slice(0, 200) : value;
    }
    if (Array.isArray(value) && value.length > 20) return value.slice(0, 20);
    return value;
  }) ?? "{}";
}

/**
 * A call's headline in the review app: what it was about in a few words (the paths it names and
 * a short excerpt of what it was asked: a command, an edit, a search), so the raw arguments can
 * stay behind a toggle. Everything is cut and made one line.
 */
import { shownName } from "../../_lib/text/shown_name.ts";
import type { Entry } from "./journal.ts";

/** Characters of an excerpt. */
const EXCERPT_CHARS = 80;
/** Paths named before "and N more". */
const PATHS_SHOWN = 3;

/** Arguments that hold what a call was asked, in the order one is chosen. */
const EXCERPT_KEYS = [
  "command",
  "edits",
  "old_string",
  "pattern",
  "query",
  "url",
  "text",
  "source",
  "content",
  "goal",
  "name",
  "action",
];

/** Arguments that name a path. */
const PATH_KEYS = ["path", "paths", "source", "destination", "save_to", "plan_file"];

export interface Headline {
  /** The paths it named or changed, as shown to the model, cut and counted. */
  paths: string;
  /** A short excerpt of what it was asked ("" when nothing tells). */
  excerpt: string;
}

/**
 * What `entry` was about; `undone` gives an undo call's targets as "tool paths".
 *
 * @example
 * ```ts
 * headline(editEntry); // { paths: "notes.txt", excerpt: "“old line” → “new line”" }
 * ```
 */
export function headline(entry: Entry, undone?: (id: string) => string | undefined): Headline {
  const args = entry.args;
  const { source, destination } = args;
  if (typeof source === "string" && typeof destination === "string") {
    return { paths: `${cut(source, 120)} → ${cut(destination, 120)}`, excerpt: "" };
  }
  const named = entry.files?.length ? entry.files : PATH_KEYS.flatMap((key) => pathsOf(args[key]));
  const unique = [...new Set(named)];
  const paths = unique.slice(0, PATHS_SHOWN).map((p) => cut(p, 120)).join(", ") +
    (unique.length > PATHS_SHOWN ? ` and ${unique.length - PATHS_SHOWN} more` : "");
  if (entry.undid?.length) {
    const what = entry.undid.slice(0, 3).map((id) => undone?.(id) ?? id).join("; ");
    const more = entry.undid.length > 3 ? ` and ${entry.undid.length - 3} more` : "";
    return { paths, excerpt: cut(`undid ${what}${more}`, EXCERPT_CHARS * 2) };
  }
  return { paths, excerpt: excerptOf(args) };
}

function pathsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  return Array.isArray(value) ? value.filter((v) => typeof v === "string").slice(0, 20) : [];
}

function excerptOf(args: Record<string, unknown>): string {
  for (const key of EXCERPT_KEYS) {
    const value = args[key];
    if (key === "edits" && Array.isArray(value) && value.length > 0) {
      const first = value[0] as Record<string, unknown>;
      const more = value.length > 1 ? ` (+${value.length - 1} more)` : "";
      return `${quote(first.old_string)} → ${quote(first.new_string)}${more}`;
    }
    if (key === "old_string" && typeof value === "string") {
      return `${quote(value)} → ${quote(args.new_string)}`;
    }
    // move_file's and copy_file's source is a path, named already; notebook_edit's is text.
    if (key === "source" && "destination" in args) continue;
    if (typeof value === "string" && value.trim()) {
      return cut(firstLine(value), EXCERPT_CHARS);
    }
  }
  return "";
}

/** A string argument as a short quotation. */
function quote(value: unknown): string {
  return typeof value === "string" ? `“${cut(firstLine(value), EXCERPT_CHARS / 2)}”` : "“”";
}

function firstLine(text: string): string {
  const trimmed = text.trim();
  const end = trimmed.indexOf("\n");
  return end < 0 ? trimmed : `${trimmed.slice(0, end)} …`;
}

function cut(text: string, max: number): string {
  const one = shownName(text);
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}

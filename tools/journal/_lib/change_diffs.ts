/**
 * A journaled change as a person reviews it: what the path held before and after, as diff hunks
 * when both are text. The content before is the blob undo kept; the content after is a blob too
 * when a later call kept it, else the file itself while its digest still matches. Everything is
 * bounded: bytes read per side and per page, lines per diff, and the diff's own work.
 */
import type { FileHandle } from "node:fs/promises";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import type { Change, PathState } from "./journal.ts";
import { openBlob, pathState, sha256 } from "./snapshots.ts";

/** One hunk, as `diff` makes it: lines start with " ", "-" or "+". */
export interface Hunk {
  oldStart: number;
  oldLines: number;
  newStart: number;
  newLines: number;
  lines: string[];
}

export interface FileDiff {
  /** The path as shown to the model. */
  path: string;
  /** Where it was moved or copied from. */
  from?: string;
  kind: "added" | "deleted" | "modified" | "moved" | "copied" | "other";
  hunks?: Hunk[];
  /** Lines added and removed in all, shown or not. */
  added?: number;
  removed?: number;
  /** Why there is no diff, or what a non-file change was. */
  note?: string;
  /** Lines were left out past MAX_DIFF_LINES. */
  truncated?: boolean;
}

/** What a change's diff is made of: hunks within the bounds, or why there are none. */
export type TextDiff =
  | { hunks: Hunk[]; added: number; removed: number; truncated?: boolean }
  | { note: string };

/** The largest side shown as text; larger files are named, not diffed. */
export const MAX_SIDE_BYTES = 256 << 10;
/** Lines of hunks kept per change. */
export const MAX_DIFF_LINES = 2_000;
/** The most edits the diff looks for before it gives up (its work stays bounded). */
const MAX_EDIT_LENGTH = 4_000;

/** What a page of diffs may still read and show, shared by its changes. */
export interface DiffBudget {
  bytes: number;
  lines: number;
}

export type Side = { text: string } | { note: string };

/** `change` as a reviewer sees it, reading what it needs within `budget`. */
export async function diffOf(
  change: Change,
  sandbox: Sandbox,
  projectDir: string,
  budget: DiffBudget,
): Promise<FileDiff> {
  const path = sandbox.display(change.path);
  const { before, after } = change;
  if (change.from) {
    return { path, from: sandbox.display(change.from), kind: "moved", note: "directory moved" };
  }
  const kind = before.kind === "absent"
    ? "added"
    : after.kind === "absent"
    ? "deleted"
    : "modified";
  if (!isFileOrAbsent(before) || !isFileOrAbsent(after)) {
    return { path, kind: "other", note: `${describe(before)} → ${describe(after)}` };
  }
  const old = await sideOf(before, projectDir, budget);
  const now = await sideOf(after, projectDir, budget, { sandbox, real: change.path });
  if ("note" in old || "note" in now) {
    return {
      path,
      kind,
      note: "note" in old ? `before: ${old.note}` : `after: ${(now as { note: string }).note}`,
    };
  }
  const diff = await diffTexts(old.text, now.text, budget);
  if ("note" in diff) return { path, kind, note: diff.note };
  if (diff.hunks.length === 0) {
    const note = before.kind === "file" && after.kind === "file" && before.mode !== after.mode
      ? `mode ${octal(before.mode)} → ${octal(after.mode)}`
      : "the text is the same";
    return { path, kind, note };
  }
  return { path, kind, ...diff };
}

/**
 * Hunks (3 lines of context) from `old` to `now`, at most MAX_DIFF_LINES and the page's lines
 * left, with the lines added and removed counted in all.
 *
 * @example
 * ```ts
 * await diffTexts("a\nb\n", "a\nc\n", { bytes: 1 << 20, lines: 100 });
 * // { hunks: [{ oldStart: 1, …, lines: [" a", "-b", "+c"] }], added: 1, removed: 1 }
 * ```
 */
export async function diffTexts(old: string, now: string, budget: DiffBudget): Promise<TextDiff> {
  const { structuredPatch } = await import("diff");
  const patch = structuredPatch("a", "b", old, now, "", "", {
    context: 3,
    maxEditLength: MAX_EDIT_LENGTH,
  });
  if (!patch) return { note: "too many changed lines to show as a diff" };
  let left = Math.min(MAX_DIFF_LINES, budget.lines);
  let truncated = false;
  let added = 0;
  let removed = 0;
  const hunks: Hunk[] = [];
  for (const hunk of patch.hunks) {
    for (const line of hunk.lines) {
      if (line[0] === "+") added++;
      else if (line[0] === "-") removed++;
    }
    if (left <= 0) {
      truncated = true;
      continue;
    }
    const lines = hunk.lines.length > left ? hunk.lines.slice(0, left) : hunk.lines;
    truncated ||= lines.length < hunk.lines.length;
    left -= lines.length;
    hunks.push({ ...hunk, lines });
  }
  budget.lines -= Math.min(MAX_DIFF_LINES, budget.lines) - left;
  return truncated ? { hunks, added, removed, truncated } : { hunks, added, removed };
}

export function isFileOrAbsent(state: PathState): boolean {
  return state.kind === "file" || state.kind === "absent";
}

export function describe(state: PathState): string {
  switch (state.kind) {
    case "absent":
      return "nothing";
    case "file":
      return `a file of ${state.size} bytes`;
    case "dir":
      return "a directory";
    case "link":
      return `a link to ${state.target.slice(0, 200)}`;
    case "tree":
      return `a directory tree of ${state.entries} entries`;
  }
}

const octal = (mode: number) => mode.toString(8).padStart(4, "0");

/**
 * The text a file state held: a kept blob, or (`current`) the file itself while it still holds
 * that content.
 */
export async function sideOf(
  state: PathState,
  projectDir: string,
  budget: DiffBudget,
  current?: { sandbox: Sandbox; real: string },
): Promise<Side> {
  if (state.kind === "absent") return { text: "" };
  if (state.kind !== "file") return { note: describe(state) };
  if (state.size > MAX_SIDE_BYTES) return { note: `${state.size} bytes, too large to show` };
  if (state.size > budget.bytes || budget.lines <= 0) {
    return { note: "not shown: this page read its share of files; filter by path" };
  }
  let handle: FileHandle | undefined = state.sha
    ? await openBlob(projectDir, state.sha)
    : undefined;
  const onDisk = !handle;
  if (!handle && current && current.sandbox.contains(current.real)) {
    const now = await pathState(current.sandbox, current.real).catch(() => undefined);
    if (now?.state.kind === "file" && now.state.sha === state.sha) {
      handle = await current.sandbox.openForReading(current.real).catch(() => undefined);
    }
  }
  if (!handle) return { note: "its content is no longer kept" };
  try {
    const bytes = new Uint8Array(Math.min(state.size, MAX_SIDE_BYTES));
    const { bytesRead } = await handle.read(bytes, 0, bytes.length, 0);
    budget.bytes -= bytesRead;
    const read = bytes.subarray(0, bytesRead);
    // The file may have changed between its digest and this read.
    if (onDisk && sha256(read) !== state.sha) return { note: "its content is no longer kept" };
    if (read.includes(0)) return { note: "binary content" };
    try {
      return { text: new TextDecoder("utf-8", { fatal: true }).decode(read) };
    } catch {
      return { note: "not UTF-8 text" };
    }
  } finally {
    await handle.close();
  }
}

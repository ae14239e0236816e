/**
 * One call's changes as a reviewer reads them: a file removed at one path and added at another
 * is a move ("moved a → b", unchanged, or with a diff of what changed on the way), a copy_file
 * destination is a copy of its source, and everything else is diffed alone (change_diffs.ts).
 */
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import {
  describe,
  type DiffBudget,
  diffOf,
  diffTexts,
  type FileDiff,
  isFileOrAbsent,
  type Side,
  sideOf,
} from "./change_diffs.ts";
import type { Change, Entry } from "./journal.ts";

/** Changes shown per call; the rest are counted. */
export const MAX_CHANGES_SHOWN = 20;
/** A removed and an added file compared for a move with changes, at most, per call. */
const MAX_MOVE_CANDIDATES = 8;
/** Share of the added file's lines that must be the removed file's for a move with changes. */
const MOVE_SIMILARITY = 0.5;

/**
 * The diffs of `entry`'s first MAX_CHANGES_SHOWN changes, within `budget`.
 *
 * @example
 * ```ts
 * const diffs = await callDiffs(entry, sandbox, projectDir, { bytes: 4 << 20, lines: 20_000 });
 * // [{ path: "b.txt", from: "a.txt", kind: "moved", note: "unchanged" }]
 * ```
 */
export async function callDiffs(
  entry: Entry,
  sandbox: Sandbox,
  projectDir: string,
  budget: DiffBudget,
): Promise<FileDiff[]> {
  const changes = (entry.changes ?? []).slice(0, MAX_CHANGES_SHOWN);
  const shown = (path: string) => sandbox.display(path);
  const out = new Map<Change, FileDiff>();
  const paired = new Set<Change>();
  /** Sources of moves: said with their destination, not apart. */
  const absorbed = new Set<Change>();
  // Moves: the same content removed at one path and added at another.
  const removedBySha = new Map<string, Change>();
  for (const change of changes) {
    if (change.before.kind === "file" && change.after.kind === "absent" && !change.from) {
      removedBySha.set(change.before.sha, change);
    }
  }
  for (const change of changes) {
    if (change.after.kind !== "file" || change.from) continue;
    const source = removedBySha.get(change.after.sha);
    if (!source || source === change) continue;
    removedBySha.delete(change.after.sha);
    paired.add(source).add(change);
    absorbed.add(source);
    out.set(change, {
      path: shown(change.path),
      from: shown(source.path),
      kind: "moved",
      note: change.before.kind === "absent"
        ? "unchanged"
        : `unchanged, replacing ${describe(change.before)}`,
    });
  }
  for (const change of changes) {
    if (paired.has(change)) continue;
    if (change.from) {
      out.set(change, {
        path: shown(change.path),
        from: shown(change.from),
        kind: "moved",
        note: change.after.kind === "tree" ? `${describe(change.after)}, unchanged` : "unchanged",
      });
    } else if (copiedFrom(entry, change)) {
      const from = copiedFrom(entry, change)!;
      const note = change.after.kind === "tree"
        ? describe(change.after)
        : change.before.kind !== "absent"
        ? `replacing ${describe(change.before)}`
        : undefined;
      out.set(change, {
        path: shown(change.path),
        from,
        kind: "copied",
        ...(note ? { note } : {}),
      });
    }
  }
  await movesWithChanges(changes.filter((c) => !paired.has(c) && !out.has(c)), {
    sandbox,
    projectDir,
    budget,
    out,
    absorbed,
  });
  const diffs: FileDiff[] = [];
  for (const change of changes) {
    if (absorbed.has(change)) continue;
    diffs.push(out.get(change) ?? await diffOf(change, sandbox, projectDir, budget));
  }
  return diffs;
}

/** Where copy_file copied `change` from: its `source`, when the change is its destination. */
function copiedFrom(entry: Entry, change: Change): string | undefined {
  const { source, destination } = entry.args;
  if (entry.tool !== "copy_file" || typeof source !== "string") return undefined;
  if (typeof destination !== "string" || change.after.kind === "absent") return undefined;
  return source;
}

interface Pairing {
  sandbox: Sandbox;
  projectDir: string;
  budget: DiffBudget;
  out: Map<Change, FileDiff>;
  absorbed: Set<Change>;
}

/**
 * Files a call removed and added whose texts are mostly the same (a command's `git mv` and an
 * edit): said as moved, with the diff of what changed on the way. Few are compared, each pair
 * once, and only texts the page may read anyway.
 */
async function movesWithChanges(changes: Change[], pairing: Pairing): Promise<void> {
  const { sandbox, projectDir, budget, out, absorbed } = pairing;
  const removed = changes.filter((c) => c.before.kind === "file" && c.after.kind === "absent");
  const added = changes.filter((c) => c.before.kind === "absent" && c.after.kind === "file");
  if (removed.length === 0 || added.length === 0) return;
  if (removed.length > MAX_MOVE_CANDIDATES || added.length > MAX_MOVE_CANDIDATES) return;
  const texts = new Map<Change, string>();
  for (const change of [...removed, ...added]) {
    const side: Side = change.after.kind === "absent"
      ? await sideOf(change.before, projectDir, budget)
      : await sideOf(change.after, projectDir, budget, { sandbox, real: change.path });
    if ("text" in side && isFileOrAbsent(change.before)) texts.set(change, side.text);
  }
  // Lines as a person counts them: "new\n" is one.
  const lines = (text: string) => text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
  const scored: { from: Change; to: Change; score: number }[] = [];
  for (const from of removed) {
    for (const to of added) {
      const a = texts.get(from);
      const b = texts.get(to);
      if (a === undefined || b === undefined) continue;
      const diff = await diffTexts(a, b, { bytes: budget.bytes, lines: 0 });
      if ("note" in diff) continue;
      const kept = lines(b) - diff.added;
      const score = kept / Math.max(lines(a), lines(b), 1);
      if (kept > 0 && score >= MOVE_SIMILARITY) scored.push({ from, to, score });
    }
  }
  scored.sort((x, y) => y.score - x.score);
  const taken = new Set<Change>();
  for (const { from, to } of scored) {
    if (taken.has(from) || taken.has(to)) continue;
    taken.add(from).add(to);
    const diff = await diffTexts(texts.get(from)!, texts.get(to)!, budget);
    const moved = { path: sandbox.display(to.path), from: sandbox.display(from.path) };
    out.set(
      to,
      "note" in diff ? { ...moved, kind: "moved", note: diff.note } : {
        ...moved,
        kind: "moved",
        ...diff,
      },
    );
    absorbed.add(from);
  }
}

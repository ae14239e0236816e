/**
 * A command's observed change as the journal records it and as its result says it. The changes
 * are put in the order undo needs (it reverses them from the last): what went away, deepest
 * first; what changed in place; what came, shallowest first. So undo removes what a command made
 * (files before their directory), puts back a removed directory before its files, and turns a
 * file that became a directory (or the other way) back once what it held is gone.
 */
import { sep } from "node:path";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { shownName } from "../../../_lib/text/shown_name.ts";
import type { Change } from "../journal.ts";

const depth = (change: Change) => change.path.split(sep).length;

/** `changes` in the order undo reverses them from (see above). */
export function orderForUndo(changes: Change[]): Change[] {
  const went = changes.filter((c) => c.after.kind === "absent");
  const came = changes.filter((c) => c.before.kind === "absent" && c.after.kind !== "absent");
  const changed = changes.filter((c) => c.before.kind !== "absent" && c.after.kind !== "absent");
  went.sort((a, b) => depth(b) - depth(a) || cmp(a.path, b.path));
  came.sort((a, b) => depth(a) - depth(b) || cmp(a.path, b.path));
  changed.sort((a, b) => cmp(a.path, b.path));
  return [...went, ...changed, ...came];
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** Names shown per kind of change; the rest are counted. */
const SHOWN = 8;

function names(list: string[]): string {
  const head = list.slice(0, SHOWN).map((name) => shownName(name)).join(", ");
  return list.length > SHOWN ? `${head} and ${list.length - SHOWN} more` : head;
}

/** What the result says of what the journal recorded of the command. */
export interface Said {
  changes: Change[];
  renamed: [string, string][];
  /** Why the change is not undoable, if it is not. */
  noUndo?: string;
  /** Entries ignored (or otherwise not snapshotted) that changed, relative to their root. */
  unseen: string[];
  /** Paths another call changed meanwhile, left out, with who. */
  others: [string, string][];
  /** Other commands of this server that were running too. */
  alongside: string[];
}

/** The lines appended to the command's result. */
export function describeObserved(said: Said, sandbox: Sandbox): string {
  const shown = (path: string) => sandbox.display(path);
  const lines: string[] = [];
  const moved = new Set(said.renamed.flat());
  const made: string[] = [];
  const changed: string[] = [];
  const removed: string[] = [];
  for (const c of said.changes) {
    if (moved.has(c.path)) continue;
    const dir = c.after.kind === "dir" || (c.after.kind === "absent" && c.before.kind === "dir");
    const name = shown(c.path) + (dir ? "/" : "");
    if (c.before.kind === "absent") made.push(name);
    else if (c.after.kind === "absent") removed.push(name);
    else changed.push(name);
  }
  const parts: string[] = [];
  if (made.length) parts.push(`created ${names(made)}`);
  if (changed.length) parts.push(`changed ${names(changed)}`);
  if (removed.length) parts.push(`removed ${names(removed)}`);
  if (said.renamed.length) {
    parts.push(
      `renamed ${names(said.renamed.map(([from, to]) => `${shown(from)} → ${shown(to)}`))}`,
    );
  }
  if (parts.length) {
    const how = said.noUndo
      ? "journaled, not undoable"
      : "journaled: `undo` reverts it, `history` lists it";
    lines.push(`Files the command changed (${how}): ${parts.join("; ")}.`);
  }
  if (said.noUndo) lines.push(`Not kept for undo: ${shownName(said.noUndo)}.`);
  if (said.unseen.length) {
    lines.push(`Ignored (.gitignore) or not files, not kept for undo: ${names(said.unseen)}.`);
  }
  if (said.others.length) {
    lines.push(
      `Changed meanwhile by another call, so not counted as this command's: ${
        names(said.others.map(([path, who]) => `${shown(path)} (${who})`))
      }.`,
    );
  }
  if (said.alongside.length && said.changes.length) {
    lines.push(
      `Also running meanwhile: ${names(said.alongside)}; what it wrote in that time is counted ` +
        "here.",
    );
  }
  return lines.join("\n");
}

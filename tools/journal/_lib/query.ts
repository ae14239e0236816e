/** The journal as history shows it: filtered, newest first, paged, one line per call. */
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStatePath } from "../../_lib/state.ts";
import { type Entry, journalPath, readEntries } from "./journal.ts";
import { flushJournal } from "./recorder.ts";

export interface Filter {
  tool?: string;
  path?: string;
  since?: string;
  until?: string;
}

export async function projectEntries(stateDir: string, sandbox: Sandbox): Promise<Entry[]> {
  // This server's queued lines are written first.
  await flushJournal();
  return await readEntries(journalPath(projectStatePath(stateDir, sandbox.base)));
}

export function matches(entry: Entry, filter: Filter): boolean {
  if (filter.tool && entry.tool !== filter.tool) return false;
  if (filter.since && entry.time < new Date(filter.since).toISOString()) return false;
  if (filter.until && entry.time > new Date(filter.until).toISOString()) return false;
  if (filter.path) {
    const named = [
      ...(entry.files ?? []),
      ...Object.values(entry.args).filter((v) => typeof v === "string"),
    ] as string[];
    if (!named.some((p) => p.includes(filter.path!))) return false;
  }
  return true;
}

export function describe(entry: Entry): string {
  const files = entry.files?.length ? ` files: ${entry.files.join(", ")}` : "";
  const undo = entry.changes
    ? (entry.noUndo ? ` (not undoable: ${entry.noUndo})` : " (undoable)")
    : "";
  const args = JSON.stringify(entry.args);
  return `${entry.id} ${entry.time} ${entry.tool} ${entry.outcome} ${entry.ms}ms${files}${undo} ` +
    (args.length > 200 ? args.slice(0, 200) + "…" : args);
}

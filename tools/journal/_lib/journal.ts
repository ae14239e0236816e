/**
 * The journal: one JSON line per tool call in the project's state directory (journal.jsonl),
 * appended under the state lock (so two servers never interleave a line), rotated by size
 * (journal.1.jsonl, journal.2.jsonl are kept), read back newest first. A line that does not
 * parse (a crash mid-write) is skipped, never fatal.
 */
import { randomBytes } from "node:crypto";
import { appendFile, readFile, rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { withLock } from "../../_lib/state.ts";
import type { TraceContext } from "../../../mcp/trace.ts";

/** Rotated files kept besides the current one. */
export const ROTATED = 2;

/** What undo needs of one path: its state before the call and after it. */
export type PathState =
  | { kind: "absent" }
  | { kind: "file"; sha: string; mode: number; size: number }
  | { kind: "dir" }
  | { kind: "link"; target: string }
  | TreeState;

/**
 * A directory with what it holds, described by a manifest kept as a blob (tree_manifest.ts). With
 * `content`, every file's content is kept too (a deleted tree, restorable); without, the
 * manifest holds each entry's identity and times instead (a moved or copied tree: enough to
 * tell whether it is still as toolhost left it, not to recreate it).
 */
export interface TreeState {
  kind: "tree";
  content: boolean;
  /** SHA-256 of the manifest blob. */
  manifest: string;
  /** Entries below the top. */
  entries: number;
  /** Bytes of its files. */
  bytes: number;
  /**
   * A content manifest: the digest its shape had when it was kept (not kept itself), to tell
   * whether a call that was to delete the tree left it untouched.
   */
  shape?: string;
}

export interface Change {
  /** The real path. */
  path: string;
  before: PathState;
  after: PathState;
  /** A directory moved here from this path: undo moves it back (by a rename). */
  from?: string;
}

export interface Entry {
  id: string;
  /** ISO time the call ended. */
  time: string;
  era: string;
  tool: string;
  args: Record<string, unknown>;
  outcome: "ok" | "error" | "cancelled";
  ms: number;
  /** Files the call changed, as shown to the model. */
  files?: string[];
  /** What undo restores, in the order the call changed them. */
  changes?: Change[];
  /** Why this call cannot be undone, when it changed files but kept too little. */
  noUndo?: string;
  /** An undo call: the entries it reversed. */
  undid?: string[];
  /** A note of the writer (tool "journal"): entries dropped when its queue overflowed. */
  dropped?: number;
  /** The trace the client named for the call (traceparent, tracestate, baggage; bounded). */
  trace?: TraceContext;
}

/** Random hex for ids, drawn in bulk: one call into crypto per 512 ids, not one per call. */
let randomHex = "";
let randomAt = 0;

export function newId(): string {
  if (randomAt >= randomHex.length) {
    randomHex = randomBytes(3 * 512).toString("hex");
    randomAt = 0;
  }
  randomAt += 6;
  const now = Date.now();
  // The time part is the same for every id made in one millisecond: formatted once.
  if (now !== idTime.ms) idTime = { ms: now, text: now.toString(36) };
  return `${idTime.text}-${randomHex.slice(randomAt - 6, randomAt)}`;
}

let idTime = { ms: -1, text: "" };

export function journalPath(projectDir: string): string {
  return join(projectDir, "journal.jsonl");
}

function rotatedPath(file: string, n: number): string {
  return file.replace(/\.jsonl$/, `.${n}.jsonl`);
}

/** Appends `entry` as one line, rotating first when the file would pass `maxBytes`. */
export async function append(file: string, entry: Entry, maxBytes: number): Promise<void> {
  await appendMany(file, [entry], maxBytes);
}

/**
 * Appends `entries` as lines under one lock with one write (the background writer's batch),
 * rotating first when the file would pass `maxBytes`.
 */
export async function appendMany(file: string, entries: Entry[], maxBytes: number): Promise<void> {
  if (entries.length === 0) return;
  const text = entries.map((entry) => JSON.stringify(entry) + "\n").join("");
  const length = Buffer.byteLength(text);
  await withLock(file, async () => {
    const size = await stat(file).then((s) => s.size, () => 0);
    if (size > 0 && size + length > maxBytes) {
      for (let n = ROTATED; n >= 1; n--) {
        await rename(n === 1 ? file : rotatedPath(file, n - 1), rotatedPath(file, n)).catch(
          () => {},
        );
      }
    }
    // One write with O_APPEND: a crash leaves at most a torn last line, which readers skip.
    await appendFile(file, text, { mode: 0o600 });
  });
}

/** Every entry kept, newest first; torn or foreign lines are skipped. */
export async function readEntries(file: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (let n = 0; n <= ROTATED; n++) {
    const text = await readFile(n === 0 ? file : rotatedPath(file, n), "utf8").catch(() => "");
    const lines = text.split("\n");
    for (let i = lines.length - 1; i >= 0; i--) {
      if (lines[i] === "") continue;
      try {
        const entry = JSON.parse(lines[i]);
        if (entry && typeof entry.id === "string" && typeof entry.tool === "string") {
          entries.push(entry);
        }
      } catch {
        // A torn line: skipped.
      }
    }
  }
  return entries;
}

/**
 * The journal: one JSON line per tool call in the project's state directory (journal.jsonl),
 * appended under the state lock (so two servers never interleave a line), rotated by size
 * (journal.1.jsonl, journal.2.jsonl are kept), read back newest first within bounds
 * (journal_scan.ts). A line that does not parse (a crash mid-write) is skipped, never fatal.
 */
import { randomBytes } from "node:crypto";
import { rename, stat } from "node:fs/promises";
import { join } from "node:path";
import { Buffer } from "node:buffer";
import { openByPath } from "../../_lib/sandbox/mod.ts";
import { withLock } from "../../_lib/state.ts";
import { newScan, type Scan, visitNewestFirst } from "./journal_scan.ts";

/** Rotated files kept besides the current one. */
export const ROTATED = 2;

import type { Entry } from "./journal_entry.ts";
export type { Change, Entry, PathState, TreeState } from "./journal_entry.ts";

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
    // Never through a link, never blocking: a FIFO put there would hold the writer for ever.
    const handle = await openByPath(file, "append", 0o600);
    try {
      if (!(await handle.stat()).isFile()) throw new Error(`${file} is not a regular file`);
      await handle.writeFile(text);
    } finally {
      await handle.close();
    }
  });
}

/** The current file and the rotated ones, newest first. */
export function journalFiles(file: string): string[] {
  return [file, ...Array.from({ length: ROTATED }, (_, n) => rotatedPath(file, n + 1))];
}

/** Every entry kept, newest first, within the scan's bounds; torn or foreign lines are skipped. */
export async function readEntries(file: string, scan: Scan = newScan()): Promise<Entry[]> {
  const entries: Entry[] = [];
  await visitNewestFirst(journalFiles(file), scan, (entry) => {
    entries.push(entry);
  });
  return entries;
}

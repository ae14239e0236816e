/**
 * Reading the journal back, newest first, within bounds fixed before anything is built: each file
 * is read from its end in small chunks, a line longer than MAX_LINE_BYTES is skipped without being
 * held, at most SCAN_LINES lines and SCAN_BYTES bytes are read in all, and only a line whose
 * fields have the types and sizes toolhost writes becomes an entry. The state directory's files
 * may have been written by anyone who can write there, or torn by a disk: nothing in them is
 * trusted to be small or well formed.
 */
import type { FileHandle } from "node:fs/promises";
import { heapPressure } from "../../../mcp/wire/mod.ts";
import { openByPath } from "../../_lib/sandbox/mod.ts";
import { isOwnerTag } from "../../_lib/owner.ts";
import type { Change, Entry, PathState } from "./journal_entry.ts";

/**
 * A longer line is no line toolhost wrote: an undo of 50 calls writes some tens of KB, and a
 * call's arguments are cut (300 characters a string, 20 items an array).
 */
export const MAX_LINE_BYTES = 256 << 10;
/** Lines read at most, over the current file and the rotated ones. */
export const SCAN_LINES = 100_000;
/** Bytes read at most, over the current file and the rotated ones. */
export const SCAN_BYTES = 32 << 20;
/** A journal line naming more changes than this is damaged (an undo of 50 calls has ~100). */
export const MAX_CHANGES = 256;
/** An undo reverses at most 50 calls. */
export const MAX_UNDID = 50;
const CHUNK_BYTES = 64 << 10;

/** What a scan read, and why it stopped before the oldest line, if it did. */
export interface Scan {
  lines: number;
  bytes: number;
  /** Lines skipped: torn, over-long, or not an entry toolhost writes. */
  skipped: number;
  /** Set when the bounds stopped the scan before the oldest line. */
  stopped?: string;
}

export function newScan(): Scan {
  return { lines: 0, bytes: 0, skipped: 0 };
}

/**
 * Calls `visit` with the files' entries (and the length of each one's line), newest first, within
 * the bounds, until it returns false; `scan` says what was read. Lines are read a chunk at a time
 * and visited synchronously. What a visitor keeps is its to bound: a line may take MAX_LINE_BYTES.
 *
 * @example
 * const scan = newScan();
 * await visitNewestFirst([journal], scan, (entry) => entry.id !== wanted);
 */
export async function visitNewestFirst(
  files: string[],
  scan: Scan,
  visit: (entry: Entry, lineBytes: number) => boolean | void,
): Promise<void> {
  for (const file of files) {
    const more = await linesFromEnd(file, scan, (line) => {
      const entry = parseEntry(line);
      if (entry) return visit(entry, line.length);
      scan.skipped++;
    });
    if (more === false || scan.stopped) return;
  }
}

/** Opens a journal file only if it is a regular file (a FIFO put there must not hold a read). */
async function openRegular(file: string): Promise<FileHandle | undefined> {
  const handle = await openByPath(file)
    .catch(() => undefined);
  if (!handle) return undefined;
  if (!(await handle.stat().then((s) => s.isFile(), () => false))) {
    await handle.close();
    return undefined;
  }
  return handle;
}

/**
 * Calls `line` with the lines of `file` from its end, each as bytes, until it returns false (then
 * false); over-long lines are skipped (counted).
 */
async function linesFromEnd(
  file: string,
  scan: Scan,
  line: (bytes: Uint8Array) => boolean | void,
): Promise<boolean> {
  const handle = await openRegular(file);
  if (!handle) return true;
  try {
    let at = (await handle.stat()).size;
    /** The end of the line being gathered, in chunks read (the first is the line's start). */
    let pieces: Uint8Array[] = [];
    let length = 0;
    let overlong = false;
    const finish = (): boolean | void => {
      let more: boolean | void = true;
      if (overlong) scan.skipped++;
      else if (length > 0) {
        scan.lines++;
        more = line(pieces.length === 1 ? pieces[0] : joined(pieces, length));
      }
      pieces = [];
      length = 0;
      overlong = false;
      return more;
    };
    while (at > 0) {
      if (scan.lines >= SCAN_LINES || scan.bytes >= SCAN_BYTES) {
        scan.stopped = scan.lines >= SCAN_LINES
          ? `${SCAN_LINES} lines were read`
          : `${SCAN_BYTES / (1 << 20)} MiB were read`;
        return true;
      }
      const size = Math.min(CHUNK_BYTES, at);
      at -= size;
      const chunk = new Uint8Array(size);
      const { bytesRead } = await handle.read(chunk, 0, size, at);
      if (bytesRead !== size) return true; // shrunk meanwhile: what is left is not trusted
      scan.bytes += size;
      // Lines parsed and dropped, megabytes of them in one call: collected in step, as messages are.
      heapPressure.noteWork(size);
      let end = size;
      for (;;) {
        const newline = end > 0 ? chunk.lastIndexOf(10, end - 1) : -1;
        const piece = chunk.subarray(newline + 1, end);
        if (!overlong && piece.length > 0) {
          length += piece.length;
          if (length > MAX_LINE_BYTES) {
            overlong = true;
            pieces = [];
          } else pieces.unshift(piece);
        }
        if (newline < 0) break;
        if (finish() === false) return false;
        end = newline;
      }
    }
    return finish() !== false;
  } finally {
    await handle.close();
  }
}

function joined(pieces: Uint8Array[], length: number): Uint8Array {
  const whole = new Uint8Array(length);
  let at = 0;
  for (const piece of pieces) {
    whole.set(piece, at);
    at += piece.length;
  }
  return whole;
}

const decoder = new TextDecoder();

/** A line as an entry, or undefined when it is not one toolhost writes. */
export function parseEntry(line: Uint8Array): Entry | undefined {
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(line));
  } catch {
    return undefined; // torn, or not JSON
  }
  return isEntry(value) ? value : undefined;
}

const isObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const text = (v: unknown, max: number): v is string => typeof v === "string" && v.length <= max;
const SHA = /^[0-9a-f]{64}$/;
const MAX_PATH = 4096;

function isEntry(v: unknown): v is Entry {
  if (!isObject(v)) return false;
  if (!text(v.id, 64) || !text(v.tool, 128) || !text(v.time, 40)) return false;
  if (v.session !== undefined && !text(v.session, 64)) return false;
  if (v.owner !== undefined && !isOwnerTag(v.owner)) return false;
  if (!isObject(v.args)) v.args = {};
  if (typeof v.ms !== "number") v.ms = 0;
  if (!text(v.era, 40)) v.era = "";
  if (!text(v.outcome, 20)) return false;
  if (v.files !== undefined) {
    if (!Array.isArray(v.files) || v.files.length > MAX_CHANGES) return false;
    if (!v.files.every((f) => text(f, MAX_PATH))) return false;
  }
  if (v.noUndo !== undefined && !text(v.noUndo, 4096)) return false;
  if (v.undid !== undefined) {
    if (!Array.isArray(v.undid) || v.undid.length > MAX_UNDID) return false;
    if (!v.undid.every((id) => text(id, 64))) return false;
  }
  if (v.changes !== undefined) {
    if (!Array.isArray(v.changes) || v.changes.length === 0 || v.changes.length > MAX_CHANGES) {
      return false;
    }
    if (!v.changes.every(isChange)) return false;
  }
  return true;
}

function isChange(v: unknown): v is Change {
  if (!isObject(v) || !text(v.path, MAX_PATH)) return false;
  if (!v.path.startsWith("/") && !/^[A-Za-z]:[\\/]/.test(v.path)) return false;
  if (v.from !== undefined && !text(v.from, MAX_PATH)) return false;
  return isState(v.before) && isState(v.after);
}

const count = (v: unknown) => Number.isSafeInteger(v) && (v as number) >= 0;

function isState(v: unknown): v is PathState {
  if (!isObject(v)) return false;
  switch (v.kind) {
    case "absent":
    case "dir":
      return true;
    case "link":
      return text(v.target, MAX_PATH);
    case "file":
      return (SHA.test(String(v.sha)) || v.sha === "") && count(v.mode) && count(v.size);
    case "tree":
      return typeof v.content === "boolean" && SHA.test(String(v.manifest)) &&
        count(v.entries) && count(v.bytes) && (v.shape === undefined || SHA.test(String(v.shape)));
    default:
      return false;
  }
}

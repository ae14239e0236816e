/**
 * Reading a text file line by line without holding it in memory: lines are split on the bytes of
 * "\n" in the file's encoding, the lines asked for are handed over (each cut to a byte cap), and
 * the rest are only counted, within a byte budget so a huge file cannot stall a call.
 */
import type { FileHandle } from "node:fs/promises";
import type { Encoding } from "../../_lib/text/text.ts";
import { scanSlots } from "./scan_slots.ts";

/** Read size at most; even, so a UTF-16 code unit never straddles two reads. */
const CHUNK_BYTES = 1 << 20;

/** How far past the last line handed over lines are still counted. */
export const LINE_COUNT_BUDGET_BYTES = 64 * 1024 * 1024;

/**
 * A read buffer sized to what is left to read, never more than CHUNK_BYTES: every read_file of a
 * tiny file allocated a whole MiB. Two bytes over what is left, rounded up to even, so that the
 * read that finds the end fits too.
 */
function readBuffer(left: number | undefined): Uint8Array {
  return new Uint8Array(
    left === undefined ? CHUNK_BYTES : Math.min(CHUNK_BYTES, left + 2 + (left % 2)),
  );
}

export interface ScannedLine {
  /** 1-based line number. */
  number: number;
  /** The line's first bytes (at most `keepBytes`), without its line break. */
  head: Uint8Array;
  /** The whole line's length in bytes, without its line break. */
  length: number;
  /** How the line ended: "\r\n", "\n", or nothing (the last line of a file without a final break). */
  ending: "crlf" | "lf" | "none";
}

export interface ScanOptions {
  encoding: Encoding;
  /** Where the text starts: after a byte order mark. */
  start: number;
  /** The first line to hand over (1-based). */
  from?: number;
  /** Bytes kept of each line handed over. */
  keepBytes?: number;
  /** Receives each line from `from` on; returns false once it wants no more. Without it, lines are only counted. */
  onLine?(line: ScannedLine): boolean;
  /** Stop counting this many bytes after the last line handed over (after the start without onLine). */
  countBudget: number;
  /** The file's size when known: the read buffer is then no larger than what is left of it. */
  size?: number;
  signal?: AbortSignal;
}

export interface ScanResult {
  /** Lines counted: every line of the file when `complete`, else a lower bound. */
  lines: number;
  complete: boolean;
  /** Where counting ended: the file's size when `complete`. */
  bytesScanned: number;
}

type Finder = (view: Uint8Array, from: number) => number;

/** Finds the first byte of the next "\n" code unit at or after `from` (an aligned offset). */
function newlineFinder(encoding: Encoding): Finder {
  if (encoding === "utf-8") return (view, from) => view.indexOf(0x0a, from);
  const le = encoding === "utf-16le";
  return (view, from) => {
    for (let i = view.indexOf(0x0a, from); i >= 0; i = view.indexOf(0x0a, i + 1)) {
      if (le ? i % 2 === 0 && view[i + 1] === 0 : i % 2 === 1 && view[i - 1] === 0) {
        return le ? i : i - 1;
      }
    }
    return -1;
  };
}

/** Whether the code unit at `at` is "\r". */
function isCarriageReturn(encoding: Encoding, view: Uint8Array, at: number): boolean {
  if (encoding === "utf-8") return view[at] === 0x0d;
  return encoding === "utf-16le"
    ? view[at] === 0x0d && view[at + 1] === 0
    : view[at] === 0 && view[at + 1] === 0x0d;
}

export async function scanLines(handle: FileHandle, options: ScanOptions): Promise<ScanResult> {
  // A few scans at a time hold a buffer and build lines; the others wait for a slot.
  const release = await scanSlots.take(options.signal);
  try {
    const left = options.size === undefined ? undefined : Math.max(0, options.size - options.start);
    return await scanWith(readBuffer(left), handle, options);
  } finally {
    release();
  }
}

async function scanWith(
  buffer: Uint8Array,
  handle: FileHandle,
  options: ScanOptions,
): Promise<ScanResult> {
  const { encoding, from = 1, keepBytes = 0, onLine } = options;
  const chunkBytes = buffer.length;
  const unit = encoding === "utf-8" ? 1 : 2;
  const findNewline = newlineFinder(encoding);
  let position = options.start; // file offset of buffer[0]
  let carried = 0; // bytes at the start of buffer left over from the previous read
  let lines = 0; // lines ended so far
  let lineStart = position;
  let wanting = onLine !== undefined;
  let countUntil = wanting ? Infinity : position + options.countBudget;
  // The line being handed over: its kept pieces, its length, and whether it ends in "\r".
  let pieces: Uint8Array[] = [];
  let kept = 0;
  let length = 0;
  let lastIsCr = false;

  const take = (view: Uint8Array, begin: number, end: number) => {
    if (end === begin) return;
    length += end - begin;
    lastIsCr = isCarriageReturn(encoding, view, end - unit);
    if (kept < keepBytes) {
      const piece = view.slice(begin, Math.min(end, begin + keepBytes - kept));
      pieces.push(piece);
      kept += piece.length;
    }
  };
  const handOver = (ending: "lf" | "none") => {
    const crlf = ending === "lf" && lastIsCr;
    const fullLength = crlf ? length - unit : length;
    const head = new Uint8Array(Math.min(kept, fullLength));
    let at = 0;
    for (const piece of pieces) {
      head.set(piece.subarray(0, head.length - at), at);
      at += Math.min(piece.length, head.length - at);
    }
    pieces = [];
    kept = length = 0;
    lastIsCr = false;
    wanting = onLine!({
      number: lines + 1,
      head,
      length: fullLength,
      ending: crlf ? "crlf" : ending,
    });
  };

  for (;;) {
    options.signal?.throwIfAborted();
    const { bytesRead } = await handle.read(
      buffer,
      carried,
      chunkBytes - carried,
      position + carried,
    );
    const filled = carried + bytesRead;
    const atEnd = bytesRead === 0;
    // At the end a dangling odd byte of UTF-16 still belongs to the last line.
    const usable = atEnd ? filled : filled - (filled % unit);
    const view = buffer.subarray(0, usable);
    let at = 0;
    for (;;) {
      const collecting = wanting && lines + 1 >= from;
      const newline = findNewline(view, at);
      if (newline < 0) {
        if (collecting) take(view, at, usable);
        break;
      }
      if (collecting) {
        take(view, at, newline);
        handOver("lf");
        if (!wanting) countUntil = position + newline + options.countBudget;
      }
      lines++;
      at = newline + unit;
      lineStart = position + at;
    }
    if (atEnd) {
      if (position + usable > lineStart) {
        if (wanting && lines + 1 >= from) handOver("none");
        lines++;
      }
      return { lines, complete: true, bytesScanned: position + usable };
    }
    buffer.copyWithin(0, usable, filled);
    carried = filled - usable;
    position += usable;
    if (position >= countUntil) return { lines, complete: false, bytesScanned: position };
  }
}

/**
 * Decodes a scanned line. Invalid byte sequences become U+FFFD and are counted; a line cut
 * short by `keepBytes` may end inside a character, which is dropped rather than reported.
 */
export function decodeLine(
  line: ScannedLine,
  encoding: Encoding,
): { text: string; invalid: number } {
  const whole = line.head.length === line.length;
  try {
    const text = new TextDecoder(encoding, { fatal: true }).decode(line.head, { stream: !whole });
    return { text, invalid: 0 };
  } catch {
    const text = new TextDecoder(encoding).decode(line.head, { stream: !whole });
    return { text, invalid: text.match(/\uFFFD/g)?.length ?? 0 };
  }
}

/**
 * The last lines of a text file without reading the rest: blocks are read backwards from the end
 * through the open descriptor until enough line breaks are found. The lines before them are
 * counted (for their numbers) only when that part is small; otherwise the lines are numbered
 * from the end.
 */
import type { FileHandle } from "node:fs/promises";
import type { Encoding } from "../../_lib/text/text.ts";

const BLOCK_BYTES = 64 * 1024;
/** The part before the tail is counted, for line numbers, only up to this size. */
export const TAIL_COUNT_BUDGET_BYTES = 8 * 1024 * 1024;

export interface TailStart {
  /** File offset where the last lines begin. */
  byte: number;
  /** Lines before that offset, or undefined when that part was too big to count. */
  linesBefore: number | undefined;
  /** Bytes read to find it (the tail's blocks, and the part counted). */
  bytesRead: number;
}

/** Whether the code unit at `at` (aligned, relative to `view`) is "\n". */
function isNewline(encoding: Encoding, view: Uint8Array, at: number): boolean {
  if (encoding === "utf-8") return view[at] === 0x0a;
  return encoding === "utf-16le"
    ? view[at] === 0x0a && view[at + 1] === 0
    : view[at] === 0 && view[at + 1] === 0x0a;
}

/**
 * Where the last `lines` lines of the text begin. `start` is where the text starts (after a
 * BOM), `size` the file's size. A final line break ends the last line; it starts none.
 */
export async function tailStart(
  handle: FileHandle,
  options: { encoding: Encoding; start: number; size: number; lines: number; signal?: AbortSignal },
): Promise<TailStart> {
  const { encoding, start, size, lines } = options;
  const unit = encoding === "utf-8" ? 1 : 2;
  const buffer = new Uint8Array(BLOCK_BYTES);
  // A dangling odd byte of UTF-16 belongs to the last line; code units are aligned on `start`.
  let end = start + Math.floor((size - start) / unit) * unit;
  let bytesRead = 0;
  let found = 0;
  let skipFinal = true;
  let byte = start;
  search: while (end > start) {
    options.signal?.throwIfAborted();
    const from = Math.max(start, end - BLOCK_BYTES);
    const length = end - from;
    const { bytesRead: read } = await handle.read(buffer, 0, length, from);
    bytesRead += read;
    if (read < length) break; // the file shrank: what is there is all there is
    for (let at = length - unit; at >= 0; at -= unit) {
      if (!isNewline(encoding, buffer, at)) {
        skipFinal = false;
        continue;
      }
      if (skipFinal) {
        skipFinal = false;
        continue;
      }
      if (++found === lines) {
        byte = from + at + unit;
        break search;
      }
    }
    end = from;
  }
  if (byte === start) return { byte, linesBefore: 0, bytesRead };
  if (byte - start > TAIL_COUNT_BUDGET_BYTES) return { byte, linesBefore: undefined, bytesRead };
  let linesBefore = 0;
  const chunk = new Uint8Array(1 << 20);
  for (let position = start; position < byte;) {
    options.signal?.throwIfAborted();
    const { bytesRead: read } = await handle.read(
      chunk,
      0,
      Math.min(chunk.length, byte - position),
      position,
    );
    if (read === 0) break;
    bytesRead += read;
    const usable = read - (read % unit);
    for (let at = 0; at < usable; at += unit) {
      if (isNewline(encoding, chunk, at)) linesBefore++;
    }
    position += usable;
    if (usable === 0) break;
  }
  return { byte, linesBefore, bytesRead };
}

/**
 * rg's --json output, turned into the lines the built-in search reports: its output split into
 * events on "\n" only, and each match event's lines with where their first match starts.
 */
import type { Readable } from "node:stream";
import { markMatch } from "../lines.ts";
import { MultilineEventCut } from "./multiline_cut.ts";

/** A piece of rg's output: UTF-8 text, or base64 bytes when it was not valid UTF-8. */
export type Data = { text: string } | { bytes: string };

export interface Submatch {
  /** Byte offsets into the event's `lines`. */
  start: number;
  end: number;
}

export interface EventLine {
  number: number;
  /** Without its "\n" (a "\r" before it is left for FileLines to drop). */
  text: string;
  /** Where the line's first match starts, in characters (0 when a match runs into the line). */
  column: number;
}

const decoder = new TextDecoder();
const encoder = new TextEncoder();

export const bytesOf = (data: Data): Uint8Array =>
  "text" in data
    ? encoder.encode(data.text)
    : Uint8Array.from(atob(data.bytes), (c) => c.charCodeAt(0));

export const textOf = (data: Data): string =>
  "text" in data ? data.text : decoder.decode(bytesOf(data));

/** A line of rg's output longer than this may be cut (jsonLineBatches, oneLineEvents). */
const LONG_EVENT_CHARS = 1 << 16;

/**
 * A one-line match event up to the end of its first submatch, closed again: `undefined` while
 * `head` (an event's beginning) does not reach that far, or is no match event. grep reads only
 * the first submatch of a one-line event (its column), and a long line can bring millions of
 * them: 10 MB of text, 70 MB of event. The marks need no JSON parse: quotes inside JSON strings
 * are escaped, so `"submatches":[` and `"end":` can only be keys; the submatches come last in
 * rg's events.
 */
export function firstSubmatchOnly(head: string): string | undefined {
  if (!head.startsWith('{"type":"match"')) return undefined;
  const list = head.indexOf('"submatches":[');
  const end = list < 0 ? -1 : head.indexOf('"end":', list);
  const close = end < 0 ? -1 : head.indexOf("}", end);
  return close < 0 ? undefined : head.slice(0, close + 1) + "]}}";
}

/**
 * The lines of `stream`, split on "\n" only (readline would also split on U+2028 and U+2029, which
 * JSON leaves unescaped inside strings), in batches: every complete line of a chunk at once, so
 * that thousands of events cost one await per chunk rather than one per line. A long line is
 * joined once, not once per chunk. With `oneLineEvents` (rg's events hold one line each unless
 * it searches in multiline mode), a long match event is cut after its first submatch as it
 * arrives (firstSubmatchOnly), and the rest of it is never held: looked at each time it doubles.
 * In multiline mode a long match event keeps only the submatches that reach a new line
 * (MultilineEventCut), read as they arrive.
 */
export async function* jsonLineBatches(
  stream: Readable,
  oneLineEvents = false,
): AsyncGenerator<string[]> {
  stream.setEncoding("utf8");
  let parts: string[] = [];
  let length = 0;
  let cutAt = LONG_EVENT_CHARS;
  /** The long line's event, once cut: what follows up to its end is dropped. */
  let kept: string | undefined;
  /** In multiline mode, the long line's event being cut as it comes (multiline_cut.ts). */
  let cut: MultilineEventCut | undefined;
  for await (const chunk of stream as AsyncIterable<string>) {
    const lines: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline >= 0; newline = chunk.indexOf("\n", start)) {
      if (kept !== undefined) lines.push(kept);
      else if (cut) lines.push(cut.finish(chunk.slice(start, newline)));
      else if (parts.length === 0) lines.push(chunk.slice(start, newline));
      else {
        parts.push(chunk.slice(start, newline));
        lines.push(parts.join(""));
      }
      [parts, length, cutAt, kept, cut] = [[], 0, LONG_EVENT_CHARS, undefined, undefined];
      start = newline + 1;
    }
    if (start < chunk.length && cut) cut.feed(chunk.slice(start));
    else if (start < chunk.length && kept === undefined) {
      parts.push(chunk.slice(start));
      length += chunk.length - start;
      if (length > cutAt) {
        const head = parts.join("");
        if (oneLineEvents) kept = firstSubmatchOnly(head);
        else cut = MultilineEventCut.start(head);
        parts = kept === undefined && !cut ? [head] : [];
        cutAt = length * 2;
      }
    }
    if (lines.length > 0) yield lines;
  }
  if (kept !== undefined) yield [kept];
  else if (cut) yield [cut.finish("")];
  else if (parts.length > 0) yield [parts.join("")];
}

const BINARY_OFFSET = '"binary_offset":';

/**
 * A file's end event with what grep reads of it (whether a NUL byte was found), without parsing
 * its statistics: a third of rg's output when most files reported match once or twice.
 * Undefined for any other line, which JSON.parse then reads. The key can only be a key: quotes
 * inside JSON strings are escaped.
 */
export function endEvent(
  line: string,
): { type: "end"; data: { binary_offset: number | null } } | undefined {
  if (!line.startsWith('{"type":"end"')) return undefined;
  const at = line.indexOf(BINARY_OFFSET);
  if (at < 0) return undefined;
  const value = /^(null|\d+)[,}]/.exec(line.slice(at + BINARY_OFFSET.length, at + 40));
  if (!value) return undefined;
  return { type: "end", data: { binary_offset: value[1] === "null" ? null : Number(value[1]) } };
}

/** How many UTF-16 code units of `text` its first `byteOffset` UTF-8 bytes are. */
function charsBefore(text: string, byteOffset: number): number {
  let bytes = 0;
  let i = 0;
  while (i < text.length && bytes < byteOffset) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff) {
      bytes += 4; // a surrogate pair: one character of four bytes
      i++;
    } else bytes += 3;
    i++;
  }
  return i;
}

/**
 * The lines of one match event, every one of them matched. In multiline mode rg sends neighbouring
 * matches as one event, but only when their lines touch, so each line of it holds part of a match,
 * as the built-in search marks them. (The submatches cannot decide it: rg finds them again within
 * the event and misses some, such as an empty match at the end of a file without a final line
 * break.) They give each line's column: where its first match starts, 0 when one runs into it.
 */
export function matchEventLines(
  data: { lines: Data; line_number: number; submatches: Submatch[] },
): EventLine[] {
  if ("text" in data.lines) {
    // The usual event, one line of valid UTF-8: no need to go through bytes.
    const text = data.lines.text;
    const newline = text.indexOf("\n");
    if (newline < 0 || newline === text.length - 1) {
      const first = data.submatches[0];
      return [{
        number: data.line_number,
        text: newline < 0 ? text : text.slice(0, newline),
        column: first ? charsBefore(text, first.start) : 0,
      }];
    }
  }
  const bytes = bytesOf(data.lines);
  const starts = [0];
  for (let i = bytes.indexOf(0x0a); i >= 0 && i + 1 < bytes.length;) {
    starts.push(i + 1);
    i = bytes.indexOf(0x0a, i + 1);
  }
  const columnOf = (lineStart: number, start: number) =>
    decoder.decode(bytes.subarray(lineStart, start)).length;
  const columns = new Map<number, number>();
  for (const { start, end } of data.submatches) markMatch(columns, starts, start, end, columnOf);
  return starts.map((start, i) => {
    const end = i + 1 < starts.length ? starts[i + 1] - 1 : bytes.length;
    return {
      number: data.line_number + i,
      text: decoder.decode(bytes.subarray(start, end)).replace(/\n$/, ""),
      column: columns.get(i) ?? 0,
    };
  });
}

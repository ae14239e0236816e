/**
 * rg's --json output, turned into the lines the built-in search reports: its output split into
 * events on "\n" only, and each match event's lines with where their first match starts.
 */
import type { Readable } from "node:stream";
import { markMatch } from "./grep_lines.ts";

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

/**
 * The lines of `stream`, split on "\n" only (readline would also split on U+2028 and U+2029, which
 * JSON leaves unescaped inside strings), in batches: every complete line of a chunk at once, so
 * that thousands of events cost one await per chunk rather than one per line. A long line is
 * joined once, not once per chunk.
 */
export async function* jsonLineBatches(stream: Readable): AsyncGenerator<string[]> {
  stream.setEncoding("utf8");
  let parts: string[] = [];
  for await (const chunk of stream as AsyncIterable<string>) {
    const lines: string[] = [];
    let start = 0;
    for (let newline = chunk.indexOf("\n"); newline >= 0; newline = chunk.indexOf("\n", start)) {
      if (parts.length === 0) lines.push(chunk.slice(start, newline));
      else {
        parts.push(chunk.slice(start, newline));
        lines.push(parts.join(""));
        parts = [];
      }
      start = newline + 1;
    }
    if (start < chunk.length) parts.push(chunk.slice(start));
    if (lines.length > 0) yield lines;
  }
  if (parts.length > 0) yield [parts.join("")];
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

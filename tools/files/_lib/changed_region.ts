/**
 * What an edit changed, as one region: the text before it and the text after it are the same in
 * the old and the new content. The diff of the reply is computed on the lines around that region
 * only, and the new file is written as the old file's own bytes around the region's new text:
 * a large file is neither diffed nor encoded whole for a small change.
 */
import { Buffer } from "node:buffer";
import { encodeText, type Encoding } from "../../_lib/text/text.ts";

/** Characters at the start (`prefix`) and at the end (`suffix`) an edit left as they were. */
export interface Region {
  prefix: number;
  suffix: number;
}

/** Nothing changed yet, in a text of `length` characters. */
export function unchanged(length: number): Region {
  return { prefix: length, suffix: length };
}

/**
 * The region after one more edit of `text`, which changed its characters from `start` to `end`
 * (exclusive, in `text` before that edit).
 */
export function widened(region: Region, text: string, start: number, end: number): Region {
  return {
    prefix: Math.min(region.prefix, start),
    suffix: Math.min(region.suffix, text.length - end),
  };
}

/** The region narrowed so that neither of its ends falls inside a surrogate pair. */
function whole(region: Region, before: string): Region {
  let { prefix, suffix } = region;
  const high = (code: number) => code >= 0xd800 && code <= 0xdbff;
  const low = (code: number) => code >= 0xdc00 && code <= 0xdfff;
  if (prefix > 0 && high(before.charCodeAt(prefix - 1))) prefix--;
  const end = before.length - suffix;
  if (suffix > 0 && low(before.charCodeAt(end))) suffix--;
  return { prefix, suffix };
}

/** Where the line holding `at` starts. */
function lineStart(text: string, at: number): number {
  return at <= 0 ? 0 : text.lastIndexOf("\n", at - 1) + 1;
}

/** Where the line `lines` lines before the one holding `at` starts. */
function linesBack(text: string, at: number, lines: number): number {
  let start = lineStart(text, at);
  for (let n = 0; n < lines && start > 0; n++) start = lineStart(text, start - 1);
  return start;
}

/** Just past the end of the line `lines` lines after the one holding `at` (or the text's end). */
function linesOn(text: string, at: number, lines: number): number {
  let end = at;
  for (let n = 0; n <= lines && end < text.length; n++) {
    const newline = text.indexOf("\n", end);
    end = newline === -1 ? text.length : newline + 1;
  }
  return end;
}

/** "\n" in `text` from `from` to `to`. */
function newlines(text: string, from: number, to: number): number {
  let count = 0;
  for (let at = text.indexOf("\n", from); at !== -1 && at < to; at = text.indexOf("\n", at + 1)) {
    count++;
  }
  return count;
}

/**
 * The two texts cut to whole lines around the region with `margin` lines on each side, and how
 * many lines come before the cut (the same in both).
 */
export function aroundRegion(
  before: string,
  after: string,
  region: Region,
  margin: number,
): { before: string; after: string; linesBefore: number } {
  const { prefix, suffix } = region;
  const start = linesBack(before, Math.min(prefix, before.length), margin);
  const endBefore = linesOn(before, before.length - suffix, margin);
  // The same distance from the end in both: everything past it is the unchanged suffix.
  const endAfter = after.length - (before.length - endBefore);
  return {
    before: before.slice(start, endBefore),
    after: after.slice(start, endAfter),
    linesBefore: newlines(before, 0, start),
  };
}

/** A unified diff's hunk headers moved down by `lines` lines. */
export function shiftHunks(patch: string, lines: number): string {
  if (lines === 0) return patch;
  return patch.replace(
    /^@@ -(\d+),(\d+) \+(\d+),(\d+) @@/gm,
    (_, a, b, c, d) => `@@ -${Number(a) + lines},${b} +${Number(c) + lines},${d} @@`,
  );
}

/** How the file was read: its bytes, and how its text was made from them. */
export interface ReadText {
  bytes: Uint8Array;
  /** The decoded text, line breaks as in the file. */
  text: string;
  encoding: Encoding;
  bomBytes: number;
  /** Whether the edit worked on the text with every "\r\n" made "\n" (written back as "\r\n"). */
  crlf: boolean;
}

/**
 * The new file in three pieces: the old file's bytes before the region, the region's new text
 * encoded as the file is (line breaks restored), the old file's bytes after it. `before` and
 * `after` are the texts the edit worked on (with "\n" line breaks when `file.crlf`).
 */
export function splicedBytes(
  file: ReadText,
  before: string,
  after: string,
  changed: Region,
): Uint8Array[] {
  const region = whole(changed, before);
  const end = before.length - region.suffix;
  // Positions in the file's own text: each "\n" before them was "\r\n" there.
  const startInFile = file.crlf
    ? region.prefix + newlines(before, 0, region.prefix)
    : region.prefix;
  const endInFile = file.crlf ? end + newlines(before, 0, end) : end;
  const byteAt = (at: number) =>
    file.bomBytes +
    (file.encoding === "utf-8" ? Buffer.byteLength(file.text.slice(0, at), "utf8") : 2 * at);
  let middle = after.slice(region.prefix, after.length - region.suffix);
  if (file.crlf) middle = middle.replaceAll("\n", "\r\n");
  return [
    file.bytes.subarray(0, byteAt(startInFile)),
    encodeText(middle, file.encoding, false),
    file.bytes.subarray(byteAt(endInFile)),
  ];
}

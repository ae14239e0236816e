/**
 * One page of a text file as read_file shows it: numbered lines (`cat -n` style) from a start
 * line, within a line count and a character budget, each line cut at a length cap, and the
 * file's total line count as far as it was counted.
 */
import type { FileHandle } from "node:fs/promises";
import { decodeLine, LINE_COUNT_BUDGET_BYTES, scanLines } from "./line_scan.ts";
import type { Encoding } from "../../_lib/text/text.ts";
import { bytes } from "../../_lib/text/units.ts";

export const MAX_LINE_CHARS = 2_000;
/** Enough bytes for MAX_LINE_CHARS UTF-16 code units in UTF-8 (3 bytes each at most) or UTF-16. */
const KEEP_BYTES = MAX_LINE_CHARS * 3 + 4;

export interface PageRequest {
  encoding: Encoding;
  bomBytes: number;
  /** First line, 1-based. */
  from: number;
  /** Where to start reading instead of the text's start (a line's first byte: a tail). */
  startByte?: number;
  /** The number the line at `startByte` gets (default 1; negative counts from the end). */
  firstNumber?: number;
  /** Lines at most. */
  limit: number;
  /** Characters of numbered lines at most; at least one line is always shown. */
  maxChars: number;
  /** The file's size, when known: reads are sized to it. */
  size?: number;
  signal?: AbortSignal;
}

export interface Page {
  /** Numbered lines, each `<number right-aligned to 6>\t<line>`. */
  lines: string[];
  /** Number of the last line shown; from - 1 when none was. */
  last: number;
  /** Lines in the file: exact when `totalExact`, else at least this many. */
  total: number;
  totalExact: boolean;
  /** Where counting stopped when it was not exact. */
  bytesCounted: number;
  /** Whether the character budget, rather than the limit or the end, ended the page. */
  stoppedForSize: boolean;
  /** Lines shown cut at MAX_LINE_CHARS. */
  linesCut: number;
  /** Invalid byte sequences in the lines shown, each shown as U+FFFD. */
  invalid: number;
  crlfLines: number;
  lfLines: number;
}

export async function readPage(handle: FileHandle, request: PageRequest): Promise<Page> {
  const shift = (request.firstNumber ?? 1) - 1;
  const page: Page = {
    lines: [],
    last: request.from - 1 + shift,
    total: 0,
    totalExact: true,
    bytesCounted: 0,
    stoppedForSize: false,
    linesCut: 0,
    invalid: 0,
    crlfLines: 0,
    lfLines: 0,
  };
  let chars = 0;
  const scan = await scanLines(handle, {
    encoding: request.encoding,
    start: request.startByte ?? request.bomBytes,
    from: request.from,
    keepBytes: KEEP_BYTES,
    countBudget: LINE_COUNT_BUDGET_BYTES,
    size: request.size,
    signal: request.signal,
    onLine(line) {
      const decoded = decodeLine(line, request.encoding);
      let text = decoded.text;
      if (line.head.length < line.length || text.length > MAX_LINE_CHARS) {
        text = `${cutAt(text, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} characters; ` +
          `it is ${bytes(line.length)} long]`;
        page.linesCut++;
      }
      const numbered = `${String(line.number + shift).padStart(6)}\t${text}`;
      if (page.lines.length > 0 && chars + numbered.length + 1 > request.maxChars) {
        page.stoppedForSize = true;
        return false;
      }
      page.lines.push(numbered);
      chars += numbered.length + 1;
      page.last = line.number + shift;
      page.invalid += decoded.invalid;
      if (line.ending === "crlf") page.crlfLines++;
      if (line.ending === "lf") page.lfLines++;
      return page.lines.length < request.limit;
    },
  });
  page.total = scan.lines + shift;
  page.totalExact = scan.complete;
  page.bytesCounted = scan.bytesScanned;
  return page;
}

/** The first `max` UTF-16 code units of `text`, never ending between a surrogate pair. */
function cutAt(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

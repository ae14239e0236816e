/**
 * A PDF's compressed streams measured before pdf.js reads the file. pdf.js inflates a stream into
 * one buffer that doubles as it grows, so a bomb's content stream jumps by tens of megabytes in a
 * few milliseconds, faster than any sampling of memory can stop it (memory_guard.ts). So every
 * Flate stream that text extraction may read (not an image's) is inflated here first with a cap on
 * its output, zlib's own, and a file with one that inflates past MAX_STREAM_BYTES is refused
 * before pdf.js sees it. Runs in the document worker. An encrypted file's streams cannot be
 * inflated unread: the memory guard alone stands for those, as for filters other than Flate.
 *
 * @example
 * ```ts
 * checkStreams(bytes, "report.pdf"); // throws DocumentError for a stream past the cap
 * ```
 */
import { Buffer } from "node:buffer";
import { inflateSync } from "node:zlib";
import { DocumentError } from "./types.ts";

/** What one stream may inflate to (a page's content, a font, an object stream). */
export const MAX_STREAM_BYTES = 16 << 20;
/** How far before `stream` its dictionary may start. */
const MAX_DICTIONARY_BYTES = 4096;

const STREAM = Buffer.from("stream");
const END = Buffer.from("endstream");

/** Throws DocumentError when a Flate stream of `bytes` inflates past `max`. */
export function checkStreams(bytes: Uint8Array, name: string, max = MAX_STREAM_BYTES): void {
  const pdf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (pdf.includes("/Encrypt")) return;
  for (let at = pdf.indexOf(STREAM); at !== -1; at = pdf.indexOf(STREAM, at + STREAM.length)) {
    const start = dataStart(pdf, at);
    if (start === undefined) continue;
    const dictionary = dictionaryBefore(pdf, at);
    if (dictionary === undefined || /\/Subtype\s*\/Image\b/.test(dictionary)) continue;
    const flates = flateFilters(dictionary);
    if (flates === 0) continue;
    const end = pdf.indexOf(END, start);
    let data: Buffer = pdf.subarray(start, end === -1 ? pdf.length : end);
    for (let i = 0; i < flates; i++) {
      try {
        data = inflateSync(data, { maxOutputLength: max + 1 });
      } catch (error) {
        if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") tooLarge(name, max);
        break; // damaged: pdf.js says what it makes of it
      }
      if (data.length > max) tooLarge(name, max);
    }
    at = end === -1 ? pdf.length : end;
  }
}

/** Where a stream's data begins: after `stream` and its end of line, when it is a keyword. */
function dataStart(pdf: Buffer, at: number): number | undefined {
  // "endstream" holds "stream" too.
  if (at >= 3 && pdf.toString("latin1", at - 3, at) === "end") return undefined;
  let after = at + STREAM.length;
  if (pdf[after] === 0x0d) after++;
  if (pdf[after] !== 0x0a && pdf[after - 1] !== 0x0d) return undefined;
  if (pdf[after] === 0x0a) after++;
  return after;
}

/** The dictionary that ends just before `at` (`<< … >>`, nested ones within), as text. */
function dictionaryBefore(pdf: Buffer, at: number): string | undefined {
  let end = at - 1;
  while (end > 0 && /\s/.test(String.fromCharCode(pdf[end]))) end--;
  if (pdf[end] !== 0x3e || pdf[end - 1] !== 0x3e) return undefined;
  let depth = 0;
  for (let i = end; i > 0 && i > at - MAX_DICTIONARY_BYTES; i--) {
    if (pdf[i] === 0x3e && pdf[i - 1] === 0x3e) {
      depth++;
      i--;
    } else if (pdf[i] === 0x3c && pdf[i - 1] === 0x3c) {
      if (--depth === 0) return pdf.toString("latin1", i - 1, end + 1);
      i--;
    }
  }
  return undefined;
}

/** How many FlateDecode filters the dictionary applies first, in a row. */
function flateFilters(dictionary: string): number {
  const filter = /\/Filter\s*(\/\w+|\[[^\]]*\])/.exec(dictionary)?.[1];
  if (!filter) return 0;
  const names = filter.match(/\/\w+/g) ?? [];
  let count = 0;
  while (count < names.length && (names[count] === "/FlateDecode" || names[count] === "/Fl")) {
    count++;
  }
  return count;
}

function tooLarge(name: string, max: number): never {
  throw new DocumentError(
    `${name} holds a compressed stream that inflates past ${
      Math.round(max / 1024 / 1024)
    } MiB (a decompression bomb, or a page too large to read here); it was not read`,
  );
}

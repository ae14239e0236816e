/**
 * The built-in search of one file of a directory, synchronously (in a worker, or between the
 * main thread's turns): read in chunks into one reused buffer, dropped at its first NUL byte
 * (binary) or, for a literal pattern, when its bytes cannot hold a match (prefilter.ts),
 * and decoded and searched (text_search.ts) only when they may. A file is held whole only when it
 * may match, and never over MAX_FILE_BYTES.
 */
import { Buffer } from "node:buffer";
import { fstatSync, readSync } from "node:fs";
import { compilePattern } from "../pattern.ts";
import { escapeRegExp, type Prefilter, prefilterFor } from "./prefilter.ts";
import { FileLines, type FileMatches, type OutputMode } from "../report.ts";
import { MAX_FILE_BYTES } from "../query.ts";
import { nulInReportedLines, searchText, type TextSearch } from "../text_search.ts";
import { bomOf } from "../../../../_lib/text/text.ts";
import { withoutCr } from "../lines.ts";

/** What the search of a file needs: plain data, so a worker can be given it. */
export interface FileSearchOptions {
  pattern: string;
  caseInsensitive: boolean;
  multiline: boolean;
  mode: OutputMode;
  before: number;
  after: number;
}

/** A file's outcome: its matches, nothing (no match, skipped), or that it could not be read. */
export type FileOutcome = FileMatches | undefined | "unreadable";

/** Bytes read at a time; a file that fits is read once and searched from this buffer. */
const CHUNK_BYTES = 1024 * 1024;
/**
 * How far rg looks for a NUL byte when it matches across lines (a pattern that can match a line
 * break, in a directory): it holds the whole file and checks only its start, and then the lines
 * it reports. Line by line it checks everything.
 */
const MULTILINE_BINARY_WINDOW = 64 * 1024;

const encoder = new TextEncoder();
const decoders = new Map<string, TextDecoder>();
const decoderFor = (encoding: string) => {
  let decoder = decoders.get(encoding);
  if (!decoder) decoders.set(encoding, decoder = new TextDecoder(encoding));
  return decoder;
};

/**
 * The buffer reads go to, one per thread: a search is synchronous from its first read to its
 * result, so every searcher of the thread (calls searching at once) can share it.
 */
let chunk: Buffer | undefined;
const chunkBuffer = () => (chunk ??= Buffer.allocUnsafe(CHUNK_BYTES));

const isUtf16 = (bytes: Uint8Array) =>
  (bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff);

export class FileSearcher {
  readonly #search: TextSearch;
  readonly #prefilter: Prefilter | undefined;

  constructor(readonly options: FileSearchOptions) {
    const { pattern, caseInsensitive, multiline, mode, before, after } = options;
    this.#search = {
      pattern: compilePattern(pattern, { caseInsensitive, multiline }),
      multiline,
      mode,
      before,
      after,
    };
    this.#prefilter = prefilterFor(pattern, caseInsensitive);
    const literal = this.#prefilter?.literal;
    if (literal !== undefined && !multiline) {
      // Every line match holds the literal: lines without it need no matching at all.
      if (!caseInsensitive) {
        this.#search.nextCandidate = (text, from) => text.indexOf(literal, from);
      } else {
        const finder = new RegExp(escapeRegExp(literal), "giu");
        this.#search.nextCandidate = (text, from) => {
          finder.lastIndex = from;
          return finder.exec(text)?.index ?? -1;
        };
      }
    }
  }

  /**
   * Searches the file open as `fd` (which the caller closes); `path` names it in the result.
   * `textUnwanted`: content mode counts lines without keeping them (the report is full).
   */
  search(fd: number, path: string, textUnwanted = false): FileOutcome {
    this.#search.textUnwanted = textUnwanted;
    try {
      const info = fstatSync(fd);
      if (!info.isFile()) return "unreadable";
      if (info.size > MAX_FILE_BYTES) return undefined;
      const bytes = this.#scan(fd);
      return bytes && this.#searchBytes(path, bytes);
    } catch {
      return "unreadable";
    }
  }

  /**
   * The file's bytes when they may hold a match, else undefined: read a chunk at a time, stopped
   * at a NUL byte when one makes the file binary, or at the end when the prefilter found nothing.
   */
  #scan(fd: number): Uint8Array | undefined {
    const buffer = chunkBuffer();
    const prefilter = this.#prefilter;
    const lineByLine = !this.#search.multiline;
    const keep = prefilter ? prefilter.span - 1 : 0;
    let kept = 0; // bytes at the buffer's start carried from the previous chunk
    let position = 0;
    for (;;) {
      const read = readSync(fd, buffer, kept, buffer.length - kept, position);
      const end = kept + read;
      if (position === 0 && isUtf16(buffer.subarray(0, read))) {
        return this.#readWhole(fd, read, false); // its NUL bytes are half its characters
      }
      if (position === 0 && !prefilter) return this.#readWhole(fd, read, lineByLine);
      if (read === 0) return undefined; // to the end, and no match possible
      // Searches keep to what was read: past it lie a previous file's bytes.
      if (buffer.subarray(kept, end).includes(0)) {
        if (lineByLine) return undefined; // binary
        return this.#readWhole(fd, position === 0 ? read : 0, false);
      }
      if (prefilter!.mayMatch(buffer, 0, end)) {
        // All of it is here when the first read came back short (the end of a regular file).
        if (position === 0 && end < buffer.length) return buffer.subarray(0, end);
        return this.#readWhole(fd, position === 0 ? read : 0, lineByLine);
      }
      position += read;
      kept = Math.min(keep, end);
      buffer.copyWithin(0, end - kept, end);
    }
  }

  /**
   * The whole file (the first `have` bytes are already at the buffer's start), or undefined when
   * it is over the size limit or, with `nulIsBinary` (line by line, in UTF-8), has a NUL byte.
   */
  #readWhole(fd: number, have: number, nulIsBinary: boolean): Uint8Array | undefined {
    let bytes: Buffer = chunkBuffer();
    let filled = have;
    if (nulIsBinary && bytes.subarray(0, filled).includes(0)) return undefined;
    for (;;) {
      if (filled === bytes.length) {
        if (filled > MAX_FILE_BYTES) return undefined;
        const larger = Buffer.allocUnsafe(Math.min(bytes.length * 4, MAX_FILE_BYTES + 1));
        bytes.copy(larger, 0, 0, filled);
        bytes = larger;
      }
      const read = readSync(fd, bytes, filled, bytes.length - filled, filled);
      if (read === 0) return bytes.subarray(0, filled);
      if (nulIsBinary && bytes.subarray(filled, filled + read).includes(0)) return undefined;
      filled += read;
    }
  }

  /**
   * Files and count modes, line by line, in UTF-8 with no NUL byte: only the lines whose bytes
   * hold the literal every match holds are decoded and matched. A UTF-8 line decodes alone as it
   * does within the file (a line break ends any sequence), so the count is the whole text's.
   */
  #countLines(
    path: string,
    bytes: Buffer,
    { from, needle }: { from: number; needle: Buffer },
  ): FileMatches | undefined {
    const { pattern, mode } = this.#search;
    const decoder = decoderFor("utf-8");
    const found = new FileLines(path, false);
    let matched = 0;
    for (let at = bytes.indexOf(needle, from); at !== -1; at = bytes.indexOf(needle, from)) {
      const start = Math.max(from, bytes.lastIndexOf(10, at) + 1);
      let end = bytes.indexOf(10, at);
      if (end === -1) end = bytes.length;
      const line = decoder.decode(bytes.subarray(start, end));
      // Numbered in order only: these modes show no line numbers.
      if (pattern.line.test(withoutCr(line))) found.add(++matched, "", true);
      if (matched > 0 && mode === "files_with_matches") break;
      from = end + 1;
    }
    return matched > 0 ? found.result() : undefined;
  }

  /**
   * The file's text as rg reads it with --encoding=utf-8 (a BOM decides UTF-8 or UTF-16 and is
   * dropped, invalid bytes become U+FFFD; a NUL byte, within the first 64 KB across lines, makes
   * it binary) searched, or undefined.
   */
  #searchBytes(path: string, bytes: Uint8Array): FileMatches | undefined {
    const search = this.#search;
    if (search.mode === "files_with_matches" && this.#prefilter?.exact && !search.multiline) {
      const bom = bomOf(bytes);
      // Line by line, a literal with no line break matches where its UTF-8 bytes are (and there
      // is no NUL byte, or the file would not have been read whole).
      if (!bom || bom.encoding === "utf-8") {
        const found = new FileLines(path, false);
        found.add(1, "", true);
        return found.result();
      }
    }
    const bom = bomOf(bytes);
    const needle = this.#prefilter?.needle;
    if (
      needle && search.mode !== "content" && !search.multiline && bom?.encoding !== "utf-16le" &&
      bom?.encoding !== "utf-16be"
    ) {
      return this.#countLines(path, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length), {
        from: bom?.length ?? 0,
        needle,
      });
    }
    const text = decoderFor(bom?.encoding ?? "utf-8").decode(bytes.subarray(bom?.length ?? 0));
    const nul = text.indexOf("\0");
    if (nul !== -1) {
      if (!search.multiline) return undefined;
      if (
        nul < MULTILINE_BINARY_WINDOW &&
        encoder.encode(text.slice(0, nul)).length < MULTILINE_BINARY_WINDOW
      ) {
        return undefined;
      }
      if (nulInReportedLines(text, search)) return undefined;
    }
    const found = searchText(path, text, search);
    return found.matchedLines > 0 ? found : undefined;
  }
}

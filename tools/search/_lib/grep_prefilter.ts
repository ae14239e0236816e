/**
 * A test on a file's raw bytes that the built-in search runs before decoding anything: when a
 * pattern is a plain literal, a file whose bytes hold no UTF-8 encoding of it has no match, so
 * most files are read in chunks and dropped without ever becoming text. A prefilter may say yes
 * wrongly (the text search then decides), never no wrongly.
 */
import { Buffer } from "node:buffer";

export interface Prefilter {
  /** Whether `bytes[from, to)` may hold a match. */
  mayMatch(bytes: Buffer, from: number, to: number): boolean;
  /** Bytes a match can span: a chunk keeps this many less one of the previous chunk's end. */
  span: number;
}

/** Characters that make a pattern more than a literal (a line break is left to the regex). */
const META = /[\\^$.|?*+()[\]{}\n\r]/;
/**
 * U+FFFD: decoding turns invalid bytes into it, so its bytes need not be in the file; U+FEFF:
 * decoding drops it at the start, so its bytes there may not be in the text.
 */
const DECODING_CHANGES = /[\ufffd\ufeff]/;

/**
 * Non-ASCII characters that JavaScript's case-insensitive Unicode matching folds onto ASCII
 * letters (simple case folding): the Kelvin sign is K, the long s is S.
 */
const NON_ASCII_FOLDS: Record<string, string> = { k: "\u212a", s: "\u017f" };

const escapeRegExp = (text: string) => text.replace(/[\\^$.|?*+()[\]{}-]/g, "\\$&");

/** The UTF-8 bytes of `text`, one latin1 character per byte. */
const latin1Bytes = (text: string) => Buffer.from(text, "utf8").toString("latin1");

/** The prefilter for `pattern`, or undefined when it is not a literal the bytes can show. */
export function prefilterFor(
  pattern: string,
  caseInsensitive: boolean,
): Prefilter | undefined {
  if (pattern === "" || META.test(pattern) || DECODING_CHANGES.test(pattern)) return undefined;
  // A lone surrogate has no UTF-8 form: it cannot be looked for in bytes.
  if (/\p{Surrogate}/u.test(pattern)) return undefined;
  if (!caseInsensitive) {
    const needle = Buffer.from(pattern, "utf8");
    return {
      span: needle.length,
      mayMatch: (bytes, from, to) => bytes.subarray(from, to).includes(needle),
    };
  }
  // Case-insensitive: ASCII letters only (each also as the non-ASCII letters folding onto it),
  // looked for in the bytes read as latin1, one character per byte.
  if (!/^[\x20-\x7e]+$/.test(pattern)) return undefined;
  let source = "";
  for (const c of pattern) {
    const lower = c.toLowerCase();
    const upper = c.toUpperCase();
    if (lower === upper) {
      source += escapeRegExp(c);
      continue;
    }
    const other = NON_ASCII_FOLDS[lower];
    source += other ? `(?:[${lower}${upper}]|${latin1Bytes(other)})` : `[${lower}${upper}]`;
  }
  const regex = new RegExp(source);
  return {
    // At most 3 bytes per character (the Kelvin sign).
    span: pattern.length * 3,
    mayMatch: (bytes, from, to) => regex.test(bytes.toString("latin1", from, to)),
  };
}

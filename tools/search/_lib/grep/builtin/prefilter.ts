/**
 * A test on a file's raw bytes that the built-in search runs before decoding anything: when a
 * pattern is a plain literal, a file whose bytes hold no UTF-8 encoding of it has no match, so
 * most files are read in chunks and dropped without ever becoming text. A prefilter may say yes
 * wrongly (the text search then decides), never no wrongly.
 */
import { Buffer } from "node:buffer";

export interface Prefilter {
  /**
   * The pattern is this literal: line by line, a file (UTF-8, no NUL byte) whose bytes hold it
   * has a match.
   */
  exact: boolean;
  /** The literal looked for: the pattern, or a part every match holds. */
  literal: string;
  /** Its UTF-8 bytes, when they are what is looked for (not case-insensitive). */
  needle?: Buffer;
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

/** A literal as a pattern (with or without the u flag: nothing is escaped that u refuses). */
export const escapeRegExp = (text: string) => text.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");

/** The UTF-8 bytes of `text`, one latin1 character per byte. */
const latin1Bytes = (text: string) => Buffer.from(text, "utf8").toString("latin1");

/** The length of the escape at `at` (a backslash): \p{…}, \u{…}, \uXXXX, \xHH, \cX or two. */
function escapeLength(pattern: string, at: number): number {
  const token =
    /^\\(?:[pPk]\{[^}]*\}|[pPk]<[^>]*>|u\{[0-9A-Fa-f]+\}|u[0-9A-Fa-f]{4}|x[0-9A-Fa-f]{2}|c[A-Za-z])/
      .exec(pattern.slice(at, at + 64));
  return token ? token[0].length : 2;
}

/** Where the group or class opened at `at` ends (the index after its closing bracket). */
function skipBracketed(pattern: string, at: number): number {
  let depth = 0;
  let inClass = false;
  for (let i = at; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) {
      if (c === "]") {
        inClass = false;
        if (depth === 0) return i + 1;
      }
    } else if (c === "[") inClass = true;
    else if (c === "(") depth++;
    else if (c === ")" && --depth === 0) return i + 1;
  }
  return pattern.length;
}

/** The length of the quantifier at `at`, 0 when there is none. */
function quantifierLength(pattern: string, at: number): number {
  const quantifier = /^(?:[*+?]|\{\d+(?:,\d*)?\})\??/.exec(pattern.slice(at, at + 32));
  return quantifier ? quantifier[0].length : 0;
}

/**
 * The longest run of plain characters that every match of `pattern` holds, in order: the
 * characters of its top-level sequence that no quantifier applies to, between groups, classes
 * and other escapes. Undefined when the top level has alternatives or the run is shorter than 2.
 */
export function requiredLiteral(pattern: string): string | undefined {
  let best = "";
  let run = "";
  const flush = () => {
    if (run.length > best.length) best = run;
    run = "";
  };
  for (let i = 0; i < pattern.length;) {
    const c = pattern[i];
    let literal: string | undefined;
    let next: number;
    if (c === "|") return undefined;
    if (c === "\\") {
      const escaped = pattern[i + 1] ?? "";
      next = i + escapeLength(pattern, i);
      if (/^[^A-Za-z0-9]$/.test(escaped)) literal = escaped;
    } else if (c === "[" || c === "(") {
      next = skipBracketed(pattern, i);
    } else {
      next = i + 1;
      if (!".^$)".includes(c)) literal = c;
    }
    const quantifier = quantifierLength(pattern, next);
    if (quantifier > 0 || literal === undefined || literal === "\n" || literal === "\r") {
      flush();
    } else run += literal;
    i = next + quantifier;
  }
  flush();
  return best.length >= 2 ? best : undefined;
}

/**
 * The prefilter for `pattern`: its bytes when it is a literal, else those of a literal every
 * match holds (requiredLiteral); undefined when there is none the bytes can show.
 */
export function prefilterFor(
  pattern: string,
  caseInsensitive: boolean,
): Prefilter | undefined {
  const exact = pattern !== "" && !META.test(pattern);
  const literal = exact ? pattern : requiredLiteral(pattern);
  if (literal === undefined || DECODING_CHANGES.test(literal)) return undefined;
  // A lone surrogate has no UTF-8 form: it cannot be looked for in bytes.
  if (/\p{Surrogate}/u.test(literal)) return undefined;
  if (!caseInsensitive) {
    const needle = Buffer.from(literal, "utf8");
    return {
      exact,
      literal,
      needle,
      span: needle.length,
      mayMatch: (bytes, from, to) => bytes.subarray(from, to).includes(needle),
    };
  }
  // Case-insensitive: ASCII letters only (each also as the non-ASCII letters folding onto it),
  // looked for in the bytes read as latin1, one character per byte.
  if (!/^[\x20-\x7e]+$/.test(literal)) return undefined;
  let source = "";
  for (const c of literal) {
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
    exact,
    literal,
    // At most 3 bytes per character (the Kelvin sign).
    span: literal.length * 3,
    mayMatch: (bytes, from, to) => regex.test(bytes.toString("latin1", from, to)),
  };
}

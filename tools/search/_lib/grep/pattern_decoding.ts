/**
 * Whether rg must decode files before matching (--encoding=utf-8) to find what the built-in search
 * finds. Decoded, each invalid UTF-8 sequence is one U+FFFD; raw, rg matches bytes, and no part of
 * a pattern matches an invalid byte. Valid sequences decode to themselves (the decoder never
 * swallows a byte that starts one), and BOMs are handled alike either way (UTF-8's dropped, UTF-16
 * transcoded). So a pattern no part of which can match U+FFFD finds the same lines at the same
 * columns on raw bytes, and rg may skip the decoding, which costs it about a tenth of its time.
 */

const REPLACEMENT = 0xfffd;

/** Code point of the \u escape at `at` (a backslash) and its length, if it is one. */
function unicodeEscape(pattern: string, at: number): { code: number; length: number } | undefined {
  const rest = pattern.slice(at);
  const braced = /^\\u\{([0-9A-Fa-f]+)\}/.exec(rest);
  if (braced) return { code: parseInt(braced[1], 16), length: braced[0].length };
  const pair = /^\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})/i.exec(rest);
  if (pair) {
    const code = (parseInt(pair[1], 16) - 0xd800) * 0x400 + parseInt(pair[2], 16) - 0xdc00 +
      0x10000;
    return { code, length: 12 };
  }
  const four = /^\\u([0-9A-Fa-f]{4})/.exec(rest);
  if (four) return { code: parseInt(four[1], 16), length: 6 };
  const hex = /^\\x([0-9A-Fa-f]{2})/.exec(rest);
  if (hex) return { code: parseInt(hex[1], 16), length: 4 };
  return undefined;
}

/**
 * Whether some part of `pattern` (grep's JavaScript syntax, already accepted by compilePattern)
 * may match U+FFFD: `.`, a negated class, \D \W \S \p \P, U+FFFD itself, or a class range
 * around it. Conservative: anything not understood counts as yes.
 */
export function mayMatchReplacement(pattern: string): boolean {
  let inClass = false;
  /** In a class: the code of the atom just read (a range's low end), and whether a - follows. */
  let previous: number | undefined;
  let rangeFrom: number | undefined;
  for (let i = 0; i < pattern.length;) {
    const c = pattern.codePointAt(i)!;
    let code: number | undefined;
    let length = c > 0xffff ? 2 : 1;
    if (c === 0x5c) { // a backslash
      const next = pattern[i + 1] ?? "";
      if ("DWSpP".includes(next) || next === "") return true;
      const escaped = unicodeEscape(pattern, i);
      if (escaped) [code, length] = [escaped.code, escaped.length];
      else {
        length = 2;
        // \d \w \s \b \B and the like: no U+FFFD, and never a range's end. Other escaped
        // characters stand for themselves (\n, \t, \c are control characters).
        code = /[dwsbB]/.test(next) ? undefined : (next.codePointAt(0)! < 0x80 ? 0 : REPLACEMENT);
      }
    } else if (!inClass) {
      if (c === 0x2e) return true; // .
      if (c === 0x5b) { // [
        if (pattern[i + 1] === "^") return true;
        inClass = true;
        previous = rangeFrom = undefined;
        i += 1;
        continue;
      }
      code = c;
    } else if (c === 0x5d) { // ]
      // A - just before ] is a literal, as is the atom before it (checked when read).
      inClass = false;
      i += 1;
      continue;
    } else if (c === 0x2d && previous !== undefined && rangeFrom === undefined) { // - after an atom
      rangeFrom = previous;
      previous = undefined;
      i += 1;
      continue;
    } else code = c;
    if (code === REPLACEMENT) return true;
    if (inClass) {
      if (rangeFrom !== undefined) {
        if (code === undefined || (rangeFrom <= REPLACEMENT && REPLACEMENT <= code)) return true;
        rangeFrom = previous = undefined;
      } else previous = code;
    }
    i += length;
  }
  return inClass;
}

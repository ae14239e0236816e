/**
 * grep's pattern language: ECMAScript (JavaScript) regular expressions without the features
 * ripgrep's Rust engine lacks (lookaround, backreferences), so that both searches accept the same
 * patterns and find the same lines. Each pattern is checked once and translated twice: for
 * JavaScript (lines matched one by one, or whole texts) and for rg, where the escapes whose
 * meanings differ (\d \w \s \b, \u, and punctuation) are spelled out to mean what JavaScript means.
 */
import { bounded, quoted } from "../../../../config/quote.ts";
import { ToolError } from "../../../../mcp/tool/mod.ts";

export interface PatternOptions {
  caseInsensitive: boolean;
  /** Matches may span lines and `.` matches newlines. */
  multiline: boolean;
}

export interface CompiledPattern {
  /** The pattern as given (a worker compiles it again: a RegExp does not cross threads whole). */
  source: string;
  /** For one line (without its line break); line mode only. */
  line: RegExp;
  /**
   * For a whole text, global, with `^` and `$` at line breaks. In multiline mode this is the
   * search; in line mode a quick test that finds every file with a matching line (and maybe more).
   */
  text: RegExp;
  /** The same pattern for rg (Rust regex syntax). */
  rust: string;
  /**
   * Whether every match must end at a `$` (every alternative ends with one): rg (--crlf) then
   * drops a \r that ends a match, since its `$` may have taken one.
   */
  endAnchor: boolean;
}

/** Characters Rust lets a backslash escape; any other punctuation must stand bare there. */
const RUST_META = new Set("\\.+*?()|[]{}^$#&-~");

/** What \s means in JavaScript, in Rust terms: Unicode White_Space has U+0085 but not U+FEFF. */
const RUST_SPACE = "[\\s\\x{FEFF}&&[^\\x{85}]]";
const RUST_CLASSES: Record<string, string> = {
  d: "[0-9]",
  D: "[^0-9]",
  w: "[0-9A-Za-z_]",
  W: "[^0-9A-Za-z_]",
  s: RUST_SPACE,
  S: `[^${RUST_SPACE.slice(1)}`,
};

/**
 * Outside multiline mode rg (with --crlf) strips \r from every class and refuses a literal one, so
 * no pattern matches a \r inside a line (the \r of a \r\n line end is not part of the line).
 */
const CARRIAGE_RETURN_REFUSAL = "matches a carriage return (\\r), which grep matches only " +
  "with multiline set: lines are searched without their line break, and a \\r inside a line " +
  "is never matched";

function refuse(pattern: string, why: string): never {
  throw new ToolError(`pattern ${quoted(pattern)} ${why}`);
}

interface Translation {
  /** JavaScript for one line at a time: `^`/`$` are the line's ends. */
  jsLine: string;
  /** JavaScript for whole texts: `^`/`$` at "\n" only (never at "\r" or U+2028 as the m flag would). */
  jsText: string;
  rust: string;
}

function translate(pattern: string, multiline: boolean): Translation {
  let jsLine = "";
  let jsText = "";
  let rust = "";
  const both = (js: string, rs = js) => {
    jsLine += js;
    jsText += js;
    rust += rs;
  };
  const noNewline = () => {
    if (!multiline) {
      refuse(pattern, "contains a line break: set multiline to true to match across lines");
    }
  };
  const noCarriageReturn = () => {
    if (!multiline) refuse(pattern, CARRIAGE_RETURN_REFUSAL);
  };
  // For lines, JavaScript is kept off a \r inside the line as rg is: a guard before each part
  // that could match one (a class, `.`, \s \W \D \p \P).
  const guard = (js: string) => multiline ? js : `(?:(?!\\r)${js})`;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\n") noNewline();
    if (c === "\r") noCarriageReturn();
    if (c === "\\") {
      const escape = escapeFor(pattern, i, inClass, noNewline, noCarriageReturn);
      i += escape.length - 1;
      jsLine += !inClass && escape.matchesCarriageReturn ? guard(escape.source) : escape.source;
      jsText += escape.source;
      rust += escape.rust;
      continue;
    }
    if (inClass) {
      if (c === "]") {
        inClass = false;
        both(c);
        if (!multiline) jsLine += ")";
        continue;
      }
      if (c === "[" && pattern[i + 1] === ":") {
        refuse(pattern, "uses a POSIX class like [:alpha:]: write the characters, as in [A-Za-z]");
      }
      if (c === "-" && pattern[i + 1] === "-") {
        refuse(pattern, 'has "--" in a character class: write \\- for a literal hyphen');
      }
      // Inside a class Rust reads [ as a nested class and && ~~ as set operations.
      both(c, c === "[" || c === "&" || c === "~" ? `\\${c}` : c);
      continue;
    }
    if (c === "[") {
      if (pattern.startsWith("[]", i) || pattern.startsWith("[^]", i)) {
        refuse(pattern, "has an empty class [] or [^], which rg reads differently: avoid them");
      }
      inClass = true;
      jsLine += multiline ? "[" : "(?:(?!\\r)[";
      jsText += "[";
      rust += "[";
    } else if (c === "(" && pattern[i + 1] === "?") {
      const rest = pattern.slice(i + 2);
      if (/^(=|!|<=|<!)/.test(rest)) {
        refuse(
          pattern,
          "uses lookahead or lookbehind, which rg's engine does not have: match the text itself",
        );
      }
      const named = /^<([A-Za-z_][A-Za-z0-9_]*)>/.exec(rest);
      if (named) {
        both(`(?<${named[1]}>`, `(?P<${named[1]}>`);
        i += 1 + named[0].length;
      } else both(c);
    } else if (c === ".") {
      jsLine += multiline ? "." : "[^\\n\\r]";
      jsText += multiline ? "." : "[^\\n]";
      rust += ".";
    } else if (c === "^") {
      jsLine += "^";
      jsText += "(?<![^\\n])";
      rust += "^";
    } else if (c === "$") {
      jsLine += "$";
      // rg (--crlf) reads `$` as `(?:\r??$)`: it may take the \r of a \r\n.
      jsText += "(?:\\r??(?=\\n|$))";
      rust += "$";
    } else {
      both(c);
    }
  }
  return { jsLine, jsText, rust };
}

interface Escape {
  /** Characters of the pattern it takes. */
  length: number;
  source: string;
  rust: string;
  /** A class escape that includes \r. */
  matchesCarriageReturn?: boolean;
}

function escapeFor(
  pattern: string,
  at: number,
  inClass: boolean,
  noNewline: () => void,
  noCarriageReturn: () => void,
): Escape {
  const c = pattern[at + 1] ?? "";
  const plain = (rust = `\\${c}`) => ({ length: 2, source: `\\${c}`, rust });
  const codeIs = (code: number) => {
    if (code === 0x0a) noNewline();
    if (code === 0x0d) noCarriageReturn();
  };
  if (c in RUST_CLASSES) {
    const rust = RUST_CLASSES[c];
    // Inside a class the positive ones are written as ranges, the others as nested classes.
    const escape = plain(inClass && "dw".includes(c) ? rust.slice(1, -1) : rust);
    return { ...escape, matchesCarriageReturn: "sDW".includes(c) };
  }
  const property = /^\\[pP]\{[^}]*\}/.exec(pattern.slice(at));
  if (property) {
    const token = property[0];
    return { length: token.length, source: token, rust: token, matchesCarriageReturn: true };
  }
  if (c === "r") noCarriageReturn();
  const hex = /^\\x([0-9A-Fa-f]{2})/.exec(pattern.slice(at));
  if (hex) {
    codeIs(parseInt(hex[1], 16));
    return { length: 4, source: hex[0], rust: hex[0] };
  }
  if (/[1-9]/.test(c) || c === "k") {
    refuse(pattern, "uses a backreference, which rg's engine does not have");
  }
  if (c === "n") noNewline();
  if (c === "b") return plain(inClass ? "\\x08" : "(?-u:\\b)");
  if (c === "B") return plain("(?-u:\\B)");
  if (c === "0" && !/[0-9]/.test(pattern[at + 2] ?? "")) return plain("\\x00");
  if (c === "c" && /[A-Za-z]/.test(pattern[at + 2] ?? "")) {
    const code = pattern.charCodeAt(at + 2) % 32;
    codeIs(code);
    return { length: 3, source: pattern.slice(at, at + 3), rust: `\\x{${code.toString(16)}}` };
  }
  if (c === "u") {
    const braced = /^\\u\{([0-9A-Fa-f]+)\}/.exec(pattern.slice(at));
    if (braced) {
      codeIs(parseInt(braced[1], 16));
      return { length: braced[0].length, source: braced[0], rust: `\\x{${braced[1]}}` };
    }
    const pair = /^\\u(D[89AB][0-9A-F]{2})\\u(D[C-F][0-9A-F]{2})/i.exec(pattern.slice(at));
    if (pair) {
      const code = (parseInt(pair[1], 16) - 0xd800) * 0x400 + parseInt(pair[2], 16) - 0xdc00 +
        0x10000;
      return { length: 12, source: pair[0], rust: `\\x{${code.toString(16)}}` };
    }
    const four = /^\\u([0-9A-Fa-f]{4})/.exec(pattern.slice(at));
    if (four) {
      codeIs(parseInt(four[1], 16));
      return { length: 6, source: four[0], rust: `\\x{${four[1]}}` };
    }
  }
  if (/[^A-Za-z0-9]/.test(c) && c !== "") return plain(RUST_META.has(c) ? `\\${c}` : c);
  return plain();
}

/** Checks `pattern` and compiles it for both searches, or says what to change. */
export function compilePattern(pattern: string, options: PatternOptions): CompiledPattern {
  const flags = options.caseInsensitive ? "ui" : "u";
  // Refusals first: they say more than the syntax error the same pattern may also be.
  const { jsLine, jsText, rust } = translate(pattern, options.multiline);
  try {
    new RegExp(pattern, flags);
  } catch (error) {
    // The runtime's message may quote the whole pattern.
    refuse(pattern, `is not a valid regular expression: ${bounded((error as Error).message, 300)}`);
  }
  return {
    source: pattern,
    line: new RegExp(jsLine, flags),
    text: new RegExp(jsText, `${flags}g${options.multiline ? "s" : ""}`),
    rust,
    endAnchor: anchoredAtLineEnd(pattern),
  };
}

/**
 * Whether each top-level alternative of `pattern` ends with `$`, or with a group of which that
 * holds (regex-syntax's "line anchored at the end", which decides rg's \r stripping). One pass
 * finds the groups and where their alternatives split; then each group is looked at once at
 * most, so a pattern of 5,000 nested groups costs what its length does, not its length squared.
 */
function anchoredAtLineEnd(pattern: string): boolean {
  interface Group {
    /** Where its alternatives start: just past the `(` (and its `?:` or `?<name>`), or 0. */
    start: number;
    /** Where each `|` of its own depth is. */
    bars: number[];
    /** Its closing `)`, or the pattern's length for the top level. */
    end: number;
  }
  const top: Group = { start: 0, bars: [], end: pattern.length };
  const open: Group[] = [top];
  /** The group each `)` closes, by the `)`'s index. */
  const closes = new Map<number, Group>();
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i];
    if (c === "\\") i++;
    else if (inClass) inClass = c !== "]";
    else if (c === "[") inClass = true;
    else if (c === "(") {
      const prefix = /^\?(:|<[A-Za-z_][A-Za-z0-9_]*>)/.exec(pattern.slice(i + 1, i + 260));
      open.push({ start: i + 1 + (prefix?.[0].length ?? 0), bars: [], end: -1 });
    } else if (c === ")") {
      // An unbalanced pattern never compiles; it is not anchored either.
      if (open.length === 1) return false;
      const group = open.pop()!;
      group.end = i;
      closes.set(i, group);
    } else if (c === "|") open[open.length - 1].bars.push(i);
  }
  if (open.length !== 1) return false;
  /** Whether [from, to) ends with a `$` that is not escaped (`\$` is a literal, `\\$` is not). */
  const endsWithDollar = (from: number, to: number) => {
    if (to <= from || pattern[to - 1] !== "$") return false;
    let slashes = 0;
    for (let at = to - 2; at >= from && pattern[at] === "\\"; at--) slashes++;
    return slashes % 2 === 0;
  };
  const pending: Group[] = [top];
  while (pending.length > 0) {
    const group = pending.pop()!;
    const starts = [group.start, ...group.bars.map((bar) => bar + 1)];
    const ends = [...group.bars, group.end];
    for (let k = 0; k < starts.length; k++) {
      if (endsWithDollar(starts[k], ends[k])) continue;
      const last = closes.get(ends[k] - 1);
      // The alternative ends with a group of its own: that group must be anchored in turn.
      if (last && last.start > starts[k]) pending.push(last);
      else return false;
    }
  }
  return true;
}

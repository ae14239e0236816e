/**
 * JSONC (JSON with comments and trailing commas) parsed into a tree that keeps where each value
 * is, so that every complaint about a config file can point at a line and column.
 */
import {
  getNodeValue,
  type Node,
  type ParseError,
  parseTree,
  printParseErrorCode,
} from "jsonc-parser";

/** A problem in the text, at an offset: what is wrong and what is allowed instead. */
export interface TextProblem {
  offset: number;
  message: string;
}

export interface JsoncDocument {
  /** The tree; undefined for a file with nothing but whitespace and comments. */
  root: Node | undefined;
  value: unknown;
}

const JSONC = "JSON with // and /* */ comments and trailing commas";

/** What each parse error means, and what would be allowed there. `%s` is the text found. */
const PARSE_MESSAGES: Record<string, string> = {
  InvalidSymbol: `unexpected %s; allowed: ${JSONC}`,
  InvalidNumberFormat:
    "%s is not a number; allowed: numbers as JSON writes them, such as 1000 or 0.5",
  PropertyNameExpected: `expected a key in double quotes, found %s; allowed: ${JSONC}`,
  ValueExpected:
    "expected a value, found %s; allowed: a string in double quotes, a number, true, false, null, an object or an array",
  ColonExpected: 'expected ":" after the key, found %s; allowed: "key": value',
  CommaExpected:
    'expected "," before %s; allowed: entries separated by commas (a trailing one is fine)',
  CloseBraceExpected: 'expected "}" to close the object, found %s; allowed: ' + JSONC,
  CloseBracketExpected: 'expected "]" to close the array, found %s; allowed: ' + JSONC,
  EndOfFileExpected:
    "unexpected %s after the end of the top-level value; allowed: one object per file",
  InvalidCommentToken: `invalid comment; allowed: ${JSONC}`,
  UnexpectedEndOfComment:
    "a /* comment is never closed; allowed: /* … */ or // to the end of the line",
  UnexpectedEndOfString: 'a string is never closed; allowed: strings closed by " on the same line',
  UnexpectedEndOfNumber:
    "a number ends too soon; allowed: numbers as JSON writes them, such as 1e3",
  InvalidUnicode: "an invalid \\u escape; allowed: \\u followed by four hex digits",
  InvalidEscapeCharacter:
    'an invalid escape in a string; allowed: \\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX (write \\\\ for a backslash, as in Windows paths)',
  InvalidCharacter:
    "a control character (such as a raw tab or line break) in a string; allowed: its escape, such as \\t or \\n",
};

/** The text at a parse error, shortened, for "found …". */
function found(text: string, error: ParseError): string {
  if (error.offset >= text.length) return "the end of the file";
  const token =
    text.slice(error.offset, error.offset + Math.max(error.length, 1)).split(/\r?\n/)[0];
  return JSON.stringify(token.length > 20 ? `${token.slice(0, 20)}…` : token);
}

/** The parser reports a bad escape at the start of its string; point at the backslash instead. */
function escapeOffset(text: string, error: ParseError): number {
  const code = printParseErrorCode(error.error);
  if (code !== "InvalidEscapeCharacter" && code !== "InvalidUnicode") return error.offset;
  const string = text.slice(error.offset, error.offset + error.length);
  const bad = code === "InvalidUnicode" ? /\\u(?![0-9a-fA-F]{4})/ : /\\[^"\\/bfnrtu]/;
  const at = string.search(bad);
  return at < 0 ? error.offset : error.offset + at;
}

/**
 * The parser's objects have no prototype; settings are ordinary objects. `Object.fromEntries`
 * keeps a "__proto__" key an ordinary key.
 */
function plain(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, plain(item)]));
  }
  return value;
}

/**
 * Parses JSONC. Only the first syntax error is reported: the parser recovers, but what it says
 * after an error is mostly the echo of that error.
 */
export function parseJsonc(text: string): { document?: JsoncDocument; problem?: TextProblem } {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: true,
  });
  if (errors.length > 0) {
    const [first] = errors;
    const template = PARSE_MESSAGES[printParseErrorCode(first.error)] ??
      `invalid syntax; allowed: ${JSONC}`;
    const message = template.replace("%s", found(text, first));
    return { problem: { offset: escapeOffset(text, first), message } };
  }
  return { document: { root, value: root === undefined ? undefined : plain(getNodeValue(root)) } };
}

/** A key given twice in one object: JSON parsers quietly keep one of them, which hides mistakes. */
export function duplicateKeys(text: string, root: Node | undefined): TextProblem[] {
  const problems: TextProblem[] = [];
  const visit = (node: Node) => {
    if (node.type === "object") {
      const seen = new Map<string, Node>();
      for (const property of node.children ?? []) {
        const key = property.children?.[0];
        if (!key) continue;
        const first = seen.get(key.value);
        if (first) {
          problems.push({
            offset: key.offset,
            message: `the key ${JSON.stringify(key.value)} is given twice (first on line ${
              lineColumn(text, first.offset).line
            }); allowed: each key once per object`,
          });
        } else {
          seen.set(key.value, key);
        }
      }
    }
    for (const child of node.children ?? []) visit(child);
  };
  if (root) visit(root);
  return problems;
}

/**
 * The node at a path of keys and array indexes (as strings, the way JSON Pointers give them):
 * the value, or with `key` the property's key.
 */
export function nodeAt(root: Node | undefined, path: string[], key = false): Node | undefined {
  let node = root;
  for (const [i, segment] of path.entries()) {
    if (!node) return undefined;
    if (node.type === "array") {
      node = node.children?.[Number(segment)];
    } else if (node.type === "object") {
      const property = node.children?.findLast((p) => p.children?.[0]?.value === segment);
      if (key && i === path.length - 1) return property?.children?.[0];
      node = property?.children?.[1];
    } else {
      return undefined;
    }
  }
  return node;
}

/** 1-based line and column (in UTF-16 code units, as editors count) of an offset. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let start = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    const ch = text.charCodeAt(i);
    // \n, \r\n and a lone \r each end a line, as the JSONC scanner counts them.
    if (ch === 10 || (ch === 13 && text.charCodeAt(i + 1) !== 10)) {
      line++;
      start = i + 1;
    }
  }
  return { line, column: offset - start + 1 };
}

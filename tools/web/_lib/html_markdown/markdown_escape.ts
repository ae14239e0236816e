/**
 * Text made safe to write into markdown: paragraph text whose characters or line starts would
 * otherwise read as markup, link destinations, heading lines, and code fences that the code
 * inside them cannot close.
 */

const SPECIAL = /[\\`*_[\]<&~]/;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const ENTITY = /&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/iy;

/**
 * Text escaped for a markdown paragraph, where a character would otherwise start markup:
 * brackets and backticks always, `*` unless spaced on both sides, `_` unless inside a word,
 * `~~`, `<` before a tag-like character, `&` before an entity, `\` before punctuation.
 * Line starts (`#`, `>`, `-`, `1.`) are handled per line by `escapeLineStart`.
 */
export function escapeMarkdown(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const before = text[i - 1] ?? "";
    const after = text[i + 1] ?? "";
    switch (ch) {
      case "\\":
        out += after === "" || ASCII_PUNCTUATION.test(after) ? "\\\\" : "\\";
        break;
      case "`":
      case "[":
      case "]":
        out += `\\${ch}`;
        break;
      case "*":
        out += before === " " && after === " " ? "*" : "\\*";
        break;
      case "_":
        out += WORD_CHAR.test(before) && WORD_CHAR.test(after) ? "_" : "\\_";
        break;
      case "~":
        out += before === "~" || after === "~" ? "\\~" : "~";
        break;
      case "<":
        out += /[A-Za-z/!?]/.test(after) ? "\\<" : "<";
        break;
      case "&":
        ENTITY.lastIndex = i;
        out += ENTITY.test(text) ? "\\&" : "&";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/** A line of paragraph text escaped where its start would read as a heading, quote or list. */
export function escapeLineStart(line: string): string {
  if (/^(?:#{1,6}(?:[ \t]|$)|>|[-+](?:[ \t]|$)|=+[ \t]*$|(?:[-_][ \t]*){3,}$)/.test(line)) {
    return `\\${line}`;
  }
  const ordered = /^(\d{1,9})([.)])(?:[ \t]|$)/.exec(line);
  return ordered ? `${ordered[1]}\\${line.slice(ordered[1].length)}` : line;
}

/**
 * An ATX heading of `level` over `text` (already escaped inline markdown): a run of `#` that
 * ends the text is escaped, or it would read as the heading's closing sequence and vanish.
 */
export function headingLine(level: number, text: string): string {
  return `${"#".repeat(level)} ${text.replace(/(^| )(#+)$/, "$1\\$2")}`;
}

/** A link destination that survives spaces, angle brackets and unbalanced parentheses. */
export function linkDestination(url: string): string {
  if (/[\s<>]/.test(url)) return `<${url.replace(/[\s<>]/g, encodeURIComponent)}>`;
  let depth = 0;
  for (const ch of url) {
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) break;
  }
  return depth === 0 ? url : url.replace(/[()]/g, "\\$&");
}

/** The longest run of `char` in `text`: a code fence one longer cannot be closed by the code. */
export function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text[i] === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

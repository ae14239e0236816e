/**
 * The text of a symbol edit, as a careful human would make it: the new text re-indented to the
 * symbol's place, decorators, attributes and doc comments kept unless the new text brings its
 * own, and the blank lines between definitions kept as the file has them.
 */
import type { CodeSymbol } from "./parse/mod.ts";

export type EditOperation =
  | "replace_body"
  | "replace_definition"
  | "insert_before"
  | "insert_after";

/** What changes: `text[from, to)` becomes `insert`. */
export interface Splice {
  from: number;
  to: number;
  insert: string;
}

export class SpliceError extends Error {}

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** The whitespace that starts the line holding `at`. */
function indentAt(text: string, at: number): string {
  const start = lineStart(text, at);
  return /^[ \t]*/.exec(text.slice(start, start + 200))![0];
}

/** One level of indentation in this file: a tab, or the smallest step of spaces (default 4). */
export function indentUnit(text: string): string {
  let smallest = 0;
  let lines = 0;
  for (const match of text.matchAll(/^([ \t]+)\S/gm)) {
    if (match[1].startsWith("\t")) return "\t";
    const width = match[1].length;
    if (width >= 2 && (smallest === 0 || width < smallest)) smallest = width;
    if (++lines > 2000) break;
  }
  return " ".repeat(smallest === 2 || smallest === 3 ? smallest : 4);
}

/**
 * `text` with its common indentation replaced by `indent`; the first line gets none when
 * `indentFirst` is false (it goes where the old text started). Blank lines at either end go.
 */
export function reindent(text: string, indent: string, indentFirst: boolean): string {
  const lines = text.replaceAll("\r\n", "\n").split("\n");
  while (lines.length > 0 && lines[0].trim() === "") lines.shift();
  while (lines.length > 0 && lines.at(-1)!.trim() === "") lines.pop();
  let common: string | undefined;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const lead = /^[ \t]*/.exec(line)![0];
    if (common === undefined || lead.length < common.length) common = lead;
  }
  const cut = common?.length ?? 0;
  return lines.map((line, i) => {
    if (line.trim() === "") return "";
    const body = line.slice(Math.min(cut, /^[ \t]*/.exec(line)![0].length));
    return i === 0 && !indentFirst ? body : indent + body;
  }).join("\n");
}

/** Blank lines directly above line start `at` (`up`) or directly below the line ending at `at`. */
function blankLines(text: string, at: number, up: boolean): number {
  let count = 0;
  if (up) {
    let end = at - 1; // the "\n" ending the line above
    while (end > 0) {
      const start = text.lastIndexOf("\n", end - 1) + 1;
      if (text.slice(start, end).trim() !== "") break;
      count++;
      if (start === 0) break;
      end = start - 1;
    }
  } else {
    let start = text.indexOf("\n", at);
    while (start >= 0 && start < text.length - 1) {
      const end = text.indexOf("\n", start + 1);
      if (text.slice(start + 1, end < 0 ? undefined : end).trim() !== "") break;
      count++;
      if (end < 0) break;
      start = end;
    }
  }
  return count;
}

/** How many blank lines separate definitions beside `symbol`, as the file has them. */
function separation(text: string, symbol: CodeSymbol, all: CodeSymbol[], python: boolean): number {
  const siblings = all.filter((s) => s.parent === symbol.parent && s !== symbol);
  const before = siblings.some((s) => s.end <= symbol.start);
  const after = siblings.some((s) => s.start >= symbol.end);
  const gap = before
    ? blankLines(text, lineStart(text, symbol.start), true)
    : after
    ? blankLines(text, symbol.end, false)
    : python && symbol.parent === undefined
    ? 2
    : 1;
  return Math.min(gap, 2);
}

/** Whether `text` starts (after blank space) with a string literal: a docstring of its own. */
export function startsWithDocstring(text: string): boolean {
  return /^\s*[rRbBuUfF]{0,2}("""|'''|"|')/.test(text);
}

/** Whether replacement text starts with a comment, or with a decorator or attribute. */
function leadingPart(text: string): "comment" | "decoration" | undefined {
  const start = text.trimStart();
  if (/^(#\[|@|\[\[)/.test(start)) return "decoration";
  if (/^(\/\/|\/\*|#)/.test(start)) return "comment";
  return undefined;
}

/** The splice that performs `operation` on `symbol` with `given` text. */
export function spliceFor(
  text: string,
  symbol: CodeSymbol,
  all: CodeSymbol[],
  operation: EditOperation,
  given: string,
  python: boolean,
): Splice {
  const unit = indentUnit(text);
  const ownIndent = indentAt(text, symbol.head);
  switch (operation) {
    case "replace_definition": {
      const lead = leadingPart(given);
      const from = lead === "comment"
        ? symbol.start
        : lead === "decoration"
        ? Math.min(symbol.decorations, symbol.head)
        : symbol.head;
      return { from, to: symbol.end, insert: reindent(given, indentAt(text, from), false) };
    }
    case "insert_before": {
      const at = lineStart(text, symbol.start);
      const gap = "\n".repeat(separation(text, symbol, all, python));
      const indent = indentAt(text, symbol.start);
      return { from: at, to: at, insert: `${reindent(given, indent, true)}\n${gap}` };
    }
    case "insert_after": {
      const newline = text.indexOf("\n", symbol.end);
      const at = newline < 0 ? text.length : newline + 1;
      const gap = "\n".repeat(separation(text, symbol, all, python));
      const lead = newline < 0 ? "\n" : "";
      const indent = indentAt(text, symbol.start);
      return { from: at, to: at, insert: `${lead}${gap}${reindent(given, indent, true)}\n` };
    }
    case "replace_body":
      return bodySplice(text, symbol, given, unit, ownIndent);
  }
}

function bodySplice(
  text: string,
  symbol: CodeSymbol,
  given: string,
  unit: string,
  ownIndent: string,
): Splice {
  const body = symbol.body;
  if (!body) {
    throw new SpliceError(
      `${symbol.kind} ${symbol.namePath} has no body to replace; use replace_definition`,
    );
  }
  if (body.colon !== undefined) {
    // A Python block: everything after the colon, on lines of its own; its docstring is kept
    // unless the new text starts with one.
    const ownLine = text.slice(lineStart(text, body.start), body.start).trim() === "";
    const indent = ownLine ? indentAt(text, body.start) : ownIndent + unit;
    const from = body.doc && ownLine && !startsWithDocstring(given) ? body.doc.end : body.colon;
    return { from, to: body.end, insert: `\n${reindent(given, indent, true)}` };
  }
  const braces = text[body.start] === "{" && text[body.end - 1] === "}";
  if (!braces) {
    return { from: body.start, to: body.end, insert: reindent(given, ownIndent, false) };
  }
  const closing = text.slice(lineStart(text, body.end - 1), body.end - 1).trim() === ""
    ? indentAt(text, body.end - 1)
    : ownIndent;
  const trimmed = given.trim();
  if (trimmed.startsWith("{") && trimmed.endsWith("}")) {
    return { from: body.start, to: body.end, insert: reindent(given, closing, false) };
  }
  if (trimmed === "") return { from: body.start + 1, to: body.end - 1, insert: "" };
  const inside = text.slice(body.start + 1, body.end - 1);
  const firstLine = /\n([ \t]*)\S/.exec(inside);
  const indent = firstLine ? firstLine[1] : closing + unit;
  return {
    from: body.start + 1,
    to: body.end - 1,
    insert: `\n${reindent(given, indent, true)}\n${closing}`,
  };
}

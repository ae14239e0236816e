/**
 * Exact-string edits for edit_file: find an old string, count it, replace it literally, and when
 * it is not there, point at the lines that come closest, so the model can correct itself.
 */
import { lineOf } from "../../_lib/text/lines.ts";

/** Start offsets of every non-overlapping occurrence of `needle`. */
export function occurrences(haystack: string, needle: string): number[] {
  const found: number[] = [];
  for (
    let at = haystack.indexOf(needle);
    at !== -1;
    at = haystack.indexOf(needle, at + needle.length)
  ) {
    found.push(at);
  }
  return found;
}

export { lineOf } from "../../_lib/text/lines.ts";

/** Replaces the occurrences at `starts` literally: `$&` and friends in `replacement` stay as typed. */
export function replaceAt(
  text: string,
  starts: number[],
  length: number,
  replacement: string,
): string {
  let out = "";
  let from = 0;
  for (const start of starts) {
    out += text.slice(from, start) + replacement;
    from = start + length;
  }
  return out + text.slice(from);
}

/** Similarity of two strings by shared character pairs (Dice coefficient), from 0 to 1. */
function similarity(a: string, b: string): number {
  if (a === b) return 1;
  if (a.length < 2 || b.length < 2) return 0;
  const pairs = new Map<string, number>();
  for (let i = 0; i < a.length - 1; i++) {
    const pair = a.slice(i, i + 2);
    pairs.set(pair, (pairs.get(pair) ?? 0) + 1);
  }
  let shared = 0;
  for (let i = 0; i < b.length - 1; i++) {
    const pair = b.slice(i, i + 2);
    const left = pairs.get(pair) ?? 0;
    if (left > 0) {
      pairs.set(pair, left - 1);
      shared++;
    }
  }
  return (2 * shared) / (a.length + b.length - 2);
}

const squeeze = (s: string) => s.replace(/[ \t]+/g, " ").replace(/ ?\n ?/g, "\n").trim();

/**
 * Explains why `needle` was not found: the same text with other whitespace, or the blocks of
 * lines most like it, with their line numbers.
 */
export function explainMissing(text: string, needle: string): string {
  const lines = text.split("\n");
  const wanted = needle.split("\n");
  const blockOf = (start: number) => lines.slice(start, start + wanted.length);
  const squeezed = squeeze(needle);
  const firstSqueezed = squeeze(wanted[0]);
  for (let i = 0; i < lines.length && squeezed !== ""; i++) {
    // Only blocks whose first line already matches are compared whole: the work stays linear.
    if (squeeze(lines[i]) !== firstSqueezed) continue;
    if (squeeze(blockOf(i).join("\n")) === squeezed) {
      return `It matches lines ${i + 1}-${i + wanted.length} except for whitespace (indentation, ` +
        `tabs or trailing spaces); copy them exactly:\n${numbered(blockOf(i), i + 1)}`;
    }
  }
  const first = wanted.find((line) => line.trim() !== "")?.trim() ?? "";
  const skip = wanted.findIndex((line) => line.trim() !== "");
  // Lines like its first line are candidates; the blocks they start are compared whole.
  const whole = squeeze(needle).slice(0, 4000);
  const scored = lines
    .map((line, i) => ({ i, score: similarity(line.trim().slice(0, 1000), first.slice(0, 1000)) }))
    .filter((c) => c.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 20)
    .map(({ i }) => {
      const start = Math.max(0, i - Math.max(0, skip));
      return {
        i: start,
        score: similarity(squeeze(blockOf(start).join("\n")).slice(0, 4000), whole),
      };
    })
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 3);
  if (scored.length === 0) {
    return "No line of the file looks like its first line; read the file again to see its current text.";
  }
  return "The closest places in the file (similarity of the text, 100% = identical) are:\n" +
    scored.map((c) =>
      `lines ${c.i + 1}-${Math.min(lines.length, c.i + wanted.length)}, ${
        Math.round(c.score * 100)
      }% similar:\n${numbered(blockOf(c.i).slice(0, 6), c.i + 1)}`
    ).join("\n---\n");
}

/** Lines with `cat -n` style numbers, long ones shortened. */
function numbered(block: string[], firstLine: number): string {
  return block
    .map((line, i) =>
      `${String(firstLine + i).padStart(6)}\t${
        line.length > 200 ? line.slice(0, 200) + "..." : line
      }`
    )
    .join("\n");
}

/**
 * Text with its whitespace differences taken out, and where each character came from: every
 * line without its indentation, its trailing spaces and its "\r", runs of spaces and tabs inside
 * it as one space. Line breaks stay, so a match spans as many lines here as in the file.
 */
function canonical(text: string): { text: string; from: number[] } {
  const out: string[] = [];
  const from: number[] = [];
  let lineStart = true;
  let space = -1;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      out.push(c);
      from.push(i);
      lineStart = true;
      space = -1;
    } else if (c === " " || c === "\t" || c === "\r") {
      if (!lineStart && space < 0) space = i;
    } else {
      if (space >= 0) {
        out.push(" ");
        from.push(space);
        space = -1;
      }
      out.push(c);
      from.push(i);
      lineStart = false;
    }
  }
  return { text: out.join(""), from };
}

/** A place `needle` matches once whitespace differences are ignored: offsets into the text. */
export interface LooseMatch {
  start: number;
  end: number;
  /** Whether it starts at the beginning of a line (its indentation is part of it). */
  wholeFirstLine: boolean;
}

/**
 * Every place `needle` matches `text` when indentation, runs of spaces, trailing spaces and
 * line endings are ignored. A match that starts a line takes in the line's indentation, and
 * one that ends a line takes in its trailing spaces, so a replacement can set both.
 */
export function looseMatches(text: string, needle: string): LooseMatch[] {
  const wanted = canonical(needle).text;
  if (wanted.trim() === "") return [];
  const { text: canon, from } = canonical(text);
  const found: LooseMatch[] = [];
  for (const at of occurrences(canon, wanted)) {
    const last = at + wanted.length - 1;
    const wholeFirstLine = at === 0 || canon[at - 1] === "\n";
    let start = from[at];
    if (wholeFirstLine) start = text.lastIndexOf("\n", start - 1) + 1;
    let end = from[last] + 1;
    if (canon[last] !== "\n" && (last + 1 === canon.length || canon[last + 1] === "\n")) {
      while (end < text.length && (text[end] === " " || text[end] === "\t")) end++;
    }
    found.push({ start, end, wholeFirstLine });
  }
  return found;
}

const leading = (line: string) => /^[ \t]*/.exec(line)![0];

/** How a file indents one level: a tab, or its most common step of spaces. */
function indentUnit(lines: string[], fallback: string): string {
  let tabs = 0;
  const steps = new Map<number, number>();
  let previous = 0;
  for (const line of lines) {
    if (line.trim() === "") continue;
    const ws = leading(line);
    if (ws.startsWith("\t")) tabs++;
    else if (ws.length !== previous) {
      const step = Math.abs(ws.length - previous);
      steps.set(step, (steps.get(step) ?? 0) + 1);
      previous = ws.length;
    }
  }
  const [step] = [...steps.entries()].filter(([n]) => n >= 2 && n <= 8)
    .sort((a, b) => b[1] - a[1])[0] ?? [];
  const spaceLines = [...steps.values()].reduce((a, b) => a + b, 0);
  if (tabs > spaceLines) return "\t";
  return step ? " ".repeat(step) : fallback;
}

/** Indentation levels of `ws` in `unit`s (a tab counts as one level, or as 4 spaces). */
function levels(ws: string, unit: string): number {
  const tabs = ws.length - ws.replaceAll("\t", "").length;
  const spaces = ws.length - tabs;
  return unit === "\t" ? tabs + spaces / 4 : (spaces + 4 * tabs) / unit.length;
}

/**
 * `replacement` made to fit the place `match` found in `text` for `needle`: each line's
 * indentation as the file indents it (the file's own indentation where needle's line had the
 * same; else the same depth, in the file's unit), and the place's line endings.
 */
export function fitReplacement(
  text: string,
  match: LooseMatch,
  needle: string,
  replacement: string,
): string {
  const region = text.slice(match.start, match.end);
  const place = region.split("\n").map((line) => line.replace(/\r$/, ""));
  const wanted = needle.replace(/\r\n/g, "\n").split("\n");
  const fit = new Map<string, string>();
  for (let i = match.wholeFirstLine ? 0 : 1; i < Math.min(place.length, wanted.length); i++) {
    if (wanted[i].trim() === "" || place[i].trim() === "") continue;
    if (!fit.has(leading(wanted[i]))) fit.set(leading(wanted[i]), leading(place[i]));
  }
  let lines = replacement.replace(/\r\n/g, "\n").split("\n");
  const same = [...fit].every(([a, b]) => a === b);
  if (!same && fit.size > 0) {
    const [oldBase, fileBase] = [...fit][0];
    const fileUnit = indentUnit(
      [...place, ...text.split("\n", 2000)].map((l) => l.replace(/\r$/, "")),
      "    ",
    );
    const oldUnit = indentUnit(wanted, fileUnit);
    lines = lines.map((line, i) => {
      if ((i === 0 && !match.wholeFirstLine) || line.trim() === "") return line;
      const ws = leading(line);
      const known = fit.get(ws);
      if (known !== undefined) return known + line.slice(ws.length);
      const depth = levels(fileBase, fileUnit) + levels(ws, oldUnit) - levels(oldBase, oldUnit);
      // Spaces are counted in columns, so a half level stays half a level.
      const indent = fileUnit === "\t"
        ? "\t".repeat(Math.max(0, Math.round(depth)))
        : " ".repeat(Math.max(0, Math.round(depth * fileUnit.length)));
      return indent + line.slice(ws.length);
    });
  }
  const crlf = (region.match(/\r\n/g)?.length ?? 0) * 2 > (region.match(/\n/g)?.length ?? 0);
  return lines.join(crlf ? "\r\n" : "\n");
}

/** The places as numbered lines, for an error that lists them. */
export function showPlaces(text: string, places: LooseMatch[]): string {
  const lines = text.split("\n");
  return places.slice(0, 3).map((place) => {
    const first = lineOf(text, place.start);
    const last = lineOf(text, Math.max(place.start, place.end - 1));
    return numbered(lines.slice(first - 1, Math.min(last, first + 5)), first);
  }).join("\n---\n");
}

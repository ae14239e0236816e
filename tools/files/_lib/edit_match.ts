/**
 * Exact-string edits for edit_file: find an old string, count it, replace it literally, and when
 * it is not there, point at the lines that come closest, so the model can correct itself.
 */

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

/** The 1-based line number of character offset `at`. */
export function lineOf(text: string, at: number): number {
  let line = 1;
  for (let i = text.indexOf("\n"); i !== -1 && i < at; i = text.indexOf("\n", i + 1)) line++;
  return line;
}

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
  const scored = lines
    .map((line, i) => ({ i, score: similarity(line.trim().slice(0, 1000), first.slice(0, 1000)) }))
    .filter((c) => c.score >= 0.5)
    .sort((a, b) => b.score - a.score || a.i - b.i)
    .slice(0, 3);
  if (scored.length === 0) {
    return "No line of the file looks like its first line; read the file again to see its current text.";
  }
  return "The closest places in the file are:\n" +
    scored.map((c) => numbered(blockOf(c.i).slice(0, 6), c.i + 1)).join("\n---\n");
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

/**
 * Which lines a match covers and where it starts on them, as both searches report it: rg's
 * multiline match events (byte offsets) and the built-in search's text (character offsets).
 */

/** Index of the line holding `offset`, given where each line starts (increasing, from 0). */
export function lineIndexAt(starts: readonly number[], offset: number): number {
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (starts[mid] <= offset) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Marks in `columns` the lines the match from `start` to `end` covers, keyed by their index in
 * `starts` plus `firstKey`: its first line gets where the match starts on it (`columnOf`, given
 * the line's start), unless an earlier match already started there, and each line it runs into
 * gets 0. An empty match covers the line it stands on.
 */
export function markMatch(
  columns: Map<number, number>,
  starts: readonly number[],
  start: number,
  end: number,
  columnOf: (lineStart: number, start: number) => number,
  firstKey = 0,
): void {
  const first = lineIndexAt(starts, start);
  if (!columns.has(first + firstKey)) columns.set(first + firstKey, columnOf(starts[first], start));
  const last = end > start ? lineIndexAt(starts, end - 1) : first;
  for (let i = first + 1; i <= last; i++) columns.set(i + firstKey, 0);
}

/** A line without the "\r" of a "\r\n" break, which rg (--crlf) does not count as its text. */
export function withoutCr(line: string): string {
  return line.endsWith("\r") ? line.slice(0, -1) : line;
}

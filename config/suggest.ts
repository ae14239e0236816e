/**
 * Suggestions for names a person or a model misspelt or abbreviated: config keys, fields, tools.
 * Here, in the bottom layer, because config/ and mcp/ both use it and config/ imports nothing.
 *
 * The edit distance costs the product of the two lengths, and a client chooses one of them: a
 * 4 MiB tool name held every session of a server 5 s. No name anyone misspelt is that long, so a
 * name over MAX_SUGGESTED_CHARS gets no suggestion (the candidates are ours, and short).
 */

/** Longer names get no suggestion: nobody meant one of ours by them. */
export const MAX_SUGGESTED_CHARS = 100;

/** Edit distance between two names. */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = row[0];
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = row[j];
      row[j] = Math.min(row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return row[b.length];
}

/** True when the letters of `short` appear in `long` in order ("cmd" in "command"). */
function isSubsequence(short: string, long: string): boolean {
  let i = 0;
  for (const ch of long) if (ch === short[i]) i++;
  return i === short.length;
}

/** The candidate a misspelt or abbreviated name most likely meant, if any is close. */
export function closest(name: string, candidates: string[]): string | undefined {
  if (name.length > MAX_SUGGESTED_CHARS) return undefined;
  const lower = name.toLowerCase();
  const abbreviated = candidates.filter((c) => isSubsequence(lower, c.toLowerCase()));
  if (abbreviated.length > 0) {
    return abbreviated.reduce((a, b) => (a.length <= b.length ? a : b));
  }
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of candidates) {
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) [best, bestDistance] = [candidate, d];
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3))
    ? best
    : undefined;
}

/** Order statistics for the benchmark's samples. */

function sorted(values: number[]): number[] {
  if (values.length === 0) throw new Error("no samples");
  return [...values].sort((a, b) => a - b);
}

export function median(values: number[]): number {
  const s = sorted(values);
  const middle = s.length >> 1;
  return s.length % 2 === 1 ? s[middle] : (s[middle - 1] + s[middle]) / 2;
}

/** Nearest-rank percentile: the smallest sample that at least `p` % of samples do not exceed. */
export function percentile(values: number[], p: number): number {
  const s = sorted(values);
  return s[Math.max(0, Math.ceil((p / 100) * s.length) - 1)];
}

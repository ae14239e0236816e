/**
 * The best `limit` of many scores in order, without sorting them all: a selection finds the
 * score at place `limit`, and only what scores at least that much is sorted. Ties go by index
 * (the files' order, then the definitions' order within a file), so the order is stable.
 */

/** The `k`-th largest of `values` (0: the largest), found in place (`values` is reordered). */
function kthLargest(values: Float64Array, k: number): number {
  let low = 0;
  let high = values.length - 1;
  while (low < high) {
    const pivot = values[(low + high) >> 1];
    let i = low;
    let j = high;
    while (i <= j) {
      while (values[i] > pivot) i++;
      while (values[j] < pivot) j--;
      if (i <= j) {
        const swap = values[i];
        values[i] = values[j];
        values[j] = swap;
        i++;
        j--;
      }
    }
    if (k <= j) high = j;
    else if (k >= i) low = i;
    else return values[k];
  }
  return values[k];
}

/** The indices of the best `limit` scores (none below 0), best first, ties by index. */
export function bestFirst(scores: Float64Array, limit: number): number[] {
  let eligible = 0;
  for (const score of scores) if (score >= 0) eligible++;
  const take = Math.min(limit, eligible);
  if (take === 0) return [];
  const threshold = kthLargest(scores.filter((score) => score >= 0), take - 1);
  const above: number[] = [];
  const at: number[] = [];
  for (let i = 0; i < scores.length; i++) {
    if (scores[i] > threshold) above.push(i);
    else if (scores[i] === threshold && at.length < take) at.push(i);
  }
  above.sort((a, b) => scores[b] - scores[a] || a - b);
  return above.concat(at).slice(0, take);
}

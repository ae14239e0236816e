/**
 * Every identifier the kept outlines use, each kept once: a file holds numbers for its words
 * (four bytes each), not strings, and the ranking adds them up as numbers.
 */

/** Words at most before the table and the outlines that use it are forgotten together. */
export const MAX_WORDS = 1_000_000;

export class WordTable {
  #ids = new Map<string, number>();
  #words: string[] = [];

  /** The number of `word`, given one now if it has none. */
  intern(word: string): number {
    let id = this.#ids.get(word);
    if (id === undefined) {
      id = this.#words.length;
      this.#words.push(word);
      this.#ids.set(word, id);
    }
    return id;
  }

  /** The number of `word`, or undefined when no kept file uses it. */
  idOf(word: string): number | undefined {
    return this.#ids.get(word);
  }

  word(id: number): string {
    return this.#words[id];
  }

  get size(): number {
    return this.#words.length;
  }

  clear(): void {
    this.#ids.clear();
    this.#words = [];
  }
}

/** The one table of this process. */
export const WORDS = new WordTable();

/** A file's words and counts as numbers of WORDS, ascending (found by binary search). */
export function internWords(
  words: readonly string[],
  counts: readonly number[],
): { words: Uint32Array; counts: Uint32Array } {
  const pairs = words.map((word, i) => [WORDS.intern(word), counts[i]] as const);
  pairs.sort((a, b) => a[0] - b[0]);
  return {
    words: Uint32Array.from(pairs, (pair) => pair[0]),
    counts: Uint32Array.from(pairs, (pair) => pair[1]),
  };
}

/** How many times the file whose words are `words` uses `id` (0 when it does not). */
export function usesOf(words: Uint32Array, counts: Uint32Array, id: number): number {
  let low = 0;
  let high = words.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const found = words[middle];
    if (found === id) return counts[middle];
    if (found < id) low = middle + 1;
    else high = middle - 1;
  }
  return 0;
}

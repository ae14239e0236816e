/**
 * A small in-memory cache whose entries expire after a fixed time and which forgets the oldest
 * entries once it holds more than its budget: repeated fetches of one page (paging through it)
 * cost one download, and a long session cannot grow it without bound.
 */
export class TtlCache<V> {
  readonly #entries = new Map<string, { value: V; at: number; size: number }>();
  #size = 0;

  constructor(
    readonly ttlMs: number,
    readonly maxSize: number,
    readonly sizeOf: (value: V) => number,
    readonly now: () => number = Date.now,
  ) {}

  /** The value and when it was stored, unless missing or expired. */
  get(key: string): { value: V; at: number } | undefined {
    const entry = this.#entries.get(key);
    if (!entry) return undefined;
    if (this.now() - entry.at >= this.ttlMs) {
      this.delete(key);
      return undefined;
    }
    return entry;
  }

  set(key: string, value: V): void {
    this.delete(key);
    // Expired entries go too, so an idle cache does not hold its whole budget for nothing.
    const now = this.now();
    for (const [oldKey, entry] of this.#entries) {
      if (now - entry.at < this.ttlMs) break;
      this.delete(oldKey);
    }
    const size = this.sizeOf(value);
    if (size > this.maxSize) return;
    this.#entries.set(key, { value, at: now, size });
    this.#size += size;
    // Maps iterate in insertion order, so the first keys are the oldest.
    for (const oldest of this.#entries.keys()) {
      if (this.#size <= this.maxSize) break;
      this.delete(oldest);
    }
  }

  delete(key: string): void {
    const entry = this.#entries.get(key);
    if (!entry) return;
    this.#size -= entry.size;
    this.#entries.delete(key);
  }

  get size(): number {
    return this.#size;
  }
}

/**
 * What a tree's restore wrote, forced to disk a few at a time beside the writing rather than one
 * after another (each fsync of a small new file costs milliseconds), and all of it before the
 * restore counts as done: an undo that replied "restored" must survive a power loss.
 */
export class PendingSyncs {
  readonly #running = new Set<Promise<void>>();
  #failure: Error | undefined;

  constructor(readonly limit = 16) {}

  /** Starts `sync` (which also closes what it syncs); waits while `limit` are under way. */
  async add(sync: () => Promise<void>): Promise<void> {
    const job: Promise<void> = sync()
      .catch((error: Error) => void (this.#failure ??= error))
      .finally(() => this.#running.delete(job));
    this.#running.add(job);
    while (this.#running.size >= this.limit) await Promise.race(this.#running);
    if (this.#failure) throw this.#failure;
  }

  /** Waits for every sync started; throws the first failure. */
  async drain(): Promise<void> {
    while (this.#running.size > 0) await Promise.race(this.#running);
    if (this.#failure) throw this.#failure;
  }
}

/**
 * A connection's count of requests and batches whose replies are not sent yet, and who waits on
 * it: the shutdown (for none) and a transport's read-ahead (for fewer than some number).
 */
export class Unanswered {
  #count = 0;
  /** Requests and batches answered (or dropped) so far. */
  #answered = 0;
  #idleWaiters: (() => void)[] = [];
  #belowWaiters: { below: number; wake: () => void }[] = [];

  get count(): number {
    return this.#count;
  }

  get answered(): number {
    return this.#answered;
  }

  /** A request or batch started. */
  add(): void {
    this.#count++;
  }

  /** A request or batch was answered (or dropped): wakes who waits for the count now reached. */
  done(): void {
    this.#answered++;
    // Every request answered at once brings the count to 0: no array is made unless someone waits.
    if (--this.#count === 0 && this.#idleWaiters.length > 0) {
      for (const wake of this.#idleWaiters.splice(0)) wake();
    }
    const woken = this.#belowWaiters.length === 0
      ? this.#belowWaiters
      : this.#belowWaiters.filter((w) => this.#count < w.below);
    if (woken.length > 0) {
      this.#belowWaiters = this.#belowWaiters.filter((w) => this.#count >= w.below);
      for (const w of woken) w.wake();
    }
  }

  /** Resolves once fewer than `n` are unanswered. */
  below(n: number): Promise<void> {
    if (this.#count < n) return Promise.resolve();
    return new Promise((wake) => this.#belowWaiters.push({ below: n, wake }));
  }

  /** Resolves once none is unanswered, or after `ms`. */
  none(ms: number): Promise<void> {
    if (this.#count === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }
}

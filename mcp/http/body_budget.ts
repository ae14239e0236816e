/**
 * Request bodies in flight, bounded for the whole server (issue 36 §4): eight 60 MB bodies read
 * at once took 947 MB. A body over LARGE_BYTES is read only while no other such body is, and the
 * smaller ones share SMALL_POOL_BYTES, each lane in order of arrival and apart (a ping does not
 * wait behind a large body); a body that must wait for its turn is not read meanwhile
 * (the runtime leaves it in the socket, and TCP makes its sender wait), and one that waited
 * WAIT_MS is answered 503 with Retry-After. Waiting rather than refusing at once: clients (the
 * SDKs among them) do not retry a 503, and a body's turn comes as soon as the one before it is
 * read and parsed, a second or so for the largest. A body whose length is not declared (chunked)
 * takes its place as it grows and never waits while holding one (two such bodies could otherwise
 * wait for each other): past what it can take, it is answered 503 at once.
 *
 * @example
 * ```ts
 * const budget = new BodyBudget();
 * const place = await budget.take(declaredLength); // undefined: it waited too long
 * try { text = await request.text(); } finally { place?.release(); }
 * ```
 */

/** Bodies over this many bytes are read one at a time. */
export const LARGE_BYTES = 1 << 20;
/** What the smaller bodies being read may come to together. */
export const SMALL_POOL_BYTES = 16 << 20;
/** How long a body may wait for its turn before it is refused (503). */
export const WAIT_MS = 30_000;

/** A body's place: given back once it is read and parsed (or refused). */
export interface Place {
  release(): void;
}

interface Waiter {
  bytes: number;
  wake: (place: Place | undefined) => void;
}

export class BodyBudget {
  #small = 0;
  #large = false;
  /** Bodies waiting for their turn, in order of arrival, per lane. */
  readonly #waiting = { small: [] as Waiter[], large: [] as Waiter[] };

  constructor(
    readonly largeBytes = LARGE_BYTES,
    readonly smallPoolBytes = SMALL_POOL_BYTES,
    readonly waitMs = WAIT_MS,
  ) {}

  /** Bytes of small bodies being read, and whether a large one is (tests, the bench). */
  get inUse(): { small: number; large: boolean } {
    return { small: this.#small, large: this.#large };
  }

  /** A place for a body of `bytes` (declared): now, after waiting its turn, or undefined. */
  take(bytes: number): Promise<Place | undefined> | Place {
    const lane = this.#waiting[this.#lane(bytes)];
    // Whoever waits in this lane goes first.
    const now = lane.length === 0 ? this.#fit(bytes) : undefined;
    if (now) return now;
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        const at = lane.indexOf(waiter);
        if (at >= 0) lane.splice(at, 1);
        resolve(undefined);
      }, this.waitMs);
      (timer as { unref?: () => void }).unref?.();
      const waiter: Waiter = {
        bytes,
        wake: (place) => {
          clearTimeout(timer);
          resolve(place);
        },
      };
      lane.push(waiter);
    });
  }

  /**
   * A place that grows with a body of unknown length: `grow(bytes)` says how much has arrived;
   * false when that cannot be had now (the body is refused; nothing waits).
   */
  growing(): Place & { grow(bytes: number): boolean } {
    let held = 0;
    let large = false;
    let released = false;
    return {
      grow: (bytes) => {
        if (released) return false;
        if (large) return true;
        if (bytes <= this.largeBytes) {
          const room = this.smallPoolBytes - (this.#small - held);
          if (this.#waiting.small.length > 0 || bytes > room) return false;
          this.#small += bytes - held;
          held = bytes;
          return true;
        }
        if (this.#large || this.#waiting.large.length > 0) return false;
        this.#large = large = true;
        this.#small -= held;
        held = 0;
        this.#wake();
        return true;
      },
      release: () => {
        if (released) return;
        released = true;
        if (large) this.#large = false;
        this.#small -= held;
        this.#wake();
      },
    };
  }

  #lane(bytes: number): "small" | "large" {
    return bytes > this.largeBytes ? "large" : "small";
  }

  #fit(bytes: number): Place | undefined {
    if (bytes > this.largeBytes) {
      if (this.#large) return undefined;
      this.#large = true;
      // The next large body is let in a turn later: the runtime lets go of the request that
      // held this one only once its response is on its way, and its memory is collected then.
      return this.#place(() => (this.#large = false), true);
    }
    if (this.#small + bytes > this.smallPoolBytes) return undefined;
    this.#small += bytes;
    return this.#place(() => (this.#small -= bytes));
  }

  #place(free: () => void, later = false): Place {
    let released = false;
    return {
      release: () => {
        if (released) return;
        released = true;
        free();
        if (later) setTimeout(() => this.#wake(), 0);
        else this.#wake();
      },
    };
  }

  /** Lets waiters in, in order, while the first of each lane fits. */
  #wake(): void {
    for (const lane of [this.#waiting.small, this.#waiting.large]) {
      while (lane.length > 0) {
        const place = this.#fit(lane[0].bytes);
        if (!place) break;
        lane.shift()!.wake(place);
      }
    }
  }
}

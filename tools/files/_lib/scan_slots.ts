/**
 * How many file scans hold a read buffer at once. A client may pipeline hundreds of read_file
 * calls; each scan holds its buffer and builds its lines while the others wait on the disk, so
 * 256 of them at once held about 100 MB. The scanning is done on the one JavaScript thread
 * anyway: a few at a time read as fast, and the rest wait their turn, in order, holding nothing.
 *
 * @example
 * const release = await scanSlots.take(signal);
 * try { ...read... } finally { release(); }
 */

/** Scans running at once at most. */
export const MAX_SCANS = 8;

export class Slots {
  #free: number;
  #waiting: (() => void)[] = [];

  constructor(size: number) {
    this.#free = size;
  }

  /** Resolves with a release once a slot is free; rejects if `signal` aborts first. */
  take(signal?: AbortSignal): Promise<() => void> {
    signal?.throwIfAborted();
    if (this.#free > 0) {
      this.#free--;
      return Promise.resolve(this.#releaser());
    }
    return new Promise((resolve, reject) => {
      const grant = () => {
        signal?.removeEventListener("abort", abandon);
        resolve(this.#releaser());
      };
      const abandon = () => {
        const at = this.#waiting.indexOf(grant);
        if (at >= 0) this.#waiting.splice(at, 1);
        reject(signal!.reason);
      };
      signal?.addEventListener("abort", abandon, { once: true });
      this.#waiting.push(grant);
    });
  }

  #releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.#waiting.shift();
      // The slot passes straight to the next in line.
      if (next) next();
      else this.#free++;
    };
  }
}

export const scanSlots = new Slots(MAX_SCANS);

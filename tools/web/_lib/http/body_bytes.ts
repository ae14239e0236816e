/**
 * A downloaded body as it arrives (http_get.ts), kept up to the download cap.
 */

/** Where a body starts when its length is not declared; it doubles as it grows. */
const FIRST_BODY_BYTES = 64 * 1024;

/**
 * A body's first `max` bytes, copied into one array as the chunks arrive (no list of chunks to
 * join at the end). The array the body ends in owns its whole buffer, so it can be transferred
 * to a worker without a copy.
 */
export class BodyBytes {
  #bytes: Uint8Array;
  #size = 0;
  readonly max: number;

  /** `declared`: the length the server announced, or -1. */
  constructor(declared: number, max: number) {
    this.max = max;
    this.#bytes = new Uint8Array(Math.min(declared >= 0 ? declared : FIRST_BODY_BYTES, max));
  }

  add(chunk: Uint8Array): void {
    const part = chunk.subarray(0, this.max - this.#size);
    const needed = this.#size + part.length;
    if (needed > this.#bytes.length) {
      const grown = new Uint8Array(Math.min(this.max, Math.max(needed, this.#bytes.length * 2)));
      grown.set(this.#bytes.subarray(0, this.#size));
      this.#bytes = grown;
    }
    this.#bytes.set(part, this.#size);
    this.#size = needed;
  }

  /** What was kept, in an array of exactly that length. */
  bytes(): Uint8Array {
    return this.#size === this.#bytes.length ? this.#bytes : this.#bytes.slice(0, this.#size);
  }
}

/**
 * Long work on the main thread in slices, so that every other request (a ping, another
 * session's call) is answered between them: a loop asks `due()` as it goes and awaits `pause()`
 * when it says so, which lets the event loop run its waiting I/O before the next slice.
 *
 * @example
 * ```ts
 * const slice = new TimeSlice();
 * for (const file of files) {
 *   count(file);
 *   if (slice.due()) await slice.pause();
 * }
 * ```
 */
import { setImmediate } from "node:timers";

/** How long one slice may run: well within the 100 ms a ping may wait. */
const SLICE_MS = 8;

export class TimeSlice {
  #until: number;

  constructor(readonly ms = SLICE_MS) {
    this.#until = performance.now() + ms;
  }

  /** Whether this slice has run its time. */
  due(): boolean {
    return performance.now() >= this.#until;
  }

  /** Lets the event loop run what waits, then starts a new slice. */
  async pause(): Promise<void> {
    await new Promise((resolve) => setImmediate(resolve));
    this.#until = performance.now() + this.ms;
  }
}

/**
 * Collecting garbage in step with the work, and giving memory back after a burst. Under a burst
 * of pipelined calls the runtime's collector lags behind what the calls throw away: 2,000
 * read_file calls of a 100 KB file peaked at 170 MB resident, though a few megabytes were live at
 * any time, and the heap stayed that large afterwards. So, every WORK_PER_CHECK characters of
 * messages read or sent, the resident set is looked at and, past SOFT_LIMIT_BYTES, a full
 * collection is run (a few milliseconds, once per megabytes of messages); and once a burst is
 * over (no message for IDLE_MS after at least a check's worth), one more, so the heap shrinks
 * back. Only Bun has a
 * collector to ask (the binary); from source under Deno this does nothing.
 *
 * @example
 * const pressure = new HeapPressure();
 * pressure.noteWork(json.length); // for each message read or written
 */
import process from "node:process";

/**
 * Characters of messages read and sent between two looks at the resident set. 1 MiB: at 2 MiB a
 * burst of 3,000 read_file replies of 100 KB peaked at 145-149 MB, against the promised 150, once
 * the sandbox and sessions had grown the server; at 1 MiB, 118-124 MB for about 3 % more CPU on
 * that burst and none on a 20,000-call flood (farm-bench, alternating).
 */
export const WORK_PER_CHECK = 1 << 20;
/** Resident bytes past which a look collects garbage at once. */
export const SOFT_LIMIT_BYTES = 96e6;
/** Quiet after a burst before the collection that gives memory back. */
const IDLE_MS = 1_000;

type Collect = (full: boolean) => void;

const bunGc = (globalThis as { Bun?: { gc?: Collect } }).Bun?.gc;

export class HeapPressure {
  #sinceCheck = 0;
  /** Characters since the last collection, and since the idle timer was set. */
  #sinceCollect = 0;
  #sinceArmed = 0;
  #idleTimer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly collect: Collect | undefined = bunGc,
    private readonly rss: () => number = () => process.memoryUsage.rss(),
  ) {}

  /** Counts `chars` of messages read or sent; collects when they add up and memory is high. */
  noteWork(chars: number): void {
    if (!this.collect) return;
    this.#sinceCheck += chars;
    this.#sinceCollect += chars;
    this.#sinceArmed += chars;
    if (this.#sinceCheck >= WORK_PER_CHECK) {
      this.#sinceCheck = 0;
      if (this.rss() > SOFT_LIMIT_BYTES) this.#collect();
    }
    if (this.#sinceCollect >= WORK_PER_CHECK && this.#idleTimer === undefined) this.#armIdle();
  }

  #collect(): void {
    this.#sinceCollect = 0;
    this.collect!(true);
  }

  /** Waits for a quiet IDLE_MS (set once, not per message), then collects. */
  #armIdle(): void {
    this.#sinceArmed = 0;
    this.#idleTimer = setTimeout(() => {
      this.#idleTimer = undefined;
      if (this.#sinceArmed > 0) this.#armIdle();
      else if (this.#sinceCollect > 0) this.#collect();
    }, IDLE_MS);
    // Never what keeps the process alive.
    (this.#idleTimer as { unref?: () => void }).unref?.();
  }
}

/** The process's one account (memory is the process's, whichever transport does the work). */
export const heapPressure = new HeapPressure();

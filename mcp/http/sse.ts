/**
 * A Server-Sent Events response body: JSON-RPC messages as `message` events, keep-alive
 * comments while quiet, and a bound on what a client that stops reading can make us hold.
 */

const encoder = new TextEncoder();

/** A stream whose reader has fallen this far behind is closed rather than grown further. */
const MAX_QUEUED_BYTES = 16 * 1024 * 1024;

/** How often an idle stream gets a comment, so proxies and clients do not time it out. */
export const KEEPALIVE_MS = 15_000;

const open = new Set<SseStream>();
let keepalive: ReturnType<typeof setInterval> | undefined;

export class SseStream {
  readonly body: ReadableStream<Uint8Array>;
  #controller!: ReadableStreamDefaultController<Uint8Array>;
  #closed = false;
  #lastWrite = Date.now();
  readonly #onGone: () => void;

  /**
   * `onGone` runs once if the client goes away, or stops reading (then the stream is dropped),
   * before close().
   */
  constructor(onGone: () => void) {
    this.#onGone = onGone;
    this.body = new ReadableStream<Uint8Array>({
      start: (controller) => {
        this.#controller = controller;
        // A comment first: runtimes send the status and headers with the first bytes, and a
        // stream with nothing to say yet must still answer at once.
        controller.enqueue(encoder.encode(":\n\n"));
      },
      cancel: () => this.#gone(),
    }, { highWaterMark: 0, size: (chunk) => chunk.byteLength });
    open.add(this);
    keepalive ??= startKeepalive();
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Writes one message as an event; false once the stream is closed. */
  send(json: string): boolean {
    return this.#write(`event: message\ndata: ${json}\n\n`);
  }

  /** Writes an event of another type (the 2024-11-05 transport's `endpoint`); one line of data. */
  event(type: string, data: string): boolean {
    return this.#write(`event: ${type}\ndata: ${data}\n\n`);
  }

  comment(): void {
    this.#write(":\n\n");
  }

  close(): void {
    if (this.#closed) return;
    this.#finish();
    try {
      this.#controller.close();
    } catch {
      // already errored by the client going away
    }
  }

  /** Time since the last write, for keep-alives. */
  idleMs(now: number): number {
    return now - this.#lastWrite;
  }

  #write(text: string): boolean {
    if (this.#closed) return false;
    const queued = -(this.#controller.desiredSize ?? 0);
    if (queued > MAX_QUEUED_BYTES) {
      // Closed, what it queued would still wait for a reader that may never come, and hold its
      // connection open: errored, the runtime drops both.
      this.#finish();
      try {
        this.#controller.error(new Error("the client stopped reading"));
      } catch {
        // already errored by the client going away
      }
      this.#onGone();
      return false;
    }
    this.#lastWrite = Date.now();
    this.#controller.enqueue(encoder.encode(text));
    return true;
  }

  #gone(): void {
    if (this.#closed) return;
    this.#finish();
    this.#onGone();
  }

  #finish(): void {
    this.#closed = true;
    open.delete(this);
    if (open.size === 0 && keepalive) {
      clearInterval(keepalive);
      keepalive = undefined;
    }
  }
}

function startKeepalive(): ReturnType<typeof setInterval> {
  const timer = setInterval(() => {
    const now = Date.now();
    for (const stream of open) if (stream.idleMs(now) >= KEEPALIVE_MS) stream.comment();
  }, KEEPALIVE_MS / 3);
  // Open streams alone must not keep the process from exiting once the server has stopped.
  (timer as { unref?: () => void }).unref?.();
  return timer;
}

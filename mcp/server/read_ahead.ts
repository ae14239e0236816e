/**
 * How far the stdio transport reads ahead of its answers. A client may pipeline requests much
 * faster than they are answered; every request started costs memory until its reply is written
 * (its call, its promise chain, what it read and the reply it builds), so requests start only
 * while fewer than MAX_UNANSWERED are unanswered, while their replies, at the size replies have
 * had lately, would come to less than IN_FLIGHT_CHARS, and while the output is not backed up. The
 * rest wait here, decoded (each line is parsed once: it must be, to tell a request from a
 * cancellation), up to READ_AHEAD_CHARS of the lines they arrived as; past that, stdin is not
 * read until the queue is below half of it, so the pipe pushes back on the client.
 *
 * Reading goes on below that budget so that what must not wait behind queued requests is seen
 * at once: notifications (a cancellation for a request in flight, or for one still queued here,
 * which then never starts and gets no reply), responses to the server's own requests (a tool
 * waiting for an answer from the client), and end of input. A client that has more than the
 * budget of requests unread in the pipe is not read until those are taken: a cancellation or an
 * answer it writes behind them arrives when they are; a question to the client still ends at its
 * own timeout meanwhile. An error for a line (not JSON, too long) waits in the queue like a
 * request, so it never overtakes the replies to the requests before it.
 */
import { bounded, quotedJson } from "../../config/quote.ts";
import type { McpConnection } from "./connection.ts";
import { type Decoded, decodeLine, type JsonRpcFailure, type RequestId } from "../wire/jsonrpc.ts";

/** Requests started and not yet answered at most; more wait in the queue. */
export const MAX_UNANSWERED = 256;
/**
 * Characters of replies the requests in flight may build, reckoned at the size replies have had
 * lately: the count alone let 256 read_file calls of a 100 KB file build their pages at once.
 * Whatever the replies' size, MIN_UNANSWERED may run.
 */
export const IN_FLIGHT_CHARS = 2 << 20;
const MIN_UNANSWERED = 8;
/** Requests wait while this many characters of output wait to be written. */
export const HOLD_AT_BACKLOG = 1 << 20;
/**
 * Characters of queued request lines at most before stdin is left unread. The messages decoded
 * from them take a few times that in memory: a megabyte or so.
 */
export const READ_AHEAD_CHARS = 256 << 10;
/**
 * At end of input the queue is still started in order, as room frees; if nothing is answered for
 * this long (every slot held by a long call), the rest start at once, for the shutdown to end.
 */
const STALL_MS = 5_000;

/** What read-ahead needs of the writer: how much is waiting, and a way to wait for less. */
export interface OutputBacklog {
  readonly backlog: number;
  /** A running average of the messages' sizes, in characters. */
  readonly averageMessageChars: number;
  drained(): Promise<unknown>;
}

/** A queued request, batch or error to send. */
type Queued = Decoded & { kind: "request" | "batch" | "invalid" };

export class ReadAhead {
  // Queued requests, the lengths of their lines and their ids (undefined for a batch), in plain
  // arrays. A cancelled one is replaced by null and skipped.
  #queue: (Queued | null)[] = [];
  #sizes: number[] = [];
  #ids: (RequestId | undefined)[] = [];
  #head = 0;
  #chars = 0;
  #pumping = false;
  #wakeReader: (() => void) | null = null;
  #idleWaiters: (() => void)[] = [];
  /** Set at end of input after a stall: everything left starts regardless. */
  #flushing = false;

  constructor(
    private readonly connection: McpConnection,
    private readonly writer: OutputBacklog,
  ) {}

  /** Requests waiting to start. */
  get queued(): number {
    return this.#queue.length - this.#head;
  }

  /** Characters of request lines waiting to start. */
  get queuedChars(): number {
    return this.#chars;
  }

  /**
   * Takes one line of input (not blank). Returns a promise when the queue is over its budget:
   * read no more input until it resolves.
   */
  take(line: string): Promise<void> | undefined {
    if (this.queued === 0 && this.#hasRoom()) {
      this.connection.receive(decodeLine(line));
      return undefined;
    }
    return this.#admit(decodeLine(line), line.length);
  }

  /**
   * Takes a line refused before decoding (too long): its error waits behind the requests queued
   * before it, like the reply to any line after them.
   */
  refuse(reply: JsonRpcFailure, size: number): Promise<void> | undefined {
    const decoded: Decoded = { kind: "invalid", reply };
    if (this.queued === 0) {
      this.connection.receive(decoded);
      return undefined;
    }
    // Only the error is kept, not the line: it counts as a short line against the budget.
    return this.#admit(decoded, Math.min(size, 4096));
  }

  #admit(decoded: Decoded, size: number): Promise<void> | undefined {
    // An error to send waits in line too: sent at once, it would overtake the replies to the
    // requests before it (a client waiting for `initialize` would read a parse error first).
    if (decoded.kind === "request" || decoded.kind === "batch" || decoded.kind === "invalid") {
      this.#queue.push(decoded);
      this.#sizes.push(size);
      this.#ids.push(decoded.kind === "request" ? decoded.message.id : undefined);
      this.#chars += size;
      void this.#pump();
    } else {
      if (decoded.kind === "notification" && decoded.message.method === "notifications/cancelled") {
        const params = decoded.message.params;
        this.#cancelQueued(params?.requestId, params?.reason);
      }
      this.connection.receive(decoded);
    }
    if (this.#chars <= READ_AHEAD_CHARS) return undefined;
    return new Promise((resolve) => (this.#wakeReader = resolve));
  }

  /**
   * Resolves once every queued request has started: at end of input, before the shutdown's grace
   * begins.
   */
  async finish(): Promise<void> {
    while (this.queued > 0) {
      const answered = this.connection.answeredCount;
      const idle = new Promise<void>((resolve) => this.#idleWaiters.push(resolve));
      let timer: ReturnType<typeof setTimeout> | undefined;
      const stalled = new Promise<boolean>((resolve) => {
        timer = setTimeout(() => resolve(true), STALL_MS);
      });
      const ended = await Promise.race([idle.then(() => false), stalled]);
      clearTimeout(timer);
      if (ended && this.connection.answeredCount === answered && this.queued > 0) {
        this.#flushing = true;
        for (let next = this.#next(); next !== undefined; next = this.#next()) {
          this.connection.receive(next);
        }
      }
    }
  }

  #hasRoom(): boolean {
    return this.#flushing || (
      this.connection.unanswered < this.#maxUnanswered() && this.writer.backlog <= HOLD_AT_BACKLOG
    );
  }

  /** How many requests may be unanswered now: fewer when replies have been large. */
  #maxUnanswered(): number {
    const bySize = Math.floor(IN_FLIGHT_CHARS / Math.max(1, this.writer.averageMessageChars));
    return Math.max(MIN_UNANSWERED, Math.min(MAX_UNANSWERED, bySize));
  }

  /** A cancellation for a request still queued: it never starts, and gets no reply. */
  #cancelQueued(id: unknown, reason: unknown): void {
    if (typeof id !== "string" && typeof id !== "number") return;
    // One in flight under that id is the one meant; the connection cancels it.
    if (this.connection.busy(id)) return;
    // The first queued request with that id (1 and "1" are different ids).
    for (let i = this.#head; i < this.#ids.length; i++) {
      if (this.#ids[i] !== id || this.#queue[i] === null) continue;
      this.#chars -= this.#sizes[i];
      this.#queue[i] = null;
      this.#maybeWakeReader();
      this.connection.logger.log(
        "info",
        `request ${quotedJson(id)} cancelled by the client before it started${
          typeof reason === "string" && reason ? `: ${bounded(reason)}` : ""
        }`,
      );
      return;
    }
  }

  /** The next queued request to start, if any. */
  #next(): Queued | undefined {
    while (this.#head < this.#queue.length) {
      const next = this.#queue[this.#head];
      const size = this.#sizes[this.#head];
      this.#head++;
      if (this.#head === this.#queue.length) {
        this.#queue = [];
        this.#sizes = [];
        this.#ids = [];
        this.#head = 0;
      } else if (this.#head > 1024 && this.#head * 2 > this.#queue.length) {
        this.#queue = this.#queue.slice(this.#head);
        this.#sizes = this.#sizes.slice(this.#head);
        this.#ids = this.#ids.slice(this.#head);
        this.#head = 0;
      }
      if (next === null) continue;
      this.#chars -= size;
      return next;
    }
    return undefined;
  }

  #maybeWakeReader(): void {
    if (this.#wakeReader && this.#chars <= READ_AHEAD_CHARS / 2) {
      const wake = this.#wakeReader;
      this.#wakeReader = null;
      wake();
    }
  }

  /** Starts queued requests, in order, while there is room; one loop at a time. */
  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.queued > 0) {
        if (!this.#flushing && this.writer.backlog > HOLD_AT_BACKLOG) {
          await this.writer.drained();
          continue;
        }
        const max = this.#maxUnanswered();
        if (!this.#flushing && this.connection.unanswered >= max) {
          // Resumes a quarter below the maximum, so requests start in runs, not one by one.
          await this.connection.whenUnansweredBelow(max - (max >> 2));
          continue;
        }
        const next = this.#next();
        this.#maybeWakeReader();
        if (next !== undefined) this.connection.receive(next);
      }
    } finally {
      this.#pumping = false;
      this.#maybeWakeReader();
      for (const wake of this.#idleWaiters.splice(0)) wake();
    }
  }
}

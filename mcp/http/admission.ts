/**
 * How many requests of all HTTP clients together run at once: the budget stdio's read-ahead keeps
 * (read_ahead.ts), for the whole server. Every request started costs memory until it is answered
 * (its call, what it read, the reply it builds), and 200 sessions with 10 `read_file` calls of a
 * 100 KB file each in flight took 372 MB, each session within its own limits. So requests start
 * only while fewer than MAX_UNANSWERED run, and while the replies they build, at the size replies
 * have had lately, come to less than IN_FLIGHT_CHARS (at least MIN_RUNNING run); the rest wait
 * here, decoded, each session's in order, the sessions taking turns (one client's burst does not
 * hold the others back behind it). What waits is bounded too: past MAX_QUEUED requests, or
 * MAX_QUEUED_CHARS of their bodies, a request is refused at once (503). A `ping` never waits, and
 * neither do notifications or answers to the server's own requests. When no call has been
 * answered for PARKED_MS while others wait, the calls running that long give their places back:
 * they wait on something outside (a command, the network, the client's answer), and the memory
 * the budget is for is taken by calls that run and are answered; otherwise 50 clients' long
 * commands would hold every place and the calls of everyone else would wait for them. (Answers
 * still coming, however slowly on a busy machine, park nothing: the budget then holds exactly.) Every message sent is counted towards collecting garbage in step with the work
 * (heap_pressure.ts), as over stdio (bodies read are counted where they are read).
 *
 * @example
 * ```ts
 * const admission = new Admission();
 * if (admission.full(chars)) return tooBusy(decoded); // 503
 * admission.hand(sessionId, chars, decoded, conn, grant); // conn.receive(), now or in its turn
 * admission.sent(json.length); // each message sent
 * admission.forget(sessionId); // the session ended: what it ran or queued counts no more
 * ```
 */
import { heapPressure } from "../wire/heap_pressure.ts";
import { type Decoded, INTERNAL_ERROR } from "../wire/jsonrpc.ts";
import { IN_FLIGHT_CHARS, MAX_UNANSWERED } from "../server/read_ahead.ts";
import { errorResponse } from "./replies.ts";
import type { Grant } from "../wire/grant.ts";
import type { TransportConnection } from "../server/transport.ts";

const MIN_RUNNING = 8;
/** What the average reply is taken to be before any is sent: large, as over stdio. */
const FIRST_AVERAGE_CHARS = 8 << 10;
/** Requests waiting to start, at most. */
export const MAX_QUEUED = 10_000;
/** Characters of the bodies of requests waiting to start, at most. */
export const MAX_QUEUED_CHARS = 64 << 20;
/** With no answer for this long while others wait, calls running this long stop counting. */
export const PARKED_MS = 500;

/** What a message handed on (`start`) is to call once it is answered (or dropped). */
export type Answered = () => void;

interface Entry {
  key: string;
  chars: number;
  start: (answered: Answered) => void;
  /** False once nobody waits for the answer (the client went away, or cancelled it). */
  wanted: () => boolean;
  /** Runs once the message is answered, or dropped without starting. */
  settled?: () => void;
  /** Started and counted as running, until answered or parked. */
  running: boolean;
  startedAt: number;
  over: boolean;
}

export interface EnterOptions {
  wanted?: () => boolean;
  settled?: () => void;
}

/** Whether a decoded message waits for room: requests and batches, but not a ping. */
export function waitsForRoom(decoded: Decoded): boolean {
  if (decoded.kind === "batch") return true;
  return decoded.kind === "request" && decoded.message.method !== "ping";
}

export class Admission {
  #running = 0;
  /** What waits, per session (or client); a Map's order makes the turns. */
  readonly #queues = new Map<string, Entry[]>();
  /** What runs, per session: forgotten with it. */
  readonly #live = new Map<string, Set<Entry>>();
  #queued = 0;
  #queuedChars = 0;
  #averageChars = FIRST_AVERAGE_CHARS;
  #pumping = false;
  /** Looks for calls to park, while anything waits. */
  #sweeping: ReturnType<typeof setInterval> | undefined;
  /** When a running call was last answered. */
  #lastAnswer = Date.now();

  /** Requests running, and waiting (tests, the bench). */
  get load(): { running: number; queued: number } {
    return { running: this.#running, queued: this.#queued };
  }

  /**
   * Whether a request of `chars` could neither start now nor wait (too much waits already): it
   * must be refused. Asked before enter(), in the same turn.
   */
  full(chars: number): boolean {
    if (this.#queued === 0 && this.#hasRoom()) return false;
    return this.#queued >= MAX_QUEUED || this.#queuedChars + chars > MAX_QUEUED_CHARS;
  }

  /**
   * Hands a decoded message on (`start`, which passes `answered` to the connection): a request
   * now, or once there is room and its session's turn has come (dropped then if no longer
   * wanted); anything else at once.
   */
  enter(
    key: string,
    chars: number,
    decoded: Decoded,
    start: (answered: Answered) => void,
    { wanted = () => true, settled }: EnterOptions = {},
  ): void {
    const entry: Entry = {
      key,
      chars,
      start,
      wanted,
      settled,
      running: false,
      startedAt: 0,
      over: false,
    };
    if (!waitsForRoom(decoded) || (this.#queued === 0 && this.#hasRoom())) {
      this.#start(entry);
      return;
    }
    const queue = this.#queues.get(key);
    if (queue) queue.push(entry);
    else this.#queues.set(key, [entry]);
    this.#queued++;
    this.#queuedChars += chars;
    this.#sweeping ??= setInterval(() => this.#park(), PARKED_MS / 2);
    (this.#sweeping as { unref?: () => void }).unref?.();
  }

  /** enter() for a message of `conn`, under `grant`. */
  hand(
    key: string,
    chars: number,
    decoded: Decoded,
    conn: TransportConnection,
    grant: Grant | undefined,
    options?: EnterOptions,
  ): void {
    this.enter(key, chars, decoded, (answered) => conn.receive(decoded, grant, answered), options);
  }

  /** A message sent (a reply, a notification): its size counts towards the average reply's. */
  sent(chars: number): void {
    // Each weighs 1/16: a run of large replies shows within a few of them.
    this.#averageChars += (chars - this.#averageChars) / 16;
    heapPressure.noteWork(chars);
  }

  /**
   * The session `key` ended: what it queued is dropped, and what it runs counts no more (a call
   * that ignores being stopped must not hold a place for ever).
   */
  forget(key: string): void {
    const queue = this.#queues.get(key);
    if (queue) {
      this.#queues.delete(key);
      for (const entry of queue) {
        this.#queued--;
        this.#queuedChars -= entry.chars;
        this.#finish(entry);
      }
    }
    for (const entry of this.#live.get(key) ?? []) this.#finish(entry);
    this.#pump();
  }

  #start(entry: Entry): void {
    entry.running = true;
    entry.startedAt = Date.now();
    this.#running++;
    let live = this.#live.get(entry.key);
    if (!live) this.#live.set(entry.key, live = new Set());
    live.add(entry);
    entry.start(() => {
      this.#finish(entry);
      this.#pump();
    });
  }

  /** Once per entry: it no longer counts, and whoever waits for it to settle is told. */
  #finish(entry: Entry): void {
    if (entry.over) return;
    entry.over = true;
    if (entry.startedAt > 0) this.#lastAnswer = Date.now();
    if (entry.running) this.#running--;
    const live = this.#live.get(entry.key);
    if (live?.delete(entry) && live.size === 0) this.#live.delete(entry.key);
    entry.settled?.();
  }

  /** With no answer for PARKED_MS, calls running that long give their places to what waits. */
  #park(): void {
    const before = Date.now() - PARKED_MS;
    if (this.#lastAnswer > before) return;
    for (const live of this.#live.values()) {
      for (const entry of live) {
        if (entry.running && entry.startedAt <= before) {
          entry.running = false;
          this.#running--;
        }
      }
    }
    this.#pump();
  }

  #hasRoom(): boolean {
    const bySize = Math.floor(IN_FLIGHT_CHARS / Math.max(1, this.#averageChars));
    return this.#running < Math.max(MIN_RUNNING, Math.min(MAX_UNANSWERED, bySize));
  }

  /** Starts what waits, a session at a time in turn, while there is room. */
  #pump(): void {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#queued > 0 && this.#hasRoom()) {
        const [key, queue] = this.#queues.entries().next().value!;
        const next = queue.shift()!;
        this.#queues.delete(key);
        // Its turn taken, the session goes to the back of the line.
        if (queue.length > 0) this.#queues.set(key, queue);
        this.#queued--;
        this.#queuedChars -= next.chars;
        if (next.wanted()) this.#start(next);
        else this.#finish(next);
      }
    } finally {
      this.#pumping = false;
      if (this.#queued === 0 && this.#sweeping) {
        clearInterval(this.#sweeping);
        this.#sweeping = undefined;
      }
    }
  }
}

/** The 503 for a request that can neither start nor wait. */
export function tooBusy(decoded: Decoded): Response {
  return errorResponse(
    503,
    INTERNAL_ERROR,
    "Service Unavailable: too many requests are waiting to run; try again shortly",
    decoded.kind === "request" ? decoded.message.id : null,
    { "retry-after": "1" },
  );
}

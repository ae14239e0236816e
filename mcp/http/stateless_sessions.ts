/**
 * The sessions of 2026-07-28 requests, which name none: each is answered by a connection of its
 * own, but what they keep between calls (the files read, for the unseen-change check; the
 * background processes started) is one session per subject, one for the whole server without
 * OAuth. A client of that era says nothing when it is done, so its session ends once it has been
 * idle (no request in flight, a subscriptions/listen stream counting as one) as long as a legacy
 * session may be.
 *
 * @example
 * ```ts
 * const sessions = new StatelessSessions(logger, 60 * 60_000);
 * const { session, release } = sessions.take(grant?.subject);
 * const conn = connect(service, transport, { session });
 * conn.settled(ms).then(release);
 * ```
 */
import type { Logger } from "../wire/log.ts";
import { SessionMemory } from "../tool/session_memory.ts";

interface Kept {
  session: SessionMemory;
  /** Requests of it being answered now. */
  inFlight: number;
  lastActive: number;
}

/** Subjects whose idle sessions are kept at most; past it the least recently used ends. */
const MAX_KEPT = 1000;

export class StatelessSessions {
  /** By subject (undefined: no OAuth), least recently used first. */
  readonly #kept = new Map<string | undefined, Kept>();
  readonly #sweep: ReturnType<typeof setInterval>;

  /** Sessions idle for `idleMs` end, looked for every minute (or `idleMs`, if shorter). */
  constructor(readonly logger: Logger, idleMs: number, readonly max = MAX_KEPT) {
    this.#sweep = setInterval(() => this.endIdle(idleMs), Math.min(idleMs, 60_000));
    (this.#sweep as { unref?: () => void }).unref?.();
  }

  get size(): number {
    return this.#kept.size;
  }

  /** The session of `subject` for one request; `release` once the request is answered. */
  take(subject: string | undefined): { session: SessionMemory; release: () => void } {
    let kept = this.#kept.get(subject);
    if (kept) this.#kept.delete(subject);
    else {
      this.#makeRoom();
      kept = { session: new SessionMemory(subject), inFlight: 0, lastActive: Date.now() };
    }
    this.#kept.set(subject, kept);
    kept.inFlight++;
    const taken = kept;
    let released = false;
    return {
      session: taken.session,
      release: () => {
        if (released) return;
        released = true;
        taken.inFlight--;
        taken.lastActive = Date.now();
      },
    };
  }

  /** Ends the sessions idle for `idleMs` or longer. */
  endIdle(idleMs: number, now = Date.now()): void {
    for (const [subject, kept] of this.#kept) {
      if (kept.inFlight > 0 || now - kept.lastActive < idleMs) continue;
      this.#end(subject, kept, `after ${Math.round(idleMs / 60_000)} idle minutes`);
    }
  }

  /** Ends every session (the server stops). */
  async close(): Promise<void> {
    clearInterval(this.#sweep);
    const all = [...this.#kept.values()];
    this.#kept.clear();
    await Promise.all(all.map((kept) => kept.session.dispose()));
  }

  /** At the cap, the least recently used idle session ends (busy ones are bounded elsewhere). */
  #makeRoom(): void {
    if (this.#kept.size < this.max) return;
    for (const [subject, kept] of this.#kept) {
      if (kept.inFlight > 0) continue;
      this.#end(subject, kept, "to make room for another subject's");
      return;
    }
  }

  #end(subject: string | undefined, kept: Kept, why: string): void {
    this.#kept.delete(subject);
    this.logger.log("info", `a session of 2026-07-28 requests ended ${why}`);
    kept.session.dispose().catch(() => {});
  }
}

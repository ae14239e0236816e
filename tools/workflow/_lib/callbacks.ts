/**
 * Callbacks set with set_callback: one session's timers in this process (they live as long as the
 * session, cancelled when it ends).
 * When one fires it is announced at once and becomes a reminder, kept until it can ride on the
 * next tool result the model receives, since a server cannot speak to the model unasked.
 */
import { clearTimeout, setTimeout } from "node:timers";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { quoted } from "../../../config/quote.ts";
import { duration } from "../../_lib/text/units.ts";

export const MAX_PENDING = 50;

/** Time as callbacks see it: the real clock, or one a test moves by hand. */
export interface Clock {
  now(): number;
  /** Runs `fire` once, `ms` from now; returns what cancels it. */
  after(ms: number, fire: () => void): () => void;
}

const realClock: Clock = {
  now: () => Date.now(),
  after(ms, fire) {
    const timer = setTimeout(fire, ms);
    // A pending reminder must not keep the process alive once the server is done.
    timer.unref();
    return () => clearTimeout(timer);
  },
};

interface Callback {
  id: string;
  message: string;
  delayMs: number;
  repeatCount: number;
  fired: number;
  setAt: number;
  nextAt: number;
  announce: (line: string) => void;
  cancelTimer?: () => void;
}

/** What a caller sees of a callback. */
export interface CallbackInfo {
  id: string;
  message: string;
  delaySeconds: number;
  repeatCount: number;
  fired: number;
  /** ISO 8601; absent once it has fired for the last time or was cancelled. */
  nextFireAt?: string;
}

/** Firings not yet shown to the model, one entry per callback. */
interface Reminder {
  callback: Callback;
  /** Firings since the model last saw this callback's reminder. */
  times: number;
  lastAt: number;
}

export class Callbacks {
  readonly #pending = new Map<string, Callback>();
  readonly #reminders = new Map<string, Reminder>();
  #nextId = 1;

  constructor(readonly clock: Clock = realClock) {}

  /** `announce` gets one line per firing (the server's log). */
  set(
    message: string,
    delaySeconds: number,
    repeatCount: number,
    announce: (line: string) => void,
  ): CallbackInfo {
    if (this.#pending.size >= MAX_PENDING) {
      throw new ToolError(
        `${MAX_PENDING} callbacks are pending already (${
          [...this.#pending.keys()].join(", ")
        }); cancel some with action "cancel" before setting another`,
      );
    }
    const now = this.clock.now();
    const callback: Callback = {
      id: `cb${this.#nextId++}`,
      message,
      delayMs: delaySeconds * 1000,
      repeatCount,
      fired: 0,
      setAt: now,
      nextAt: now,
      announce,
    };
    this.#schedule(callback);
    this.#pending.set(callback.id, callback);
    return info(callback);
  }

  /** Pending callbacks, the next to fire first. */
  list(): CallbackInfo[] {
    return [...this.#pending.values()].sort((a, b) => a.nextAt - b.nextAt).map((c) => info(c));
  }

  cancel(id: string): CallbackInfo {
    const callback = this.#pending.get(id);
    if (!callback) {
      const pending = [...this.#pending.keys()];
      throw new ToolError(
        `no pending callback is called ${quoted(id)} (it may have fired for the last ` +
          `time already); ${pending.length ? `pending: ${pending.join(", ")}` : "none is pending"}`,
      );
    }
    callback.cancelTimer?.();
    this.#pending.delete(id);
    return info(callback, false);
  }

  /** The session ended: every timer is cancelled, and nothing is kept. */
  cancelAll(): void {
    for (const callback of this.#pending.values()) callback.cancelTimer?.();
    this.#pending.clear();
    this.#reminders.clear();
  }

  /** The reminders not yet shown, as one clearly marked text, and forgets them; or undefined. */
  takeReminders(): string | undefined {
    if (this.#reminders.size === 0) return undefined;
    const now = this.clock.now();
    const lines = [...this.#reminders.values()].map(({ callback, times, lastAt }) => {
      const when = [`set ${duration(now - callback.setAt)} ago`];
      if (times > 1) when.push(`fired ${times} times since the last reminder`);
      if (now - lastAt >= 1000) {
        when.push(`${times > 1 ? "last " : ""}fired ${duration(now - lastAt)} ago`);
      }
      if (callback.repeatCount > 1) {
        when.push(`${callback.fired} of ${callback.repeatCount}${times > 1 ? " so far" : ""}`);
      }
      return `⏰ Reminder from set_callback ${callback.id} (${
        when.join("; ")
      }): ${callback.message}`;
    });
    this.#reminders.clear();
    return lines.join("\n");
  }

  #schedule(callback: Callback): void {
    callback.nextAt = this.clock.now() + callback.delayMs;
    callback.cancelTimer = this.clock.after(callback.delayMs, () => this.#fire(callback));
  }

  #fire(callback: Callback): void {
    callback.fired++;
    const reminder = this.#reminders.get(callback.id);
    this.#reminders.set(callback.id, {
      callback,
      times: (reminder?.times ?? 0) + 1,
      lastAt: this.clock.now(),
    });
    const of = callback.repeatCount > 1 ? ` (${callback.fired} of ${callback.repeatCount})` : "";
    callback.announce(`⏰ ${callback.id}${of}: ${callback.message}`);
    if (callback.fired < callback.repeatCount) this.#schedule(callback);
    else this.#pending.delete(callback.id);
  }
}

function info(callback: Callback, pending = true): CallbackInfo {
  const shown: CallbackInfo = {
    id: callback.id,
    message: callback.message,
    delaySeconds: callback.delayMs / 1000,
    repeatCount: callback.repeatCount,
    fired: callback.fired,
  };
  if (pending) shown.nextFireAt = new Date(callback.nextAt).toISOString();
  return shown;
}

/**
 * The browser side of a render: one Chromium process group and the DevTools protocol spoken to
 * it over --remote-debugging-pipe (fds 3 and 4, NUL-delimited JSON), so no port is opened and no
 * WebSocket library is needed. Frames messages, sends commands and matches their replies,
 * hands events to their handlers, bounds every wait, and kills the whole group on close.
 */
import { Buffer } from "node:buffer";
import type { ChildProcess } from "node:child_process";
import type { Readable, Writable } from "node:stream";
import { quoted } from "../../../../config/quote.ts";
import { groupAlive, spawnInGroup, terminateGroup } from "../../../_lib/processes/mod.ts";

/** A failure told as a sentence the model can act on. */
/**
 * Chromium is not started under toolhost's sandbox: it runs its own (a renderer is far more
 * confined than a command), needs the network to render the page, and would not start inside a
 * network namespace or with no_new_privs over its own sandbox. What it may reach is said in
 * docs/security.md: each request of a rendered page passes the private-network guard, and it
 * gets a fresh profile in a temporary directory, removed with it.
 */
const CHROMIUM_CONFINEMENT = {
  unconfined: "Chromium keeps its own sandbox and needs the network to render a page",
};

export class RenderError extends Error {}

/** Bound on one DevTools message, so a runaway page cannot grow our memory without limit. */
const MAX_MESSAGE_BYTES = 64 * 1024 * 1024;
/** How long to wait for a killed browser's processes to be gone before removing its profile. */
const EXIT_WAIT_MS = 2_000;
/** setTimeout fires at once for anything longer. */
const MAX_TIMER_MS = 2 ** 31 - 1;
const STDERR_KEEP = 4_000;
const STDERR_SHOWN = 500;

/** What a wait rejects with when the caller aborts: their reason, else an AbortError. */
export function abortError(signal: AbortSignal): Error {
  const reason = signal.reason;
  return reason instanceof Error
    ? reason
    : new DOMException("The render was cancelled", "AbortError");
}

interface Message {
  id?: number;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { message?: string };
  sessionId?: string;
}

type Handler = (params: Record<string, unknown>, sessionId: string | undefined) => void;

/** One browser process group and its DevTools pipe. */
export class Chromium {
  readonly #child: ChildProcess;
  /** Missing when the spawn failed at once (Deno): then an "error" event follows. */
  readonly #input: Writable | undefined;
  readonly #pending = new Map<
    number,
    { resolve: (r: Record<string, unknown>) => void; reject: (e: Error) => void }
  >();
  readonly #handlers = new Map<string, Handler>();
  #nextId = 0;
  #partial: Buffer[] = [];
  #partialBytes = 0;
  #stderr = "";
  #failure: Error | undefined;
  #failed!: (error: Error) => void;
  /** Whether the browser has answered a command: it started. */
  answered = false;
  /** Rejects, with why, once the browser can no longer be used. Never resolves. */
  readonly gone: Promise<never>;

  constructor(readonly executable: string, args: string[]) {
    this.gone = new Promise<never>((_, reject) => (this.#failed = reject));
    this.gone.catch(() => {}); // every wait races it; a failure with nobody waiting is fine
    this.#child = spawnInGroup(executable, args, {
      stdio: ["ignore", "ignore", "pipe", "pipe", "pipe"],
    }, { confinement: CHROMIUM_CONFINEMENT });
    this.#input = (this.#child.stdio[3] ?? undefined) as Writable | undefined;
    const output = (this.#child.stdio[4] ?? undefined) as Readable | undefined;
    const stderr = this.#child.stderr;
    stderr?.setEncoding("utf8");
    stderr?.on(
      "data",
      (text: string) => (this.#stderr = (this.#stderr + text).slice(-STDERR_KEEP)),
    );
    stderr?.on("error", () => {});
    this.#input?.on("error", () => {}); // EPIPE when the browser has died; `gone` tells why
    output?.on("error", () => {});
    output?.on("data", (chunk: Buffer) => this.#read(chunk));
    // The exit, when it follows, says more than the closed pipe; both wait for stderr's last words.
    output?.once("end", () => this.#failSoon(100, "closed its DevTools connection"));
    this.#child.once("error", (error) => {
      this.#fail(
        new RenderError(`Chromium could not be started (${quoted(executable)}): ${error.message}.`),
      );
    });
    this.#child.once("exit", (code, signal) => {
      this.#failSoon(50, code === null ? `was killed by ${signal}` : `exited with code ${code}`);
    });
  }

  /** The tail of the browser's stderr, for a message: its noisy D-Bus complaints left out. */
  said(): string {
    const lines = this.#stderr.split("\n").map((line) => line.trim())
      .filter((line) => line && !line.includes("dbus"));
    const text = lines.join("\n").slice(-STDERR_SHOWN);
    return text ? ` Chromium said:\n${text}` : "";
  }

  #failSoon(ms: number, how: string): void {
    if (!this.#failure) setTimeout(() => this.#fail(this.#exitError(how)), ms);
  }

  #exitError(how: string): RenderError {
    const when = this.answered ? "before the page was rendered" : "while starting";
    return new RenderError(`Chromium (${quoted(this.executable)}) ${how} ${when}.${this.said()}`);
  }

  #fail(error: Error): void {
    if (this.#failure) return;
    this.#failure = error;
    this.#failed(error);
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  #read(chunk: Buffer): void {
    let start = 0;
    for (let nul = chunk.indexOf(0); nul !== -1; nul = chunk.indexOf(0, start)) {
      this.#partial.push(chunk.subarray(start, nul));
      const text = Buffer.concat(this.#partial).toString("utf8");
      this.#partial = [];
      this.#partialBytes = 0;
      this.#dispatch(text);
      start = nul + 1;
    }
    if (start < chunk.length) {
      this.#partial.push(chunk.subarray(start));
      this.#partialBytes += chunk.length - start;
      if (this.#partialBytes > MAX_MESSAGE_BYTES) {
        this.#partial = [];
        this.#fail(
          new RenderError(
            "Chromium sent a DevTools message over 64 MiB; the page is too large to render.",
          ),
        );
        this.#kill();
      }
    }
  }

  #dispatch(text: string): void {
    if (this.#failure) return; // closed: nothing may act on the page any more
    let message: Message;
    try {
      message = JSON.parse(text);
    } catch {
      return; // not ours to understand; the command waiting for an answer will time out
    }
    if (message.id !== undefined) {
      const waiter = this.#pending.get(message.id);
      if (!waiter) return;
      this.#pending.delete(message.id);
      this.answered = true;
      if (message.error) waiter.reject(new Error(message.error.message ?? "DevTools error"));
      else waiter.resolve(message.result ?? {});
    } else if (message.method) {
      this.#handlers.get(message.method)?.(message.params ?? {}, message.sessionId);
    }
  }

  /** Sends a command (to a page when sessionId is given) and resolves with its result. */
  send(
    method: string,
    params: Record<string, unknown> = {},
    sessionId?: string,
  ): Promise<Record<string, unknown>> {
    if (this.#failure) return Promise.reject(this.#failure);
    const id = ++this.#nextId;
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      this.#input?.write(JSON.stringify({ id, method, params, sessionId }) + "\0");
    });
  }

  /** The handler for an event (one per event name is all a render needs). */
  on(method: string, handler: Handler): void {
    this.#handlers.set(method, handler);
  }

  #kill(): void {
    if (this.#child.pid !== undefined) void terminateGroup(this.#child.pid, 0, "SIGKILL");
  }

  /** Kills the whole group and waits (bounded) until none of it is left running. */
  async close(): Promise<void> {
    this.#fail(new RenderError("The browser was closed."));
    const pgid = this.#child.pid;
    if (pgid === undefined) return;
    await terminateGroup(pgid, 0, "SIGKILL");
    const deadline = Date.now() + EXIT_WAIT_MS;
    while (groupAlive(pgid) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    this.#child.stdio.forEach((stream) => stream?.destroy());
  }
}

/**
 * Settles as `work` does, unless `ms` pass first (then settles as `atLimit` does: returns or
 * throws), the signal is aborted, or the browser goes away. No timer or listener outlives it.
 */
export function within<T>(
  work: Promise<T>,
  ms: number,
  atLimit: () => T,
  signal: AbortSignal | undefined,
  gone: Promise<never>,
): Promise<T> {
  work.catch(() => {}); // it may fail after we have stopped waiting for it
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => settle(() => reject(abortError(signal!)));
    const timer = setTimeout(
      () => settle(() => resolve(atLimit())),
      Math.min(Math.max(0, ms), MAX_TIMER_MS),
    );
    function settle(how: () => void) {
      clearTimeout(timer);
      signal?.removeEventListener("abort", onAbort);
      try {
        how();
      } catch (error) {
        reject(error);
      }
    }
    if (signal?.aborted) return onAbort();
    signal?.addEventListener("abort", onAbort, { once: true });
    work.then((value) => settle(() => resolve(value)), (error) => settle(() => reject(error)));
    gone.catch((error) => settle(() => reject(error)));
  });
}

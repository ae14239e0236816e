/**
 * One HTTP POST waiting for its reply. It answers with plain JSON when the reply is the first
 * thing to send, and turns into an SSE stream as soon as something must go first (progress,
 * a log line, a question to the client, a subscription's acknowledgment).
 */
import { SseStream } from "./sse.ts";

export interface Accepts {
  json: boolean;
  sse: boolean;
}

/** What `Accept` allows: JSON, SSE, or both (`*` and missing headers allow both). */
export function accepts(header: string | null): Accepts {
  if (header === null || header.trim() === "") return { json: true, sse: true };
  const types = header.split(",").map((part) => part.split(";")[0].trim().toLowerCase());
  const any = types.includes("*/*");
  return {
    json: any || types.includes("application/json") || types.includes("application/*"),
    sse: any || types.includes("text/event-stream") || types.includes("text/*"),
  };
}

export const SSE_HEADERS = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache, no-transform",
  // Tells proxies such as nginx to pass events on at once.
  "x-accel-buffering": "no",
};

export class Exchange {
  readonly response: Promise<Response>;
  #resolve!: (response: Response) => void;
  #sse?: SseStream;
  #done = false;
  readonly #headers: Record<string, string> = {};
  readonly #onGone: () => void;

  /** `onGone` runs if the client goes away before the reply. */
  constructor(readonly accepts: Accepts, onGone: () => void) {
    this.#onGone = onGone;
    this.response = new Promise((resolve) => (this.#resolve = resolve));
  }

  /** The client went away: what it asked for is dropped (once, and only before the reply). */
  gone(): void {
    if (this.#done) return;
    this.#done = true;
    this.#onGone();
  }

  /** Starts the stream now, when the client takes one, rather than at the first message. */
  stream(): void {
    if (!this.#sse && !this.#done && this.accepts.sse) this.#startStream();
  }

  get done(): boolean {
    return this.#done;
  }

  /** Sets a header while the response has not started (the session id of an initialize). */
  setHeader(name: string, value: string): void {
    this.#headers[name] = value;
  }

  /** A message before the reply; dropped when the client accepts only JSON. */
  push(json: string): boolean {
    if (this.#done) return false;
    if (!this.#sse) {
      if (!this.accepts.sse) return false;
      this.#startStream();
    }
    return this.#sse!.send(json);
  }

  /** The reply; `status` applies when it goes out as plain JSON. */
  finish(json: string, status = 200): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#sse) {
      this.#sse.send(json);
      this.#sse.close();
      return;
    }
    if (!this.accepts.json) {
      this.#startStream();
      this.#sse!.send(json);
      this.#sse!.close();
      return;
    }
    this.#resolve(
      new Response(json, {
        status,
        headers: { ...this.#headers, "content-type": "application/json" },
      }),
    );
  }

  /** Ends the exchange without a reply (the session was deleted, the server stops). */
  abandon(status = 503): void {
    if (this.#done) return;
    this.#done = true;
    if (this.#sse) this.#sse.close();
    else this.#resolve(new Response(null, { status, headers: this.#headers }));
  }

  #startStream(): void {
    this.#sse = new SseStream(() => this.gone());
    this.#resolve(new Response(this.#sse.body, { headers: { ...this.#headers, ...SSE_HEADERS } }));
  }
}

/**
 * How many questions about new tokens each client may make the server ask, so that one client
 * sending made-up tokens spends its own allowance and nobody else's: per client address, a bucket
 * that refills at `perSecond` up to `burst`, and at most `inFlight` questions at once. Addresses
 * are remembered in a bounded map (the least recently seen forgotten first: a forgotten one
 * starts again with a full bucket, which costs the authorization server at most `burst` more).
 *
 * @example
 * ```ts
 * const limits = new ClientLimits({ perSecond: 5, burst: 20, inFlight: 8 });
 * const done = limits.take("127.0.0.2"); // undefined: over its allowance now
 * try { await ask(); } finally { done?.(); }
 * ```
 */

export interface ClientLimitOptions {
  perSecond: number;
  burst: number;
  inFlight: number;
  /** Addresses remembered at most. */
  maxClients?: number;
}

interface Allowance {
  tokens: number;
  at: number;
  inFlight: number;
}

export class ClientLimits {
  /** Least recently seen first. */
  readonly #clients = new Map<string, Allowance>();

  constructor(readonly options: ClientLimitOptions, readonly now: () => number = Date.now) {}

  /**
   * Takes one question from `client`'s allowance: a function to call once it is answered, or
   * undefined when the client has none left now.
   */
  take(client: string): (() => void) | undefined {
    const { perSecond, burst, inFlight, maxClients = 10_000 } = this.options;
    const now = this.now();
    let allowance = this.#clients.get(client);
    if (allowance) this.#clients.delete(client);
    else allowance = { tokens: burst, at: now, inFlight: 0 };
    allowance.tokens = Math.min(burst, allowance.tokens + (now - allowance.at) * perSecond / 1000);
    allowance.at = now;
    this.#clients.set(client, allowance);
    while (this.#clients.size > maxClients) {
      const [oldest, kept] = this.#clients.entries().next().value!;
      // One with questions in flight is kept, or its count would be lost.
      if (kept.inFlight > 0) break;
      this.#clients.delete(oldest);
    }
    if (allowance.tokens < 1 || allowance.inFlight >= inFlight) return undefined;
    allowance.tokens -= 1;
    allowance.inFlight++;
    const held = allowance;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      held.inFlight--;
    };
  }

  /** Seconds until `client` may ask again, for Retry-After (at least 1). */
  retryAfter(client: string): number {
    const allowance = this.#clients.get(client);
    if (!allowance || allowance.tokens >= 1) return 1;
    return Math.max(1, Math.ceil((1 - allowance.tokens) / this.options.perSecond));
  }
}

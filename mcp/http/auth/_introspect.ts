/**
 * Opaque access tokens, asked about at the introspection endpoint (RFC 7662) as the configured
 * client. Answers are kept briefly, keyed by a digest of the token (never the token): an active
 * one until it expires or a minute passes, an inactive one for ten seconds.
 *
 * What a flood of made-up tokens can cost, and whom. Every new token is a question to the
 * authorization server, so new tokens are limited: per client address (ClientLimits: a few a
 * second, a burst of 20, 8 at once), and all together (MAX_PER_SECOND, MAX_ASKING), which protects
 * the authorization server from many addresses at once. A token that was found active before is
 * not new: asked about again once its answer expires, it passes no limit, whoever sends it. And the
 * answers are kept apart, active from inactive, so made-up tokens push out only each other. One
 * client's flood (10,000 made-up tokens) then gets that client 429s, and nobody else anything.
 */
import { type FetchBounds, fetchJsonObject } from "./_fetch.ts";
import { TooManyTokens, Unavailable } from "./_outcome.ts";
import type { Judgement } from "./_jwt.ts";
import { JudgementCache, tokenDigest } from "./_judgement_cache.ts";
import { ClientLimits } from "./_client_limits.ts";

export interface IntrospectionOptions {
  url: string;
  clientId: string;
  clientSecret: string;
  issuer: string;
  audience: () => string;
  bounds: FetchBounds;
}

const ACTIVE_TTL_MS = 60_000;
const INACTIVE_TTL_MS = 10_000;
/** Different new tokens being asked about at once, at most, from all clients together. */
const MAX_ASKING = 64;
/** New tokens asked about per second, at most, from all clients together. */
const MAX_PER_SECOND = 50;
/** What one client address may ask about: new tokens a second, saved up to a burst, at once. */
const PER_CLIENT = { perSecond: 5, burst: 20, inFlight: 8 };
/** Tokens found active, remembered (by digest, until they expire) so they are never "new" again. */
const MAX_KNOWN = 10_000;

export class Introspector {
  readonly #active = new JudgementCache();
  readonly #inactive = new JudgementCache();
  /** Digests of tokens found active, with when they expire; oldest first. */
  readonly #known = new Map<string, number>();
  /** Questions in flight, by token digest: one request however many calls bring the token. */
  readonly #asking = new Map<string, Promise<Judgement>>();
  readonly #clients = new ClientLimits(PER_CLIENT);
  #second = 0;
  #askedThisSecond = 0;

  constructor(readonly options: IntrospectionOptions) {}

  /** `client` is the address the request came from ("" when the runtime did not say). */
  async check(token: string, client = ""): Promise<Judgement> {
    const key = tokenDigest(token);
    const hit = this.#active.get(key) ?? this.#inactive.get(key);
    if (hit) return hit;
    let asking = this.#asking.get(key);
    if (!asking) {
      const done = this.#isKnown(key) ? () => {} : this.#admitNew(client);
      asking = this.#ask(token).finally(() => {
        this.#asking.delete(key);
        done();
      });
      this.#asking.set(key, asking);
    }
    const judgement = await asking;
    if (!("payload" in judgement)) {
      this.#known.delete(key);
      return this.#inactive.remember(key, judgement, INACTIVE_TTL_MS);
    }
    this.#remember(key, judgement.payload.exp as number);
    return this.#active.remember(key, judgement, ACTIVE_TTL_MS);
  }

  /** A new token's question, within its client's allowance and everyone's; throws past them. */
  #admitNew(client: string): () => void {
    if (this.#asking.size >= MAX_ASKING) {
      throw new Unavailable("too many tokens are being introspected at once");
    }
    const done = this.#clients.take(client);
    if (!done) throw new TooManyTokens(this.#clients.retryAfter(client));
    const second = Math.floor(Date.now() / 1000);
    if (second !== this.#second) [this.#second, this.#askedThisSecond] = [second, 0];
    if (++this.#askedThisSecond > MAX_PER_SECOND) {
      done();
      throw new Unavailable(`more than ${MAX_PER_SECOND} new tokens a second to introspect`);
    }
    return done;
  }

  #isKnown(key: string): boolean {
    const until = this.#known.get(key);
    if (until === undefined) return false;
    if (until > Date.now()) return true;
    this.#known.delete(key);
    return false;
  }

  /** `exp` in seconds, as the judgement has it (always set: #judge sees to it). */
  #remember(key: string, exp: number): void {
    this.#known.delete(key);
    this.#known.set(key, exp * 1000);
    while (this.#known.size > MAX_KNOWN) this.#known.delete(this.#known.keys().next().value!);
  }

  async #ask(token: string): Promise<Judgement> {
    const { url, clientId, clientSecret, bounds } = this.options;
    const basic = btoa(`${encodeURIComponent(clientId)}:${encodeURIComponent(clientSecret)}`);
    let answer: Record<string, unknown>;
    try {
      answer = await fetchJsonObject(url, bounds, {
        method: "POST",
        headers: {
          accept: "application/json",
          "content-type": "application/x-www-form-urlencoded",
          authorization: `Basic ${basic}`,
        },
        body: new URLSearchParams({ token, token_type_hint: "access_token" }).toString(),
      });
    } catch (error) {
      throw new Unavailable(`token introspection failed: ${(error as Error).message}`);
    }
    return this.#judge(answer);
  }

  #judge(answer: Record<string, unknown>): Judgement {
    if (answer.active !== true) return { invalid: "the token is not active" };
    const now = Date.now() / 1000;
    if (typeof answer.exp === "number" && answer.exp <= now) {
      return { invalid: "the token has expired" };
    }
    if (answer.iss !== undefined && answer.iss !== this.options.issuer) {
      return { invalid: "the token was not issued by the configured issuer" };
    }
    const aud = answer.aud;
    const audiences = Array.isArray(aud) ? aud : [aud];
    if (!audiences.includes(this.options.audience())) {
      return { invalid: "the token was not issued for this resource" };
    }
    const payload: Record<string, unknown> = {};
    if (typeof answer.scope === "string") payload.scope = answer.scope;
    // Without an exp, a grant lasts as long as the answer is trusted in the cache: a WebSocket
    // opened with it must not outlive a revocation by more than that.
    payload.exp = typeof answer.exp === "number" ? answer.exp : now + ACTIVE_TTL_MS / 1000;
    for (const key of ["sub", "client_id"]) {
      if (typeof answer[key] === "string") payload[key] = answer[key];
    }
    return { payload };
  }
}

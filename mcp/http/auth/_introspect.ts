/**
 * Opaque access tokens, asked about at the introspection endpoint (RFC 7662) as the configured
 * client. Answers are kept briefly in a small cache keyed by a digest of the token (never the
 * token): an active one until it expires or a minute passes, an inactive one for ten seconds.
 */
import { type FetchBounds, fetchJsonObject } from "./_fetch.ts";
import { Unavailable } from "./_outcome.ts";
import type { Judgement } from "./_jwt.ts";
import { JudgementCache, tokenDigest } from "./_judgement_cache.ts";

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
/** Different tokens being asked about at once, at most; past it a token is not checked now. */
const MAX_ASKING = 64;
/** New questions per second, at most: made-up tokens must not become a flood at the server. */
const MAX_PER_SECOND = 50;

export class Introspector {
  readonly #cache = new JudgementCache();
  /** Questions in flight, by token digest: one request however many calls bring the token. */
  readonly #asking = new Map<string, Promise<Judgement>>();
  #second = 0;
  #askedThisSecond = 0;

  constructor(readonly options: IntrospectionOptions) {}

  async check(token: string): Promise<Judgement> {
    const key = tokenDigest(token);
    const now = Date.now();
    const hit = this.#cache.get(key);
    if (hit) return hit;
    let asking = this.#asking.get(key);
    if (!asking) {
      if (this.#asking.size >= MAX_ASKING) {
        throw new Unavailable("too many tokens are being introspected at once");
      }
      const second = Math.floor(now / 1000);
      if (second !== this.#second) [this.#second, this.#askedThisSecond] = [second, 0];
      if (++this.#askedThisSecond > MAX_PER_SECOND) {
        throw new Unavailable(`more than ${MAX_PER_SECOND} new tokens a second to introspect`);
      }
      asking = this.#ask(token).finally(() => this.#asking.delete(key));
      this.#asking.set(key, asking);
    }
    const judgement = await asking;
    return this.#cache.remember(
      key,
      judgement,
      "payload" in judgement ? ACTIVE_TTL_MS : INACTIVE_TTL_MS,
    );
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

/**
 * Judgements of tokens kept briefly, keyed by a digest of the token (never the token): a client
 * sends the same token with every request, and checking it again (a signature, a question to the
 * introspection endpoint) is what a request would otherwise spend most of its time on.
 */
import { createHash } from "node:crypto";
import type { Judgement } from "./_jwt.ts";

const MAX_ENTRIES = 1000;

interface Entry {
  judgement: Judgement;
  until: number;
}

/**
 * @example
 * ```ts
 * const cache = new JudgementCache();
 * const key = tokenDigest(token);
 * const judgement = cache.get(key) ?? cache.remember(key, await verify(token), 60_000);
 * ```
 */
export class JudgementCache {
  /** Oldest first, so the first key is the one to drop. */
  readonly #entries = new Map<string, Entry>();

  get(key: string): Judgement | undefined {
    const hit = this.#entries.get(key);
    if (hit && hit.until > Date.now()) return hit.judgement;
    if (hit) this.#entries.delete(key);
    return undefined;
  }

  /** Keeps `judgement` for `ttlMs`, and never past the token's own `exp`. */
  remember(key: string, judgement: Judgement, ttlMs: number): Judgement {
    let until = Date.now() + ttlMs;
    const exp = "payload" in judgement ? judgement.payload.exp : undefined;
    if (typeof exp === "number") until = Math.min(until, exp * 1000);
    this.#entries.delete(key);
    this.#entries.set(key, { judgement, until });
    while (this.#entries.size > MAX_ENTRIES) {
      this.#entries.delete(this.#entries.keys().next().value!);
    }
    return judgement;
  }
}

/** What caches key on. */
export function tokenDigest(token: string): string {
  return createHash("sha256").update(token).digest("base64url");
}

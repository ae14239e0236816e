/**
 * JWT access tokens, checked with jose against the issuer's keys: an asymmetric signature by a
 * key of its JWK Set (fetched again, at most once per cooldown, for a key id it lacks), the
 * issuer, the expiry, and an audience naming this server (RFC 8707).
 */
import { createRemoteJWKSet, customFetch, type JWTPayload, jwtVerify } from "jose";
import { boundedFetch, type FetchBounds } from "./_fetch.ts";
import { Misconfigured, Unavailable } from "./_outcome.ts";

/** Asymmetric algorithms only: a shared secret would let anyone who verifies also sign. */
const ALGORITHMS = [
  "RS256",
  "RS384",
  "RS512",
  "PS256",
  "PS384",
  "PS512",
  "ES256",
  "ES384",
  "ES512",
  "EdDSA",
  "Ed25519",
];

/** Seconds of disagreement between our clock and the issuer's that exp and nbf forgive. */
const CLOCK_TOLERANCE_S = 10;

export interface JwtOptions {
  issuer: string;
  audience: () => string;
  /** The JWK Set's URL, or how to find it (the issuer's metadata), once, when first needed. */
  jwksUri: () => Promise<string>;
  cooldownMs: number;
  bounds: FetchBounds;
}

/** A token judged: its claims, or why it is not accepted (a phrase, nothing of the token). */
export type Judgement = { payload: JWTPayload } | { invalid: string };

export class JwtVerifier {
  #keys?: ReturnType<typeof createRemoteJWKSet>;

  constructor(readonly options: JwtOptions) {}

  async #keySet(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    if (this.#keys) return this.#keys;
    let url: string;
    try {
      url = await this.options.jwksUri();
    } catch (error) {
      if (error instanceof Misconfigured) throw error;
      throw new Unavailable((error as Error).message);
    }
    this.#keys ??= createRemoteJWKSet(new URL(url), {
      timeoutDuration: this.options.bounds.timeoutMs,
      cooldownDuration: this.options.cooldownMs,
      [customFetch]: (input, init) => boundedFetch(input, init, this.options.bounds),
    });
    return this.#keys;
  }

  /** Throws Unavailable when the keys cannot be had (the server's problem, not the token's). */
  async verify(token: string): Promise<Judgement> {
    const keys = await this.#keySet();
    try {
      const { payload } = await jwtVerify(token, keys, {
        issuer: this.options.issuer,
        audience: this.options.audience(),
        algorithms: ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ["exp"],
      });
      return { payload };
    } catch (error) {
      return { invalid: judge(error) };
    }
  }
}

/** What was wrong with the token, in words of our own: jose's errors may carry its claims. */
function judge(error: unknown): string {
  const { code, claim } = (error ?? {}) as { code?: string; claim?: string };
  switch (code) {
    case "ERR_JWT_EXPIRED":
      return "the token has expired";
    case "ERR_JWT_CLAIM_VALIDATION_FAILED":
      if (claim === "aud") return "the token was not issued for this resource";
      if (claim === "iss") return "the token was not issued by the configured issuer";
      if (claim === "nbf") return "the token is not valid yet";
      if (claim === "exp") return "the token has no expiry";
      return "a claim of the token is not acceptable";
    case "ERR_JWS_SIGNATURE_VERIFICATION_FAILED":
      return "the token's signature does not verify";
    case "ERR_JWKS_NO_MATCHING_KEY":
    case "ERR_JWKS_MULTIPLE_MATCHING_KEYS":
      return "the token is signed with a key the issuer does not publish";
    case "ERR_JOSE_ALG_NOT_ALLOWED":
    case "ERR_JOSE_NOT_SUPPORTED":
      return "the token's signing algorithm is not accepted (asymmetric ones only)";
    case "ERR_JWS_INVALID":
    case "ERR_JWT_INVALID":
      return "the token is not a well-formed signed JWT";
    case "ERR_JWKS_TIMEOUT":
    case "ERR_JWKS_INVALID":
      throw new Unavailable("the authorization server's key set could not be fetched");
    default:
      // A failed fetch of the key set (network, status, size) is not the token's fault.
      throw new Unavailable("the authorization server's key set could not be fetched");
  }
}

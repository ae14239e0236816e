/**
 * OAuth 2.1 for the HTTP listener: toolhost as a protected resource (MCP authorization, RFC
 * 9728, RFC 6750, RFC 8707, RFC 7662). Loaded by main.ts only when `http.auth.issuer` is set, so
 * a stdio server never loads jose.
 *
 * @example
 * ```ts
 * const auth = createAuthorizer({
 *   issuer: "https://auth.example.com",
 *   resource: () => "https://tools.example.com/mcp",
 *   readScope: "toolhost:read",
 *   writeScope: "toolhost:write",
 *   cooldownMs: 30_000,
 *   logger,
 * });
 * const guard = new HttpGuard({ host, origins, auth }); // every request passes guard.admit()
 * ```
 */
import { decodeProtectedHeader } from "jose";
import type { Grant } from "../../wire/grant.ts";
import type { Logger } from "../../wire/log.ts";
import type { Authorizer, Refusal } from "../guard.ts";
import { challenge, metadataPaths, metadataUrl, type ResourceMetadata } from "./_challenge.ts";
import { discoverJwksUri } from "./_discovery.ts";
import { DEFAULT_BOUNDS, type FetchBounds } from "./_fetch.ts";
import { Introspector } from "./_introspect.ts";
import { JudgementCache, tokenDigest } from "./_judgement_cache.ts";
import { type Judgement, JwtVerifier } from "./_jwt.ts";
import { Misconfigured, TooManyTokens, Unavailable } from "./_outcome.ts";
import { clientAddress } from "../serve.ts";

export interface AuthOptions {
  issuer: string;
  /** This server's resource URI; asked for each time (the default is known once listening). */
  resource: () => string;
  jwksUri?: string;
  introspection?: { url: string; clientId: string; clientSecret: string };
  readScope: string;
  writeScope: string;
  /** An unknown key id makes the key set be fetched again at most this often. */
  cooldownMs: number;
  logger: Logger;
  bounds?: FetchBounds;
}

/** Longer bearer tokens are refused unread: no access token needs this much. */
const MAX_TOKEN_CHARS = 16 * 1024;
const BEARER = /^Bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
/** How long an accepted JWT is taken on trust: a key withdrawn from the set counts after this. */
const VERDICT_MS = 60_000;
const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

export function createAuthorizer(options: AuthOptions): Authorizer {
  return new OAuthResource(options);
}

class OAuthResource implements Authorizer {
  readonly #options: AuthOptions;

  get issuer(): string {
    return this.#options.issuer;
  }
  readonly #jwt: JwtVerifier;
  readonly #introspector?: Introspector;
  /** JWTs judged lately: a signature is checked once per token and minute, not per request. */
  readonly #verdicts = new JudgementCache();
  #jwksUri?: Promise<string>;

  constructor(options: AuthOptions) {
    this.#options = options;
    const bounds = options.bounds ?? DEFAULT_BOUNDS;
    this.#jwt = new JwtVerifier({
      issuer: options.issuer,
      audience: options.resource,
      jwksUri: () => this.#findJwks(),
      cooldownMs: options.cooldownMs,
      bounds,
    });
    if (options.introspection) {
      this.#introspector = new Introspector({
        ...options.introspection,
        issuer: options.issuer,
        audience: options.resource,
        bounds,
      });
    }
  }

  /** The key set's URL: configured, or discovered once (a failure is retried after a cooldown). */
  #findJwks(): Promise<string> {
    if (this.#options.jwksUri) return Promise.resolve(this.#options.jwksUri);
    if (!this.#jwksUri) {
      const found = discoverJwksUri(this.#options.issuer, this.#options.bounds);
      this.#jwksUri = found;
      found.catch(() => {
        const timer = setTimeout(() => {
          if (this.#jwksUri === found) this.#jwksUri = undefined;
        }, this.#options.cooldownMs);
        (timer as { unref?: () => void }).unref?.();
      });
    }
    return this.#jwksUri;
  }

  metadata(request: Request, path: string): Response | undefined {
    const resource = this.#options.resource();
    if (!metadataPaths(resource).includes(path)) return undefined;
    const cors = {
      "access-control-allow-origin": "*",
      "access-control-allow-methods": "GET",
      "access-control-allow-headers": "mcp-protocol-version",
    };
    if (request.method === "OPTIONS") return new Response(null, { status: 204, headers: cors });
    if (request.method !== "GET" && request.method !== "HEAD") {
      return new Response("Method not allowed: GET the metadata document\n", {
        status: 405,
        headers: { allow: "GET", ...cors },
      });
    }
    const document: ResourceMetadata = {
      resource,
      authorization_servers: [this.#options.issuer],
      scopes_supported: [this.#options.readScope, this.#options.writeScope],
      bearer_methods_supported: ["header"],
      resource_name: "toolhost",
    };
    return new Response(JSON.stringify(document), {
      headers: { "content-type": "application/json", "cache-control": "max-age=300", ...cors },
    });
  }

  async authorize(request: Request): Promise<Grant | Refusal> {
    const header = request.headers.get("authorization");
    const token = header === null ? undefined : header.match(BEARER)?.[1];
    if (token === undefined) {
      return this.#unauthorized(
        header === null
          ? "Unauthorized: this server needs an OAuth access token (Authorization: Bearer " +
            `<token>); how to get one: ${metadataUrl(this.#options.resource())}`
          : "Unauthorized: the Authorization header is not `Bearer <access token>`",
      );
    }
    let judgement: Judgement;
    try {
      judgement = await this.#judge(token, clientAddress(request) ?? "");
    } catch (error) {
      if (error instanceof TooManyTokens) {
        return {
          status: 429,
          message: "Too Many Requests: this client sent more new access tokens than can be " +
            "checked; send the token it was given, and try again shortly",
          headers: { "retry-after": String(error.retryAfterSeconds) },
        };
      }
      if (!(error instanceof Unavailable)) throw error;
      this.#options.logger.log("warning", `HTTP: cannot check access tokens: ${error.message}`);
      if (error instanceof Misconfigured) {
        return {
          status: 503,
          message: "Service Unavailable: access tokens cannot be checked: toolhost's " +
            "http.auth.issuer does not match its authorization server (the server's log says " +
            "how); its operator must correct the configuration",
        };
      }
      return {
        status: 503,
        message: "Service Unavailable: access tokens cannot be checked right now (the " +
          "authorization server cannot be reached); try again shortly",
        headers: { "retry-after": "5" },
      };
    }
    if ("invalid" in judgement) {
      this.#options.logger.log("info", `HTTP: refused an access token: ${judgement.invalid}`);
      return this.#unauthorized(
        `Unauthorized: ${judgement.invalid}; get a new access token`,
        judgement.invalid,
      );
    }
    const { scope, scp, exp } = judgement.payload as Record<string, unknown>;
    return {
      scopes: new Set(scopesOf(scope ?? scp)),
      readScope: this.#options.readScope,
      writeScope: this.#options.writeScope,
      expiresAt: typeof exp === "number" ? exp * 1000 : undefined,
      subject: subjectOf(judgement.payload as Record<string, unknown>, token),
    };
  }

  /** `client` is the address the request came from: new opaque tokens are limited per client. */
  #judge(token: string, client: string): Promise<Judgement> {
    if (token.length > MAX_TOKEN_CHARS) {
      return Promise.resolve({ invalid: "the token is longer than any accepted" });
    }
    // An opaque token may have two dots too: only a readable JOSE header makes it a JWT.
    if (JWT_SHAPE.test(token) && (!this.#introspector || hasJoseHeader(token))) {
      return this.#verified(token);
    }
    if (this.#introspector) return this.#introspector.check(token, client);
    return Promise.resolve({
      invalid: "the token is not a JWT and no introspection endpoint is configured",
    });
  }

  async #verified(token: string): Promise<Judgement> {
    const key = tokenDigest(token);
    const kept = this.#verdicts.get(key);
    if (kept) return kept;
    const judgement = await this.#jwt.verify(token);
    // Only acceptances are kept: a refusal may turn (a key published since), and costs little.
    return "payload" in judgement ? this.#verdicts.remember(key, judgement, VERDICT_MS) : judgement;
  }

  insufficient(scope: string, message: string): Refusal {
    return {
      status: 403,
      message,
      headers: {
        "WWW-Authenticate": challenge({
          error: "insufficient_scope",
          scope,
          resource_metadata: metadataUrl(this.#options.resource()),
          error_description: `this request needs the scope ${scope}`,
        }),
      },
    };
  }

  #unauthorized(message: string, invalid?: string): Refusal {
    const { readScope, writeScope } = this.#options;
    return {
      status: 401,
      message,
      headers: {
        "WWW-Authenticate": challenge({
          ...(invalid ? { error: "invalid_token", error_description: invalid } : {}),
          resource_metadata: metadataUrl(this.#options.resource()),
          scope: `${readScope} ${writeScope}`,
        }),
      },
    };
  }
}

/** A `scope` string (RFC 9068) or an `scp` list, as names; anything else holds none. */
function scopesOf(value: unknown): string[] {
  if (typeof value === "string") return value.split(" ").filter(Boolean);
  if (Array.isArray(value)) return value.filter((s): s is string => typeof s === "string");
  return [];
}

/**
 * Whom a session opened with this token belongs to: its `sub`, else its client (`client_id`,
 * `azp`), else the token alone; never "nobody", which any other such token would also be.
 */
function subjectOf(payload: Record<string, unknown>, token: string): string {
  if (typeof payload.sub === "string") return `sub:${payload.sub}`;
  const client = payload.client_id ?? payload.azp;
  if (typeof client === "string") return `client:${client}`;
  return `token:${tokenDigest(token)}`;
}

/** Whether the token's first part decodes to a JOSE header naming an algorithm. */
function hasJoseHeader(token: string): boolean {
  try {
    return typeof decodeProtectedHeader(token).alg === "string";
  } catch {
    return false;
  }
}

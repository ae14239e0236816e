/**
 * Who may talk to the HTTP endpoint. No web page but toolhost's own (GET /ui/…) and those of the
 * origins the user lists (--http-origin) may drive it: a browser request from any other origin is
 * refused, loopback ones included (another local server's page, a dev server on localhost:3000),
 * and so is one a page sends without saying its origin (Sec-Fetch-Site names another site).
 * Requests whose Host betrays DNS rebinding (a web page that made its own name point at this
 * machine) are refused, and so is anyone without the bearer token when one is set, or, with OAuth
 * (an Authorizer), without an access token it accepts; what such a token allows (its Grant) goes
 * on with the request. Clients that are not browsers (the SDKs, Claude Code, Gemini CLI) send no
 * Origin and no Sec-Fetch-Site, and pass.
 */
import { createHash, timingSafeEqual } from "node:crypto";
import {
  type Grant,
  missingForMessage,
  missingScope,
  refusalText,
  type ToolKind,
} from "../wire/grant.ts";
import { type Decoded, INVALID_REQUEST, type RequestId } from "../wire/jsonrpc.ts";
import { errorResponse } from "./replies.ts";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
}

/** An https URL, or an http one to this machine: where OAuth may fetch from or point to. */
export function isHttpsOrLoopback(text: string): boolean {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return false;
  }
  return url.protocol === "https:" || (url.protocol === "http:" && isLoopbackHost(url.hostname));
}

/**
 * The path the request asks for; undefined when no URL can be made of it: the runtime builds the
 * URL from the Host header, so an empty one (or none, in HTTP/1.0) leaves nothing to parse.
 */
export function requestPath(request: Request): string | undefined {
  try {
    return new URL(request.url).pathname;
  } catch {
    return undefined;
  }
}

export interface GuardOptions {
  /** The host the server listens on. */
  host: string;
  /** Origins allowed besides toolhost's own, exactly as browsers send them (--http-origin). */
  origins: readonly string[];
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string;
  /** OAuth (mcp/http/auth, loaded only when configured): access tokens instead of `token`. */
  auth?: Authorizer;
}

export type Refusal = {
  status: 401 | 403 | 429 | 503;
  message: string;
  headers?: Record<string, string>;
};

/**
 * Access tokens of an authorization server (mcp/http/auth/mod.ts implements it): what a
 * request's token allows, and the answers that point a client to where it gets one.
 */
export interface Authorizer {
  /** The authorization server's issuer URL: an app page signs in there. */
  readonly issuer: string;
  /** The protected resource metadata document when `path` is where it is served. */
  metadata(request: Request, path: string): Response | undefined;
  /** What the request's bearer token allows, or the refusal (401, or 503 when the AS is away). */
  authorize(request: Request): Promise<Grant | Refusal>;
  /** The 403 for a request that needs `scope`, which the grant lacks. */
  insufficient(scope: string, message: string): Refusal;
}

export class HttpGuard {
  readonly #origins: Set<string>;
  readonly #tokenDigest?: Uint8Array;
  readonly #checkHost: boolean;

  constructor(readonly options: GuardOptions) {
    this.#origins = new Set(options.origins.map((origin) => origin.toLowerCase()));
    if (options.token) this.#tokenDigest = digest(options.token);
    // On a loopback address only local names can be right; elsewhere the name is whatever the
    // deployment uses, and the token stands guard.
    this.#checkHost = isLoopbackHost(options.host);
  }

  /**
   * Why `request` may not proceed, or undefined when it may. A CORS preflight carries no
   * token (browsers never send one with it): only where it comes from counts; nor does a page
   * opened in a browser (`page: true`, app_pages.ts), which another site may also link to.
   */
  check(request: Request, { page = false } = {}): Refusal | undefined {
    const origin = request.headers.get("origin");
    if (origin !== null && !this.#originAllowed(origin, request)) {
      return {
        status: 403,
        message: `Forbidden: requests from origin ${origin} are not accepted (only toolhost's ` +
          "own pages may use it from a browser); start toolhost with --http-origin to allow it",
      };
    }
    if (origin === null && fromAnotherSite(request) && !(page && isNavigation(request))) {
      return {
        status: 403,
        message: "Forbidden: a browser request from another site is not accepted (only " +
          "toolhost's own pages may use it from a browser)",
      };
    }
    if (this.#checkHost) {
      const host = request.headers.get("host");
      if (host !== null && !isLoopbackHost(hostnameOf(host))) {
        return {
          status: 403,
          message: `Forbidden: Host ${host} is not a local name (DNS rebinding protection)`,
        };
      }
    }
    if (this.#tokenDigest && !page && request.method !== "OPTIONS") {
      const given = request.headers.get("authorization")?.match(/^Bearer\s+(\S+)\s*$/i)?.[1];
      if (!given || !timingSafeEqual(digest(given), this.#tokenDigest)) {
        return {
          status: 401,
          message: "Unauthorized: send the token toolhost was started with as " +
            "`Authorization: Bearer <token>`",
          headers: { "WWW-Authenticate": 'Bearer realm="toolhost"' },
        };
      }
    }
    return undefined;
  }

  /**
   * Lets a request in or answers it: check(), then under OAuth its token, whose grant (the
   * scopes it holds) comes back. Anything but a POST needs the read scope at least; what a
   * POST carries is judged by its messages (refuseScope).
   */
  async admit(request: Request): Promise<Response | Grant | undefined> {
    const refusal = this.check(request);
    if (refusal) return refusalResponse(refusal);
    const auth = this.options.auth;
    if (!auth || request.method === "OPTIONS") return undefined;
    const grant = await auth.authorize(request);
    if ("status" in grant) return refusalResponse(grant);
    const missing = request.method === "POST"
      ? undefined
      : missingScope(grant, request.method, undefined, () => undefined);
    if (missing) {
      return refusalResponse(
        auth.insufficient(missing, refusalText(grant, request.method, missing)),
      );
    }
    return grant;
  }

  /** The 403 for a message (a batch) the grant does not cover, on the request that carried it. */
  refuseScope(grant: Grant, decoded: Decoded, kindOf: ToolKind): Response | undefined {
    const missing = missingForMessage(grant, decoded, kindOf);
    if (!missing || !this.options.auth) return undefined;
    const method = decoded.kind === "request" ? decoded.message.method : "this message";
    const refusal = this.options.auth.insufficient(missing, refusalText(grant, method, missing));
    const id = decoded.kind === "request" ? decoded.message.id : null;
    return refusalResponse(refusal, id);
  }

  /** The answer to a browser's preflight, from an origin check() let through. */
  preflight(request: Request): Response {
    const asked = (request.headers.get("access-control-request-headers") ?? "")
      .split(",").map((name) => name.trim().toLowerCase()).filter(Boolean);
    const headers = asked.filter((name) => CORS_HEADERS.has(name) || name.startsWith("mcp-param-"));
    return new Response(null, {
      status: 204,
      headers: {
        "access-control-allow-methods": "POST, GET, DELETE",
        "access-control-allow-headers": headers.join(", "),
        "access-control-max-age": "600",
      },
    });
  }

  /** Lets a page of an allowed origin read the response (and the session id it carries). */
  withCors(request: Request, response: Response): Response {
    const origin = request.headers.get("origin");
    if (origin === null || !this.#originAllowed(origin, request)) return response;
    try {
      response.headers.set("access-control-allow-origin", origin);
      response.headers.set("access-control-expose-headers", "mcp-session-id");
      response.headers.append("vary", "origin");
    } catch {
      // Headers a runtime made immutable: the response goes as it is.
    }
    return response;
  }

  /**
   * A listed origin, or toolhost's own: the one whose name and port are the request's Host (on a
   * loopback bind a loopback name, checked apart, and http, all toolhost serves; beyond it https
   * too, through a proxy, and the token stands guard, which a page of another origin cannot read
   * from toolhost's).
   */
  #originAllowed(origin: string, request: Request): boolean {
    if (this.#origins.has(origin.toLowerCase())) return true;
    const host = request.headers.get("host");
    if (host === null) return false;
    try {
      const url = new URL(origin);
      const schemes = this.#checkHost ? ["http:"] : ["http:", "https:"];
      if (!schemes.includes(url.protocol)) return false;
      return url.host === new URL(`${url.protocol}//${host}`).host;
    } catch {
      return false; // "null" (sandboxed frames, file pages) and anything malformed
    }
  }
}

/**
 * A browser's request made for a page of another site that did not say its origin (an image, a
 * script, a link followed): browsers send Sec-Fetch-Site with every request, other clients none.
 * A site is the name without the port: a page on another port of 127.0.0.1 is "same-site".
 */
function fromAnotherSite(request: Request): boolean {
  const site = request.headers.get("sec-fetch-site")?.toLowerCase();
  return site === "cross-site" || site === "same-site";
}

/** A page opened by following a link (top level: no frame of another site may hold it). */
function isNavigation(request: Request): boolean {
  return request.method === "GET" &&
    request.headers.get("sec-fetch-mode")?.toLowerCase() === "navigate" &&
    request.headers.get("sec-fetch-dest")?.toLowerCase() === "document";
}

/** Request headers a browser page may send us. */
const CORS_HEADERS = new Set([
  "content-type",
  "accept",
  "authorization",
  "mcp-session-id",
  "mcp-protocol-version",
  "mcp-method",
  "mcp-name",
  "last-event-id",
]);

/** The name in a Host header, without its port; "" when it is not name[:port]. */
function hostnameOf(host: string): string {
  const match = host.match(/^(\[[0-9a-fA-F:.]+\]|[^:@\[\]]+)(?::\d*)?$/);
  return match ? match[1] : "";
}

function refusalResponse(refusal: Refusal, id: RequestId | null = null): Response {
  return errorResponse(refusal.status, INVALID_REQUEST, refusal.message, id, refusal.headers);
}

/** Equal-length digests, so comparing them takes the same time whatever was sent. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

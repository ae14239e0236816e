/**
 * Who may talk to the HTTP endpoint: requests whose Origin or Host betray DNS rebinding (a web
 * page that made its own name point at this machine) are refused, and so is anyone without
 * the bearer token when one is set.
 */
import { createHash, timingSafeEqual } from "node:crypto";

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]", "::1"]);

export function isLoopbackHost(host: string): boolean {
  return LOOPBACK_NAMES.has(host.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(host);
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
  /** Origins allowed besides loopback ones, exactly as browsers send them. */
  origins: readonly string[];
  /** Required as `Authorization: Bearer <token>` when set. */
  token?: string;
}

export type Refusal = { status: 401 | 403; message: string; headers?: Record<string, string> };

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
   * opened in a browser (`token: false`, app_pages.ts).
   */
  check(request: Request, { token = true } = {}): Refusal | undefined {
    const origin = request.headers.get("origin");
    if (origin !== null && !this.#originAllowed(origin)) {
      return {
        status: 403,
        message: `Forbidden: requests from origin ${origin} are not accepted (DNS rebinding ` +
          "protection); start toolhost with --http-origin to allow it",
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
    if (this.#tokenDigest && token && request.method !== "OPTIONS") {
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
    if (origin === null || !this.#originAllowed(origin)) return response;
    try {
      response.headers.set("access-control-allow-origin", origin);
      response.headers.set("access-control-expose-headers", "mcp-session-id");
      response.headers.append("vary", "origin");
    } catch {
      // Headers a runtime made immutable: the response goes as it is.
    }
    return response;
  }

  #originAllowed(origin: string): boolean {
    if (this.#origins.has(origin.toLowerCase())) return true;
    try {
      const url = new URL(origin);
      return (url.protocol === "http:" || url.protocol === "https:") &&
        isLoopbackHost(url.hostname);
    } catch {
      return false; // "null" (sandboxed frames, file pages) and anything malformed
    }
  }
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

/** Equal-length digests, so comparing them takes the same time whatever was sent. */
function digest(text: string): Uint8Array {
  return createHash("sha256").update(text).digest();
}

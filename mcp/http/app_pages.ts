/**
 * App pages for a plain browser: GET /ui/<name> serves the `ui://<name>` page of the resource
 * catalog (MCP Apps, mcp/tool/apps.ts) to people whose client renders no apps. The page is code,
 * not data: it passes the Origin and Host checks like /mcp, and asks for the token itself when /mcp
 * refuses it (a navigation cannot send a bearer token). Its inline script and style are allowed
 * by their digests alone, and it may talk only to this origin.
 */
import { createHash } from "node:crypto";
import { describeLogData, type Logger } from "../wire/log.ts";
import type { ReadContext } from "../features/resource.ts";
import type { McpService } from "../server/service.ts";
import { SessionMemory } from "../tool/session_memory.ts";
import type { HttpGuard } from "./guard.ts";

export const APP_PAGES = "/ui/";

interface PageOptions {
  service: McpService;
  logger: Logger;
  guard: HttpGuard;
}

const text = (status: number, body: string, headers: Record<string, string> = {}) =>
  new Response(`${body}\n`, {
    status,
    headers: { "content-type": "text/plain; charset=utf-8", ...headers },
  });

/**
 * The answer to a request under /ui/.
 *
 * @example
 * ```ts
 * if (path.startsWith(APP_PAGES)) return await appPage(request, path, options);
 * ```
 */
export async function appPage(
  request: Request,
  path: string,
  options: PageOptions,
): Promise<Response> {
  const refusal = options.guard.check(request, { page: true });
  if (refusal) return text(refusal.status, refusal.message, refusal.headers);
  if (request.method !== "GET" && request.method !== "HEAD") {
    return text(405, `Method not allowed: ${request.method}; app pages take GET`, {
      allow: "GET, HEAD",
    });
  }
  const name = path.slice(APP_PAGES.length);
  const catalog = options.service.resources;
  const html = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/.test(name) && catalog
    ? await catalog.appPage(`ui://${name}`, readContext(request, options))
    : undefined;
  if (html === undefined) return text(404, `Not found: no app page is served at ${path}`);
  // Under OAuth the page signs in at the authorization server: it may talk to that origin too.
  const issuer = options.guard.options.auth?.issuer;
  return new Response(request.method === "HEAD" ? null : html, {
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policyOf(html, issuer ? [new URL(issuer).origin] : []),
      "x-content-type-options": "nosniff",
      "referrer-policy": "no-referrer",
      "cache-control": "no-store",
    },
  });
}

/**
 * A page read belongs to no request of a client: it has no roots to ask for, and no session (one
 * that has ended, so nothing can be kept in it).
 */
function readContext(request: Request, { service, logger }: PageOptions): ReadContext {
  const session = new SessionMemory();
  void session.dispose();
  return {
    session,
    signal: request.signal,
    roots: () => Promise.reject(new Error("an app page is read outside any MCP request")),
    log: (level, data) => logger.log(level, `app page: ${describeLogData(data)}`),
    config: service.program.config,
    state: service.program.state,
  };
}

/** The policy of the last page served (pages do not change while the server runs). */
let lastPolicy: { html: string; connect: string; policy: string } | undefined;

/**
 * Nothing but the page's own inline scripts and styles (by digest), data: images, and requests to
 * this origin (and `connect`, the authorization server's under OAuth); it may not be framed,
 * change its base or submit forms.
 */
export function policyOf(html: string, connect: readonly string[] = []): string {
  const sources = ["'self'", ...connect].join(" ");
  if (lastPolicy?.html === html && lastPolicy.connect === sources) return lastPolicy.policy;
  const digests = (tag: string) => {
    const found = [...html.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, "g"))].map(
      (match) => `'sha256-${createHash("sha256").update(match[1]).digest("base64")}'`,
    );
    return found.length ? found.join(" ") : "'none'";
  };
  const policy = [
    "default-src 'none'",
    `script-src ${digests("script")}`,
    `style-src ${digests("style")}`,
    "img-src data:",
    `connect-src ${sources}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join("; ");
  lastPolicy = { html, connect: sources, policy };
  return policy;
}

/**
 * `--http`: the listener with its transport and guard, and the lines that say where it serves
 * (MCP, the app pages a browser may open). main.ts imports it only with --http: a stdio server
 * never loads the HTTP code.
 */
import type { McpService } from "../server/service.ts";
import type { AuthPlan } from "./auth_settings.ts";
import { APP_PAGES } from "./app_pages.ts";
import { HttpGuard } from "./guard.ts";
import { serve } from "./serve.ts";
import { HttpTransport } from "./transport.ts";

/** Where and how to serve, as main.ts checked it. */
export interface HttpPlan {
  host: string;
  port: number;
  token?: string;
  /** Browser origins allowed beside loopback ones. */
  origins: string[];
  auth?: AuthPlan;
}

export interface RunningHttp {
  /** `http://HOST:PORT`, the host in brackets when it is IPv6. */
  origin: string;
  /** The browser address of each app page (`/ui/…`), by its `ui://` URI. */
  pages: Map<string, string>;
  /** What is still open, for the shutdown's log line. */
  open(): string;
  /** Ends every session and stops listening, within about `ms`. */
  close(ms: number): Promise<void>;
}

/**
 * Listens and serves `service`; throws when the address cannot be listened on. `beforeServing`
 * logs what must come before the "serving" line (the sandbox's).
 *
 * @example
 * ```ts
 * const running = await runHttp(service, { host: "127.0.0.1", port: 0, origins: [] }, 1 << 26);
 * console.error(running.pages.get("ui://toolhost/review"));
 * ```
 */
export async function runHttp(
  service: McpService,
  plan: HttpPlan,
  maxBodyBytes: number,
  beforeServing: () => void | Promise<void> = () => {},
): Promise<RunningHttp> {
  const oauth = plan.auth ? await import("./auth/mod.ts") : undefined;
  const logger = service.options.logger;
  // The default resource URI names the port, known once listening (before any request).
  let resource = plan.auth?.resource;
  const auth = plan.auth &&
    oauth?.createAuthorizer({ ...plan.auth, resource: () => resource!, logger });
  const transport = new HttpTransport({
    service,
    logger,
    maxBodyBytes,
    guard: new HttpGuard({ ...plan, auth }),
  });
  service.programLog = (level, logger, data) => transport.log(level, logger, data);
  const listening = await serve(plan.host, plan.port, transport.handle, maxBodyBytes);
  const shown = plan.host.includes(":") ? `[${plan.host}]` : plan.host;
  const origin = `http://${shown}:${listening.port}`;
  resource ??= `${origin}/mcp`;
  await beforeServing();
  if (plan.auth) logger.log("info", `OAuth: access tokens of ${plan.auth.issuer} for ${resource}`);
  logger.log(
    "debug",
    `also WebSocket (subprotocol mcp) at ws://${shown}:${listening.port}/mcp and the 2024-11-05 ` +
      `HTTP+SSE transport at ${origin}/sse`,
  );
  const pages = new Map<string, string>();
  for (const page of service.resources?.appPages ?? []) {
    const url = `${origin}${APP_PAGES}${page.uri.slice("ui://".length)}`;
    pages.set(page.uri, url);
    logger.log("info", `${page.title ?? "app page"} in a browser: ${url}`);
  }
  // Last: whoever waits for this line (a launcher, a test) has heard every start line before it.
  logger.log("info", `serving MCP at ${origin}/mcp`);
  return {
    origin,
    pages,
    open: () => `${transport.sessions} session(s) open`,
    async close(ms) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise((resolve) => (timer = setTimeout(resolve, ms)));
      await Promise.race([transport.close().then(() => listening.close()), late]);
      clearTimeout(timer);
    },
  };
}

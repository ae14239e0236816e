/**
 * Streamable HTTP: one endpoint for both eras. A 2026-07-28 request (its `_meta` names the
 * version) is answered statelessly by a connection made for it alone; anything else belongs to a
 * legacy session that `initialize` opened, named by Mcp-Session-Id, with a GET stream for what
 * concerns no request and DELETE to end it. Beside it: a WebSocket upgrade on the same endpoint
 * (websocket.ts) and the 2024-11-05 HTTP+SSE transport on /sse and /messages (legacy_sse.ts),
 * each session one channel; every way in passes the same guard and shares the session cap. App
 * pages for browsers are served under /ui/ (app_pages.ts).
 */
import { quotedJson } from "../../config/quote.ts";
import {
  type Decoded,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isPlainObject,
  METHOD_NOT_FOUND,
  type RequestId,
  requestKey,
  type RpcError,
} from "../wire/jsonrpc.ts";
import { describeLogData, type Logger, type LogLevel } from "../wire/log.ts";
import { connect } from "../server/connect.ts";
import type { Grant } from "../wire/grant.ts";
import type { McpService } from "../server/service.ts";
import type { TransportConnection } from "../server/transport.ts";
import { type ReadMessage, readMessage } from "./body.ts";
import { type Accepts, accepts, Exchange, SSE_HEADERS } from "./exchange.ts";
import { type HttpGuard, requestPath } from "./guard.ts";
import { checkModernHeaders, headerParamsCache, isModern } from "./headers.ts";
import { errorResponse, modernStatus, noHost } from "./replies.ts";
import { HttpSession } from "./session.ts";
import { SseStream } from "./sse.ts";
import { StatelessSessions } from "./stateless_sessions.ts";
import { META_PROTOCOL_VERSION, SUPPORTED_VERSIONS } from "../wire/versions.ts";
import { Channels } from "./channels.ts";
import { MESSAGES_PATH, SSE_PATH } from "./legacy_sse.ts";
import type { Upgrade } from "./serve.ts";
import { APP_PAGES, appPage } from "./app_pages.ts";
import { Admission, tooBusy, waitsForRoom } from "./admission.ts";
import { BodyBudget } from "./body_budget.ts";
import { clientAddress } from "./serve.ts";

export interface HttpOptions {
  service: McpService;
  logger: Logger;
  guard: HttpGuard;
  /** Bodies over this many bytes are refused (413). */
  maxBodyBytes: number;
  /** The endpoint's path. */
  path?: string;
  /** Legacy sessions with nothing open and nothing asked for this long are ended. */
  sessionIdleMs?: number;
  /** Legacy sessions at most; past it the least recently used idle one is ended. */
  maxSessions?: number;
  /** 2026-07-28 requests in flight at most (listen streams last: they count). */
  maxStateless?: number;
}

const SESSION_IDLE_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 1000;
const MAX_STATELESS = 1000;
/** The longest a timer can wait (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;
const ALLOW = { allow: "POST, GET, DELETE" };

export class HttpTransport {
  readonly #options: HttpOptions;
  /** In order of use, least recently used first (times alone tie within a millisecond). */
  readonly #sessions = new Map<string, HttpSession>();
  /** Connections of 2026-07-28 requests in flight, to stop on shutdown. */
  readonly #stateless = new Set<TransportConnection>();
  readonly #statelessSessions: StatelessSessions; // theirs: one per subject
  /** Sessions of one channel each (a WebSocket, a 2024-11-05 SSE stream). */
  readonly #channels: Channels;
  readonly #path: string;
  readonly #headerParamsOf = headerParamsCache((tool) =>
    this.#options.service.catalog.inputSchema(tool)
  );
  readonly #sweep: ReturnType<typeof setInterval>;
  #closing = false;
  /** Server-wide: requests running at once (every session's), and request bodies being read. */
  readonly #admission = new Admission();
  readonly #bodies = new BodyBudget();

  constructor(options: HttpOptions) {
    this.#options = options;
    this.#path = options.path ?? "/mcp";
    this.#channels = new Channels({
      ...options,
      path: this.#path,
      makeRoom: () => this.#makeRoom(),
      admission: this.#admission,
      bodies: this.#bodies,
    });
    const idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS;
    this.#statelessSessions = new StatelessSessions(options.logger, idleMs);
    this.#sweep = setInterval(() => this.#endIdle(idleMs), Math.min(idleMs, 60_000));
    (this.#sweep as { unref?: () => void }).unref?.();
  }

  get sessions(): number {
    return this.#sessions.size + this.#channels.size;
  }

  /**
   * The web-standard handler: every request of the HTTP server comes here, with the runtime's
   * way to accept a WebSocket when it has one.
   */
  handle = async (request: Request, upgrade?: Upgrade): Promise<Response> => {
    let response: Response;
    try {
      response = await this.#route(request, upgrade);
    } catch (error) {
      this.#options.logger.log("error", `HTTP ${request.method}: ${describeLogData(error)}`);
      response = errorResponse(
        500,
        INTERNAL_ERROR,
        "Internal error; the server's stderr has the details",
      );
    }
    return this.#options.guard.withCors(request, response);
  };

  async #route(request: Request, upgrade?: Upgrade): Promise<Response> {
    const path = requestPath(request);
    if (path === undefined) return noHost(this.#options.logger);
    const metadata = this.#options.guard.options.auth?.metadata(request, path);
    if (metadata) return metadata;
    if (path.startsWith(APP_PAGES)) return await appPage(request, path, this.#options);
    if (path !== this.#path && path !== SSE_PATH && path !== MESSAGES_PATH) {
      return new Response(`Not found: the MCP endpoint is ${this.#path}\n`, { status: 404 });
    }
    const grant = await this.#options.guard.admit(request);
    if (grant instanceof Response) return grant;
    if (this.#closing) return errorResponse(503, INTERNAL_ERROR, "The server is shutting down");
    if (request.method === "OPTIONS") return this.#options.guard.preflight(request);
    if (path === SSE_PATH) return this.#channels.openSse(request, grant);
    if (path === MESSAGES_PATH) return await this.#channels.sseMessage(request, grant);
    if (request.headers.get("upgrade")?.toLowerCase() === "websocket") {
      return this.#channels.webSocket(request, upgrade, grant);
    }
    switch (request.method) {
      case "POST":
        return await this.#post(request, grant);
      case "GET":
        return this.#get(request, grant);
      case "DELETE":
        return await this.#delete(request, grant);
      default:
        return errorResponse(
          405,
          INVALID_REQUEST,
          `Method not allowed: ${request.method}; the MCP endpoint takes POST (and GET and ` +
            "DELETE for sessions of MCP 2025-11-25 and earlier)",
          null,
          ALLOW,
        );
    }
  }

  /** Logs what belongs to no request to every legacy session that asked for it. */
  log(level: LogLevel, logger: string, data: unknown): void {
    this.#options.logger.log(level, `${logger}: ${describeLogData(data)}`);
    for (const session of this.#sessions.values()) session.conn.log(level, logger, data, false);
    for (const session of this.#channels.all()) session.conn.log(level, logger, data, false);
  }

  /** Ends every session and request: subscriptions answer that they ended, streams close. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweep);
    await Promise.all([
      ...[...this.#sessions.values()].map((session) => session.close()),
      ...[...this.#channels.all()].map((session) => session.close()),
      ...[...this.#stateless].map((conn) => conn.shutdown(1000)),
    ]);
    await this.#statelessSessions.close();
    this.#sessions.clear();
    this.#channels.clear();
  }

  async #post(request: Request, grant: Grant | undefined): Promise<Response> {
    const type = request.headers.get("content-type") ?? "";
    if (!/^application\/json\s*(;|$)/i.test(type)) {
      return errorResponse(
        415,
        INVALID_REQUEST,
        `Unsupported Media Type: the body must be application/json (got ${type || "none"})`,
      );
    }
    const accept = accepts(request.headers.get("accept"));
    if (!accept.json && !accept.sse) {
      return errorResponse(
        406,
        INVALID_REQUEST,
        "Not Acceptable: Accept must allow application/json or text/event-stream",
      );
    }
    return await readMessage(
      request,
      this.#options.maxBodyBytes,
      this.#bodies,
      (read) => this.#message(request, read, accept, grant),
    );
  }

  /** A POSTed message, read; its body's place in the budget is kept until this resolves. */
  #message(
    request: Request,
    { decoded, chars }: ReadMessage,
    accept: Accepts,
    grant: Grant | undefined,
  ): Promise<Response> | Response {
    const kindOf = this.#options.service.catalog.kindOf;
    const forbidden = grant && this.#options.guard.refuseScope(grant, decoded, kindOf);
    if (forbidden) return forbidden;
    if (waitsForRoom(decoded) && this.#admission.full(chars)) return tooBusy(decoded);
    if (decoded.kind === "request" && isModern(decoded.message.params)) {
      return this.#modern(request, decoded, accept, grant, chars);
    }
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId === null) {
      if (decoded.kind === "request" && decoded.message.method === "initialize") {
        return this.#initialize(request, decoded, accept, grant, chars);
      }
      if (decoded.kind === "notification") return new Response(null, { status: 202 });
      return errorResponse(
        400,
        INVALID_PARAMS,
        `Invalid params: no Mcp-Session-Id header. Send initialize first (MCP 2025-11-25 and ` +
          `earlier), or put "${META_PROTOCOL_VERSION}" in params._meta (MCP 2026-07-28)`,
        decoded.kind === "request" ? decoded.message.id : null,
      );
    }
    const session = this.#session(sessionId, request, grant);
    if (session instanceof Response) return session;
    return this.#legacy(request, session, decoded, accept, grant, chars);
  }

  /** The session a request names, checked against its token's subject and its version. */
  #session(id: string, request: Request, grant: Grant | undefined): HttpSession | Response {
    const session = this.#sessions.get(id);
    if (!session || session.owner !== grant?.subject) {
      return errorResponse(
        404,
        INVALID_REQUEST,
        "Not Found: no session has this Mcp-Session-Id (it ended, never existed, or another " +
          "user's token opened it); send initialize again without one",
      );
    }
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && version !== session.conn.sessionVersion) {
      return errorResponse(
        400,
        INVALID_REQUEST,
        `Bad Request: MCP-Protocol-Version ${version} is not the version this session ` +
          `negotiated (${session.conn.sessionVersion})`,
      );
    }
    session.lastActive = Date.now();
    this.#sessions.delete(id);
    this.#sessions.set(id, session);
    return session;
  }

  #initialize(
    request: Request,
    decoded: Extract<Decoded, { kind: "request" }>,
    accept: Accepts,
    grant: Grant | undefined,
    chars: number,
  ): Promise<Response> | Response {
    const version = request.headers.get("mcp-protocol-version");
    if (version !== null && !SUPPORTED_VERSIONS.includes(version)) {
      return errorResponse(
        400,
        INVALID_REQUEST,
        `Bad Request: unsupported MCP-Protocol-Version ${version}; supported: ${
          SUPPORTED_VERSIONS.join(", ")
        }`,
        decoded.message.id,
      );
    }
    if (!this.#makeRoom()) {
      return errorResponse(
        503,
        INTERNAL_ERROR,
        "Service Unavailable: too many sessions are busy; end one with DELETE",
        decoded.message.id,
      );
    }
    const id = crypto.randomUUID();
    const { service, logger } = this.#options;
    const session = new HttpSession(id, service, logger, this.#admission, grant?.subject);
    this.#sessions.set(id, session);
    const exchange = session.exchangeFor(request, [decoded.message.id], accept);
    exchange.setHeader("mcp-session-id", id);
    session.receive(decoded, grant, chars, () => !exchange.done);
    return exchange.response.then((response) => {
      // A failed initialize opens nothing.
      if (session.conn.sessionVersion === undefined) {
        this.#sessions.delete(id);
        session.conn.close();
        response.headers.delete("mcp-session-id");
      }
      return response;
    });
  }

  /** Below the cap, or made so by ending the least recently used idle session. */
  #makeRoom(): boolean {
    if (this.sessions < (this.#options.maxSessions ?? MAX_SESSIONS)) return true;
    let oldest: HttpSession | undefined;
    for (const session of this.#sessions.values()) {
      if (session.idle) {
        oldest = session;
        break;
      }
    }
    if (!oldest) return false;
    this.#sessions.delete(oldest.id);
    this.#options.logger.log("info", `session ${oldest.id} ended to make room for a new one`);
    oldest.close().catch(() => {});
    return true;
  }

  #legacy(
    request: Request,
    session: HttpSession,
    decoded: Decoded,
    accept: Accepts,
    grant: Grant | undefined,
    chars: number,
  ): Promise<Response> | Response {
    const ids: RequestId[] = [];
    if (decoded.kind === "request") ids.push(decoded.message.id);
    if (decoded.kind === "batch") {
      if (session.conn.sessionVersion !== "2025-03-26") {
        return errorResponse(
          400,
          INVALID_REQUEST,
          `Invalid Request: JSON-RPC batches are only allowed when 2025-03-26 was negotiated ` +
            `(this session uses ${session.conn.sessionVersion}); send one message per POST`,
        );
      }
      for (const item of decoded.items) {
        const each = isPlainObject(item) ? item : {};
        const id = each.id;
        if (typeof each.method === "string" && (typeof id === "string" || typeof id === "number")) {
          ids.push(id);
        }
      }
    }
    if (ids.length === 0) {
      session.receive(decoded, grant, chars);
      if (decoded.kind === "notification" && decoded.message.method === "notifications/cancelled") {
        const id = decoded.message.params?.requestId;
        if (typeof id === "string" || typeof id === "number") session.cancelled(id);
      }
      return new Response(null, { status: 202 });
    }
    const taken = ids.find((id) => session.exchanges.has(requestKey(id)) || session.conn.busy(id));
    if (taken !== undefined) {
      return errorResponse(
        409,
        INVALID_REQUEST,
        `Invalid Request: id ${quotedJson(taken)} is already used by a request in flight`,
        taken,
      );
    }
    // Plain JSON unless something must go first: a stream per call would cost every call, and
    // Bun tells of a client that hangs up through request.signal either way. (Deno tells only
    // through a stream it was given: there a hang-up before the first byte goes unnoticed.)
    const exchange = session.exchangeFor(request, ids, accept);
    session.receive(decoded, grant, chars, () => !exchange.done);
    return exchange.response;
  }

  /** A 2026-07-28 request: its own connection, gone once it is answered. */
  #modern(
    request: Request,
    decoded: Extract<Decoded, { kind: "request" }>,
    accept: Accepts,
    grant: Grant | undefined,
    chars: number,
  ): Promise<Response> | Response {
    const { message } = decoded;
    try {
      checkModernHeaders(request.headers, message, this.#headerParamsOf);
    } catch (error) {
      const { code, message: text, data } = error as RpcError;
      return errorResponse(400, code, text, message.id, {}, data);
    }
    if (message.method === "subscriptions/listen" && !accept.sse) {
      return errorResponse(
        406,
        INVALID_REQUEST,
        "Not Acceptable: subscriptions/listen answers with a stream; accept text/event-stream",
        message.id,
      );
    }
    if (message.method === "initialize") {
      return errorResponse(
        404,
        METHOD_NOT_FOUND,
        "Method not found: initialize is not part of MCP 2026-07-28",
        message.id,
      );
    }
    if (this.#stateless.size >= (this.#options.maxStateless ?? MAX_STATELESS)) {
      return errorResponse(
        503,
        INTERNAL_ERROR,
        "Service Unavailable: too many requests in flight; try again shortly",
        message.id,
      );
    }
    const exchange = new Exchange(accept, () => conn.cancel(message.id, "stream closed"));
    const { session, release } = this.#statelessSessions.take(grant?.subject);
    const conn: TransportConnection = connect(this.#options.service, {
      send: (out) => {
        let json: string;
        try {
          json = JSON.stringify(out);
        } catch {
          return false;
        }
        this.#admission.sent(json.length);
        if (!Array.isArray(out) && !("method" in out) && out.id === message.id) {
          exchange.finish(json, modernStatus(out));
        } else exchange.push(json);
        return true;
      },
    }, { session });
    this.#stateless.add(conn);
    request.signal.addEventListener("abort", () => exchange.gone(), { once: true });
    if (message.method === "subscriptions/listen") exchange.stream();
    // Stateless requests take their turns by the address they come from.
    const from = `address:${clientAddress(request) ?? ""}`;
    this.#admission.hand(from, chars, decoded, conn, grant, { wanted: () => !exchange.done });
    conn.settled(MAX_TIMER_MS).then(() => {
      this.#stateless.delete(conn);
      conn.close();
      release();
    });
    return exchange.response;
  }

  /** The session a GET or DELETE names in Mcp-Session-Id, or the 405 (`missing`) without one. */
  #namedSession(request: Request, missing: string, grant?: Grant): HttpSession | Response {
    const id = request.headers.get("mcp-session-id");
    if (id === null) return errorResponse(405, INVALID_REQUEST, missing, null, ALLOW);
    return this.#session(id, request, grant);
  }

  #get(request: Request, grant: Grant | undefined): Response {
    const session = this.#namedSession(
      request,
      "Method Not Allowed: GET opens the stream of a session of MCP 2025-11-25 and earlier " +
        "(send Mcp-Session-Id); MCP 2026-07-28 clients use subscriptions/listen",
      grant,
    );
    if (session instanceof Response) return session;
    if (!accepts(request.headers.get("accept")).sse) {
      return errorResponse(406, INVALID_REQUEST, "Not Acceptable: GET needs text/event-stream");
    }
    if (session.stream && !session.stream.closed) {
      return errorResponse(409, INVALID_REQUEST, "Conflict: this session's stream is already open");
    }
    const stream = new SseStream(() => {});
    session.stream = stream;
    return new Response(stream.body, { headers: SSE_HEADERS });
  }

  async #delete(request: Request, grant: Grant | undefined): Promise<Response> {
    const session = this.#namedSession(
      request,
      "Method Not Allowed: DELETE ends a session of MCP 2025-11-25 and earlier " +
        "(send its Mcp-Session-Id)",
      grant,
    );
    if (session instanceof Response) return session;
    this.#sessions.delete(session.id);
    await session.close();
    return new Response(null, { status: 204 });
  }

  #endIdle(idleMs: number): void {
    const before = Date.now() - idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.idle && session.lastActive < before) {
        this.#sessions.delete(id);
        const minutes = idleMs / 60000;
        this.#options.logger.log("info", `session ${id} ended after ${minutes} idle minutes`);
        session.close().catch(() => {});
      }
    }
  }
}

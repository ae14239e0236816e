/**
 * Streamable HTTP: one endpoint for both eras. A 2026-07-28 request (its `_meta` names the
 * version) is answered statelessly by a connection made for it alone; anything else belongs to a
 * legacy session that `initialize` opened, named by Mcp-Session-Id, with a GET stream for what
 * concerns no request and DELETE to end it.
 */
import {
  classify,
  type Decoded,
  failure,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isPlainObject,
  type JsonRpcMessage,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  PARSE_ERROR,
  type RequestId,
  RpcError,
} from "./jsonrpc.ts";
import { describeLogData, type Logger, type LogLevel } from "./log.ts";
import { McpServer } from "./server.ts";
import type { McpService } from "./service.ts";
import { checkModernHeaders, headerParamsOf } from "./http_headers.ts";
import { type Accepts, accepts, Exchange, SSE_HEADERS } from "./http_exchange.ts";
import type { HttpGuard } from "./http_guard.ts";
import { SseStream } from "./sse.ts";
import { META_PROTOCOL_VERSION, SUPPORTED_VERSIONS } from "./versions.ts";

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
  maxSessions?: number;
}

const SESSION_IDLE_MS = 60 * 60 * 1000;
const MAX_SESSIONS = 1000;
/** The longest a timer can wait (about 24 days). */
const MAX_TIMER_MS = 2 ** 31 - 1;

const keyOf = (id: RequestId) => (typeof id === "string" ? `s${id}` : `n${id}`);

/** A reply that is only an HTTP status and a JSON-RPC error saying why. */
function errorResponse(
  status: number,
  code: number,
  message: string,
  id: RequestId | null = null,
  headers: Record<string, string> = {},
  data?: unknown,
): Response {
  return new Response(JSON.stringify(failure(id, code, message, data)), {
    status,
    headers: { ...headers, "content-type": "application/json" },
  });
}

/** HTTP statuses for 2026-07-28 errors, which clients use to tell the eras apart. */
function modernStatus(response: JsonRpcResponse): number {
  if (!("error" in response)) return 200;
  const code = response.error.code;
  if (code === METHOD_NOT_FOUND) return 404;
  if (code === -32603) return 500;
  return code <= -32600 && code >= -32700 || code <= -32020 && code >= -32022 ? 400 : 200;
}

function isResponse(message: JsonRpcMessage): message is JsonRpcResponse {
  return !("method" in message);
}

class LegacySession {
  readonly conn: McpServer;
  readonly exchanges = new Map<string, Exchange>();
  stream?: SseStream;
  lastActive = Date.now();

  constructor(readonly id: string, service: McpService, readonly logger: Logger) {
    this.conn = new McpServer({
      ...service.options,
      service,
      send: (message, related) => this.#send(message, related),
    });
  }

  get idle(): boolean {
    return this.exchanges.size === 0 && (!this.stream || this.stream.closed);
  }

  #send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId): boolean {
    let json: string;
    try {
      json = JSON.stringify(message);
    } catch {
      return false;
    }
    if (Array.isArray(message)) {
      const first = message.find((reply) => reply.id !== null);
      const exchange = first ? this.exchanges.get(keyOf(first.id!)) : undefined;
      for (const reply of message) if (reply.id !== null) this.exchanges.delete(keyOf(reply.id));
      exchange?.finish(json);
      return true;
    }
    if (isResponse(message)) {
      const exchange = message.id === null ? undefined : this.exchanges.get(keyOf(message.id));
      if (exchange) {
        this.exchanges.delete(keyOf(message.id!));
        exchange.finish(json);
      }
      return true;
    }
    const exchange = related === undefined ? undefined : this.exchanges.get(keyOf(related));
    if (exchange?.push(json)) return true;
    if (this.stream && !this.stream.closed) this.stream.send(json);
    else this.logger.log("debug", `session ${this.id}: no stream open for ${message.method}`);
    return true;
  }

  async close(): Promise<void> {
    await this.conn.shutdown(1000);
    for (const exchange of this.exchanges.values()) exchange.abandon();
    this.exchanges.clear();
    this.stream?.close();
  }
}

export class HttpTransport {
  readonly #options: HttpOptions;
  readonly #sessions = new Map<string, LegacySession>();
  /** Connections of 2026-07-28 requests in flight, to stop on shutdown. */
  readonly #stateless = new Set<McpServer>();
  readonly #path: string;
  readonly #headerParams = new Map<string, ReturnType<typeof headerParamsOf>>();
  readonly #sweep: ReturnType<typeof setInterval>;
  #closing = false;

  constructor(options: HttpOptions) {
    this.#options = options;
    this.#path = options.path ?? "/mcp";
    const idleMs = options.sessionIdleMs ?? SESSION_IDLE_MS;
    this.#sweep = setInterval(() => this.#endIdle(idleMs), Math.min(idleMs, 60_000));
    (this.#sweep as { unref?: () => void }).unref?.();
  }

  get sessions(): number {
    return this.#sessions.size;
  }

  /** The web-standard handler: every request of the HTTP server comes here. */
  handle = async (request: Request): Promise<Response> => {
    const url = new URL(request.url);
    if (url.pathname !== this.#path) {
      return new Response(`Not found: the MCP endpoint is ${this.#path}\n`, { status: 404 });
    }
    const refusal = this.#options.guard.check(request);
    if (refusal) {
      return errorResponse(refusal.status, INVALID_REQUEST, refusal.message, null, refusal.headers);
    }
    if (this.#closing) {
      return errorResponse(503, -32603, "The server is shutting down");
    }
    try {
      switch (request.method) {
        case "POST":
          return await this.#post(request);
        case "GET":
          return this.#get(request);
        case "DELETE":
          return await this.#delete(request);
        default:
          return errorResponse(
            405,
            INVALID_REQUEST,
            `Method not allowed: ${request.method}; the MCP endpoint takes POST (and GET and ` +
              "DELETE for sessions of MCP 2025-11-25 and earlier)",
            null,
            { allow: "POST, GET, DELETE" },
          );
      }
    } catch (error) {
      this.#options.logger.log("error", `HTTP ${request.method}: ${describeLogData(error)}`);
      return errorResponse(500, -32603, "Internal error; the server's stderr has the details");
    }
  };

  /** Logs what belongs to no request to every legacy session that asked for it. */
  log(level: LogLevel, logger: string, data: unknown): void {
    this.#options.logger.log(level, `${logger}: ${describeLogData(data)}`);
    for (const session of this.#sessions.values()) session.conn.log(level, logger, data, false);
  }

  /** Ends every session and request: subscriptions answer that they ended, streams close. */
  async close(): Promise<void> {
    this.#closing = true;
    clearInterval(this.#sweep);
    await Promise.all([
      ...[...this.#sessions.values()].map((session) => session.close()),
      ...[...this.#stateless].map((conn) => conn.shutdown(1000)),
    ]);
    this.#sessions.clear();
  }

  async #post(request: Request): Promise<Response> {
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
    const text = await this.#body(request);
    if (text instanceof Response) return text;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      return errorResponse(400, PARSE_ERROR, `Parse error: ${(error as Error).message}`);
    }
    const decoded = classify(value);
    const sessionId = request.headers.get("mcp-session-id");
    if (decoded.kind === "request" && isModern(decoded.message.params)) {
      return this.#modern(request, decoded, accept);
    }
    if (decoded.kind === "invalid") {
      return new Response(JSON.stringify(decoded.reply), {
        status: 400,
        headers: { "content-type": "application/json" },
      });
    }
    if (sessionId === null) {
      if (decoded.kind === "request" && decoded.message.method === "initialize") {
        return this.#initialize(request, decoded, accept);
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
    const session = this.#session(sessionId, request);
    if (session instanceof Response) return session;
    return this.#legacy(request, session, decoded, accept);
  }

  /** Reads the body, up to the limit. */
  async #body(request: Request): Promise<string | Response> {
    const max = this.#options.maxBodyBytes;
    const tooLarge = () =>
      errorResponse(413, INVALID_REQUEST, `Payload Too Large: bodies are limited to ${max} bytes`);
    const declared = Number(request.headers.get("content-length") ?? "NaN");
    if (declared > max) return tooLarge();
    if (!request.body) return "";
    const chunks: Uint8Array[] = [];
    let size = 0;
    const reader = request.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > max) {
        await reader.cancel().catch(() => {});
        return tooLarge();
      }
      chunks.push(value);
    }
    const bytes = new Uint8Array(size);
    let at = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, at);
      at += chunk.byteLength;
    }
    return new TextDecoder().decode(bytes);
  }

  /** The session a request names, checked against the version it says it speaks. */
  #session(id: string, request: Request): LegacySession | Response {
    const session = this.#sessions.get(id);
    if (!session) {
      return errorResponse(
        404,
        INVALID_REQUEST,
        "Not Found: no session has this Mcp-Session-Id (it ended or never existed); send " +
          "initialize again without one",
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
    return session;
  }

  #initialize(
    request: Request,
    decoded: Extract<Decoded, { kind: "request" }>,
    accept: Accepts,
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
    if (this.#sessions.size >= (this.#options.maxSessions ?? MAX_SESSIONS)) {
      return errorResponse(
        503,
        -32603,
        "Service Unavailable: too many open sessions; end one with DELETE",
        decoded.message.id,
      );
    }
    const id = crypto.randomUUID();
    const session = new LegacySession(id, this.#options.service, this.#options.logger);
    this.#sessions.set(id, session);
    const exchange = this.#legacyExchange(request, session, [decoded.message.id], accept);
    exchange.setHeader("mcp-session-id", id);
    session.conn.handleMessage(decoded);
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

  #legacy(
    request: Request,
    session: LegacySession,
    decoded: Decoded,
    accept: Accepts,
  ): Promise<Response> | Response {
    const ids: RequestId[] = [];
    if (decoded.kind === "request") ids.push(decoded.message.id);
    if (decoded.kind === "batch") {
      for (const item of decoded.items) {
        const each = classify(item);
        if (each.kind === "request") ids.push(each.message.id);
      }
    }
    if (ids.length === 0) {
      session.conn.handleMessage(decoded);
      return new Response(null, { status: 202 });
    }
    const taken = ids.find((id) => session.exchanges.has(keyOf(id)) || session.conn.busy(id));
    if (taken !== undefined) {
      return errorResponse(
        409,
        INVALID_REQUEST,
        `Invalid Request: id ${JSON.stringify(taken)} is already used by a request in flight`,
        taken,
      );
    }
    const exchange = this.#legacyExchange(request, session, ids, accept);
    session.conn.handleMessage(decoded);
    return exchange.response;
  }

  #legacyExchange(
    request: Request,
    session: LegacySession,
    ids: RequestId[],
    accept: Accepts,
  ): Exchange {
    const exchange = new Exchange(accept, {}, () => {
      for (const id of ids) {
        session.exchanges.delete(keyOf(id));
        session.conn.cancel(id, "the client closed the HTTP request");
      }
    });
    for (const id of ids) session.exchanges.set(keyOf(id), exchange);
    request.signal.addEventListener("abort", () => {
      if (!exchange.done) exchange.onGone();
    }, { once: true });
    return exchange;
  }

  /** A 2026-07-28 request: its own connection, gone once it is answered. */
  #modern(
    request: Request,
    decoded: Extract<Decoded, { kind: "request" }>,
    accept: Accepts,
  ): Promise<Response> | Response {
    const { message } = decoded;
    try {
      checkModernHeaders(request.headers, message, (tool) => this.#headerParamsOf(tool));
    } catch (error) {
      const { code, message: text, data } = error as RpcError;
      return errorResponse(400, code, text, message.id, {}, data);
    }
    const exchange = new Exchange(accept, {}, () => conn.cancel(message.id, "stream closed"));
    const conn: McpServer = new McpServer({
      ...this.#options.service.options,
      service: this.#options.service,
      send: (out) => {
        let json: string;
        try {
          json = JSON.stringify(out);
        } catch {
          return false;
        }
        if (!Array.isArray(out) && isResponse(out) && out.id === message.id) {
          exchange.finish(json, modernStatus(out));
        } else exchange.push(json);
        return true;
      },
    });
    this.#stateless.add(conn);
    request.signal.addEventListener("abort", () => {
      if (!exchange.done) exchange.onGone();
    }, { once: true });
    conn.handleMessage(decoded);
    conn.settled(MAX_TIMER_MS).then(() => {
      this.#stateless.delete(conn);
      conn.close();
    });
    return exchange.response;
  }

  #headerParamsOf(tool: string) {
    let found = this.#headerParams.get(tool);
    if (!found) {
      found = headerParamsOf(this.#options.service.catalog.inputSchema(tool));
      this.#headerParams.set(tool, found);
    }
    return found;
  }

  #get(request: Request): Response {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      return errorResponse(
        405,
        INVALID_REQUEST,
        "Method Not Allowed: GET opens the stream of a session of MCP 2025-11-25 and earlier " +
          "(send Mcp-Session-Id); MCP 2026-07-28 clients use subscriptions/listen",
        null,
        { allow: "POST, GET, DELETE" },
      );
    }
    const session = this.#session(id, request);
    if (session instanceof Response) return session;
    if (!accepts(request.headers.get("accept")).sse) {
      return errorResponse(406, INVALID_REQUEST, "Not Acceptable: GET needs text/event-stream");
    }
    if (session.stream && !session.stream.closed) {
      return errorResponse(
        409,
        INVALID_REQUEST,
        "Conflict: this session's stream is already open",
      );
    }
    const stream = new SseStream(() => {});
    session.stream = stream;
    return new Response(stream.body, { headers: SSE_HEADERS });
  }

  async #delete(request: Request): Promise<Response> {
    const id = request.headers.get("mcp-session-id");
    if (id === null) {
      return errorResponse(
        405,
        INVALID_REQUEST,
        "Method Not Allowed: DELETE ends a session of MCP 2025-11-25 and earlier " +
          "(send its Mcp-Session-Id)",
        null,
        { allow: "POST, GET, DELETE" },
      );
    }
    const session = this.#session(id, request);
    if (session instanceof Response) return session;
    this.#sessions.delete(id);
    await session.close();
    return new Response(null, { status: 204 });
  }

  #endIdle(idleMs: number): void {
    const before = Date.now() - idleMs;
    for (const [id, session] of this.#sessions) {
      if (session.idle && session.lastActive < before) {
        this.#sessions.delete(id);
        this.#options.logger.log(
          "info",
          `session ${id} ended after ${idleMs / 60000} idle minutes`,
        );
        session.close().catch(() => {});
      }
    }
  }
}

function isModern(params: unknown): boolean {
  return isPlainObject(params) && isPlainObject(params._meta) &&
    META_PROTOCOL_VERSION in params._meta;
}

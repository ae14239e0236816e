/**
 * The MCP server: dispatch, both protocol eras, concurrency, cancellation, progress and logging.
 * It reads decoded lines and hands every outgoing message to `send`; it knows no transport and
 * no particular tool.
 */
import {
  classify,
  decodeLine,
  failure,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  type Params,
  type RequestId,
  RpcError,
  UNSUPPORTED_PROTOCOL_VERSION,
} from "./jsonrpc.ts";
import { Call } from "./call.ts";
import { describeLogData, isLogLevel, type Logger, type LogLevel } from "./log.ts";
import type { Tool } from "./tool.ts";
import { ToolCatalog } from "./tool_calls.ts";
import {
  type Era,
  features,
  isModernVersion,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  negotiateLegacy,
  SUPPORTED_VERSIONS,
} from "./versions.ts";

export interface ServerInfo {
  name: string;
  title?: string;
  version: string;
}

export interface ServerOptions {
  info: ServerInfo;
  instructions?: string;
  tools: Tool[];
  /** Diagnostics; goes to stderr, never to the client's stdout. */
  logger: Logger;
  /**
   * Every outgoing message (or batch reply) in the order it should be written. Returns false,
   * sending nothing, when the message cannot be encoded as JSON.
   */
  send(message: JsonRpcMessage | JsonRpcResponse[]): boolean;
  /** Tools per `tools/list` page. */
  pageSize?: number;
}

/** How long clients may cache list and discovery results (modern era). */
const CACHE_TTL_MS = 300_000;

interface LegacySession {
  version: string;
  clientCapabilities: Params;
  initialized: boolean;
  /** Threshold set by `logging/setLevel`; no log notifications until the client sets one. */
  logLevel: LogLevel | null;
}

type Handler = (params: Params, call: Call) => Promise<Record<string, unknown>>;

const isObject = (v: unknown): v is Params =>
  typeof v === "object" && v !== null && !Array.isArray(v);

const keyOf = (id: RequestId) => (typeof id === "string" ? `s${id}` : `n${id}`);

export class McpServer {
  readonly #options: ServerOptions;
  readonly #catalog: ToolCatalog;
  readonly #calls = new Map<string, Call>();
  /** Requests and batches whose replies are not sent yet, and who waits for that to be none. */
  #unanswered = 0;
  #idleWaiters: (() => void)[] = [];
  #session: LegacySession | null = null;
  readonly #sessionLogLevel = () => this.#session?.logLevel ?? null;
  /** Shared by every modern result that has no `_meta` of its own; never modified. */
  readonly #serverMeta: Record<string, unknown>;
  #closing = false;

  readonly #common: Record<string, Handler> = {
    "ping": () => Promise.resolve({}),
    "tools/list": (params, call) => this.#catalog.list(params, call),
    "tools/call": (params, call) => this.#catalog.call(params, call),
  };
  readonly #legacyOnly: Record<string, Handler> = {
    "initialize": (params) => this.#initialize(params),
    "logging/setLevel": (params) => this.#setLevel(params),
  };
  readonly #modernOnly: Record<string, Handler> = {
    "server/discover": () => Promise.resolve(this.#discover()),
  };

  constructor(options: ServerOptions) {
    this.#options = options;
    this.#serverMeta = Object.freeze({ [META_SERVER_INFO]: options.info });
    this.#catalog = new ToolCatalog(options.tools, options.logger, {
      pageSize: options.pageSize ?? 100,
      cacheTtlMs: CACHE_TTL_MS,
    });
  }

  get inFlight(): number {
    return this.#calls.size;
  }

  /** Handles one line of input. Never throws; every problem becomes a reply or a stderr line. */
  handleLine(line: string): void {
    if (line.trim() === "") return;
    const decoded = decodeLine(line);
    switch (decoded.kind) {
      case "invalid":
        this.#options.send(decoded.reply);
        return;
      case "batch":
        this.#handleBatch(decoded.items);
        return;
      case "notification":
        this.#handleNotification(decoded.message);
        return;
      case "response":
        this.#options.logger.log(
          "debug",
          `ignored a response (id ${
            JSON.stringify(decoded.message.id)
          }): no request of ours is waiting`,
        );
        return;
      case "request":
        this.#answerLater(this.#handleRequest(decoded.message), (reply) => {
          if (reply) this.#reply(reply);
        });
    }
  }

  /** Aborts all work in flight (its results are still sent) and waits for it, at most `ms`. */
  async shutdown(ms: number): Promise<void> {
    this.#closing = true;
    for (const call of this.#calls.values()) {
      call.abort("shutdown");
    }
    await this.settled(ms);
  }

  /** Resolves once every request has been answered (or dropped), or after `ms`. */
  settled(ms: number): Promise<void> {
    if (this.#unanswered === 0) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(resolve, ms);
      this.#idleWaiters.push(() => {
        clearTimeout(timer);
        resolve();
      });
    });
  }

  /** Counts work until its reply is sent, without a promise per request to keep track of. */
  #answerLater<T>(work: Promise<T>, reply: (value: T) => void): void {
    this.#unanswered++;
    work.then(reply).finally(() => {
      if (--this.#unanswered === 0) { for (const wake of this.#idleWaiters.splice(0)) wake(); }
    });
  }

  #handleBatch(items: unknown[]): void {
    const version = this.#session?.version;
    if (version === undefined || !features.batches(version)) {
      this.#options.send(failure(
        null,
        INVALID_REQUEST,
        `Invalid Request: JSON-RPC batches are only allowed when 2025-03-26 was negotiated (${
          version ? `this session uses ${version}` : "no session was initialized"
        }); send one message per line`,
      ));
      return;
    }
    if (items.length === 0) {
      this.#options.send(failure(null, INVALID_REQUEST, "Invalid Request: the batch is empty"));
      return;
    }
    const replies = items.map((item): Promise<JsonRpcResponse | null> => {
      const decoded = classify(item);
      switch (decoded.kind) {
        case "invalid":
          return Promise.resolve(decoded.reply);
        case "notification":
          this.#handleNotification(decoded.message);
          return Promise.resolve(null);
        case "response":
          return Promise.resolve(null);
        case "batch":
          return Promise.resolve(
            failure(null, INVALID_REQUEST, "Invalid Request: batches cannot be nested"),
          );
        case "request":
          if (decoded.message.method === "initialize") {
            return Promise.resolve(failure(
              decoded.message.id,
              INVALID_REQUEST,
              "Invalid Request: initialize must not be part of a batch",
            ));
          }
          return this.#handleRequest(decoded.message);
      }
    });
    this.#answerLater(Promise.all(replies), (all) => {
      const sent = all.filter((r): r is JsonRpcResponse => r !== null);
      if (sent.length > 0) this.#reply(sent);
    });
  }

  /** Sends a reply; one that JSON cannot carry (a BigInt, a cycle) becomes -32603, not a crash. */
  #reply(reply: JsonRpcResponse | JsonRpcResponse[]): void {
    if (this.#options.send(reply)) return;
    this.#options.logger.log(
      "error",
      `a reply could not be encoded as JSON: ${
        JSON.stringify(
          Array.isArray(reply) ? reply.map((r) => r.id) : reply.id,
        )
      }`,
    );
    const fallback = (r: JsonRpcResponse) =>
      failure(r.id, INTERNAL_ERROR, "Internal error: the result could not be encoded as JSON");
    this.#options.send(Array.isArray(reply) ? reply.map(fallback) : fallback(reply));
  }

  #handleNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    switch (message.method) {
      case "notifications/initialized":
        if (this.#session) this.#session.initialized = true;
        return;
      case "notifications/cancelled": {
        const id = params.requestId;
        if (typeof id !== "string" && typeof id !== "number") return;
        const call = this.#calls.get(keyOf(id));
        if (!call || call.method === "initialize") return;
        call.abort("cancelled");
        this.#options.logger.log(
          "info",
          `request ${JSON.stringify(id)} (${call.method}) cancelled by the client${
            typeof params.reason === "string" ? `: ${params.reason}` : ""
          }`,
        );
        return;
      }
      default:
        this.#options.logger.log("debug", `ignored notification ${message.method}`);
    }
  }

  async #handleRequest(message: JsonRpcRequest): Promise<JsonRpcResponse | null> {
    const { id, method } = message;
    const key = keyOf(id);
    if (this.#calls.has(key)) {
      return failure(
        id,
        INVALID_REQUEST,
        `Invalid Request: id ${JSON.stringify(id)} is already used by a request in flight`,
      );
    }
    if (this.#closing) {
      return failure(id, INTERNAL_ERROR, "The server is shutting down and takes no new requests");
    }
    let call: Call | undefined;
    try {
      const params = message.params ?? {};
      const handler = this.#handlerFor(method);
      call = this.#open(message, params);
      this.#calls.set(key, call);
      const result = await handler(params, call);
      if (call.reason === "cancelled") return null;
      return { jsonrpc: "2.0", id, result: this.#decorate(result, call.era) };
    } catch (error) {
      if (call?.reason === "cancelled") return null;
      if (error instanceof RpcError) return failure(id, error.code, error.message, error.data);
      this.#options.logger.log(
        "error",
        `internal error in ${method} (id ${JSON.stringify(id)}): ${describeLogData(error)}`,
      );
      return failure(
        id,
        INTERNAL_ERROR,
        `Internal error while handling ${method}; the server's stderr has the details`,
      );
    } finally {
      if (call) {
        call.finished = true;
        this.#calls.delete(key);
      }
    }
  }

  #handlerFor(method: string): Handler {
    const handler = this.#common[method] ?? this.#legacyOnly[method] ?? this.#modernOnly[method];
    if (!handler) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${method}`);
    return handler;
  }

  /** Works out the era, version and client capabilities of one request. */
  #open(message: JsonRpcRequest, params: Params): Call {
    const meta = isObject(params._meta) ? params._meta : {};
    const progressToken = typeof meta.progressToken === "string" ||
        typeof meta.progressToken === "number"
      ? meta.progressToken
      : undefined;
    if (message.method !== "initialize" && META_PROTOCOL_VERSION in meta) {
      const version = meta[META_PROTOCOL_VERSION];
      if (typeof version !== "string") {
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params: _meta["${META_PROTOCOL_VERSION}"] must be a string`,
        );
      }
      if (!isModernVersion(version)) {
        throw new RpcError(
          UNSUPPORTED_PROTOCOL_VERSION,
          SUPPORTED_VERSIONS.includes(version)
            ? `Unsupported protocol version ${version} for a stateless request: ${version} starts with initialize; per-request _meta needs 2026-07-28`
            : `Unsupported protocol version ${version}; supported: ${
              SUPPORTED_VERSIONS.join(", ")
            }`,
          { supported: SUPPORTED_VERSIONS, requested: version },
        );
      }
      const capabilities = meta[META_CLIENT_CAPABILITIES];
      if (!isObject(capabilities)) {
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params: _meta["${META_CLIENT_CAPABILITIES}"] is required (an object; {} when the client has none)`,
        );
      }
      const level = meta[META_LOG_LEVEL];
      if (level !== undefined && !isLogLevel(level)) {
        throw new RpcError(
          INVALID_PARAMS,
          `Invalid params: _meta["${META_LOG_LEVEL}"] must be one of debug, info, notice, warning, error, critical, alert, emergency`,
        );
      }
      if (this.#legacyOnly[message.method]) {
        throw new RpcError(
          METHOD_NOT_FOUND,
          `Method not found: ${message.method} is not part of MCP ${version}` +
            (message.method === "logging/setLevel"
              ? `; set _meta["${META_LOG_LEVEL}"] on each request instead`
              : ""),
        );
      }
      return new Call({
        id: message.id,
        method: message.method,
        progressToken,
        era: "modern",
        version,
        clientCapabilities: capabilities,
        logLevel: level ?? null,
      }, this.#options);
    }
    if (this.#modernOnly[message.method]) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${message.method} needs _meta["${META_PROTOCOL_VERSION}"] and _meta["${META_CLIENT_CAPABILITIES}"] (MCP 2026-07-28)`,
      );
    }
    const session = this.#session;
    if (!session && message.method !== "initialize" && message.method !== "ping") {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${message.method} carries no protocol version. Either send initialize first (MCP 2025-11-25 and earlier) or put "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}" in params._meta (MCP 2026-07-28)`,
      );
    }
    return new Call({
      id: message.id,
      method: message.method,
      progressToken,
      era: "legacy",
      version: session?.version ?? negotiateLegacy(params.protocolVersion),
      clientCapabilities: session?.clientCapabilities ?? {},
      logLevel: this.#sessionLogLevel,
    }, this.#options);
  }

  /** Modern results name their type and the server. Handlers return fresh objects: edit in place. */
  #decorate(result: Record<string, unknown>, era: Era): Record<string, unknown> {
    if (era === "legacy") return result;
    result.resultType ??= "complete";
    result._meta = isObject(result._meta)
      ? { ...result._meta, [META_SERVER_INFO]: this.#options.info }
      : this.#serverMeta;
    return result;
  }

  #initialize(params: Params): Promise<Record<string, unknown>> {
    if (typeof params.protocolVersion !== "string") {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: initialize needs params.protocolVersion (a string)",
      );
    }
    const version = negotiateLegacy(params.protocolVersion);
    this.#session = {
      version,
      clientCapabilities: isObject(params.capabilities) ? params.capabilities : {},
      initialized: false,
      logLevel: null,
    };
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: { tools: { listChanged: false }, logging: {} },
      serverInfo: this.#options.info,
    };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return Promise.resolve(result);
  }

  #setLevel(params: Params): Promise<Record<string, unknown>> {
    if (!isLogLevel(params.level)) {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: level must be one of debug, info, notice, warning, error, critical, alert, emergency",
      );
    }
    this.#session!.logLevel = params.level;
    return Promise.resolve({});
  }

  #discover(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: { tools: {}, logging: {} },
      ttlMs: CACHE_TTL_MS,
      cacheScope: "public",
    };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return result;
  }
}

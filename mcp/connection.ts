/**
 * The MCP server: dispatch, both protocol eras, concurrency, cancellation and flow control.
 * It reads decoded lines and hands every outgoing message to `send`; it knows no transport and
 * no particular tool.
 */
import { fileURLToPath } from "node:url";
import { Call, type CallEnvironment } from "./call.ts";
import { type ChangeListener, ChangeWatches } from "./change_watches.ts";
import { type LegacySession, LOG_LEVEL_LIST, modernScope, type Scope } from "./eras.ts";
import {
  classify,
  type Decoded,
  decodeLine,
  failure,
  INTERNAL_ERROR,
  INVALID_PARAMS,
  INVALID_REQUEST,
  isPlainObject,
  type JsonRpcMessage,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  METHOD_NOT_FOUND,
  type Params,
  type RequestId,
  requestKey,
  RpcError,
} from "./jsonrpc.ts";
import { atLeast, describeLogData, isLogLevel, type Logger, type LogLevel } from "./log.ts";
import { type Connection, type Handler, McpService, type ServiceOptions } from "./service.ts";
import { resourceNotFound } from "./handler_errors.ts";
import {
  type Era,
  features,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  META_SUBSCRIPTION_ID,
  MODERN_VERSIONS,
  negotiateLegacy,
} from "./versions.ts";

export type { ServerInfo } from "./service.ts";

export interface ServerOptions extends ServiceOptions {
  /**
   * Every outgoing message (or batch reply) in the order it should be written. Returns false,
   * sending nothing, when the message cannot be encoded as JSON. `related` is the id of the
   * client's request a message belongs to (a reply, its progress, a question asked for it):
   * HTTP sends such messages on that request's stream.
   */
  send(message: JsonRpcMessage | JsonRpcResponse[], related?: RequestId): boolean;
  /** Shared with other connections; made from these options when absent. */
  service?: McpService;
}

/** How long the client gets to answer a request of ours (roots/list). */
const CLIENT_REQUEST_TIMEOUT_MS = 10_000;

/** Resources one subscription may name, and a legacy session may subscribe to: each is a watch. */
const MAX_SUBSCRIBED_URIS = 100;

export class McpServer implements Connection {
  readonly #options: ServerOptions;
  readonly #service: McpService;
  readonly #calls = new Map<string, Call>();
  /** Requests and batches whose replies are not sent yet, and who waits for that to be none. */
  #unanswered = 0;
  #idleWaiters: (() => void)[] = [];
  /** Requests held back while output is backed up; notifications are never held. */
  #held: Decoded[] | null = null;
  #session: LegacySession | null = null;
  readonly #sessionLogLevel = () => this.#session?.logLevel ?? null;
  /** Shared by every modern result that has no `_meta` of its own; never modified. */
  readonly #serverMeta: Record<string, unknown>;
  #closing = false;
  /** Requests we sent to the client, by id, waiting for its response. */
  readonly #asked = new Map<string, (response: JsonRpcResponse) => void>();
  #nextAskId = 1;
  /** The legacy client's roots, fetched when it offers them and refetched when they change. */
  #clientRoots: Promise<string[]> | null = null;
  readonly #environment: CallEnvironment;
  /** Made when someone first wants to hear of changes. */
  #watches?: ChangeWatches;
  /** What the legacy session subscribed to. */
  readonly #legacyUris = new Set<string>();
  /** The legacy session as a receiver of change notifications. */
  readonly #legacyListener: ChangeListener = {
    deliver: (method, params) => this.#options.send({ jsonrpc: "2.0", method, params }),
  };

  constructor(options: ServerOptions) {
    this.#options = options;
    this.#service = options.service ?? new McpService(options);
    this.#serverMeta = Object.freeze({ [META_SERVER_INFO]: options.info });
    this.#environment = {
      logger: options.logger,
      send: options.send,
      roots: (scope, related) => this.#roots(scope, related),
      ask: (method, params, timeoutMs, signal, related) =>
        this.#ask(method, params, timeoutMs, signal, related),
    };
  }

  get inFlight(): number {
    return this.#calls.size;
  }

  /**
   * Logs something that belongs to no request (a timer firing): to stderr, and to a legacy
   * client that set a level it passes. 2026-07-28 logging is per request only, so those clients
   * see it only where a tool result carries it.
   */
  log(level: LogLevel, logger: string, data: unknown, toStderr = true): void {
    if (toStderr) this.#options.logger.log(level, `${logger}: ${describeLogData(data)}`);
    const min = this.#session?.logLevel;
    if (min && atLeast(level, min)) {
      this.#options.send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level, logger, data },
      });
    }
  }

  /** Requests read but held back by hold(). */
  get held(): number {
    return this.#held?.length ?? 0;
  }

  /** Handles one line of input. Never throws; every problem becomes a reply or a stderr line. */
  handleLine(line: string): void {
    if (line.trim() === "") return;
    this.handleMessage(decodeLine(line));
  }

  /** Handles one message already decoded (an HTTP body). */
  handleMessage(decoded: Decoded): void {
    if (this.#held && (decoded.kind === "request" || decoded.kind === "batch")) {
      this.#held.push(decoded);
      return;
    }
    this.#dispatch(decoded);
  }

  /**
   * Holds requests back (in order) until release(), while notifications such as cancellations
   * still take effect: the transport calls this while replies wait for a slow reader.
   */
  hold(): void {
    this.#held ??= [];
  }

  release(): void {
    const held = this.#held ?? [];
    this.#held = null;
    for (const decoded of held) this.#dispatch(decoded);
  }

  /**
   * Stops taking work: held requests are refused, work in flight is aborted (its results are
   * still sent). Resolves when everything is answered, or after `ms`.
   */
  async shutdown(ms: number): Promise<void> {
    this.#closing = true;
    this.release();
    for (const call of this.#calls.values()) call.abort("shutdown");
    await this.settled(ms);
    this.close();
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

  #dispatch(decoded: Decoded): void {
    switch (decoded.kind) {
      case "invalid":
        this.#options.send(decoded.reply);
        return;
      case "ignored":
        this.#options.logger.log("warning", `ignored a malformed notification: ${decoded.why}`);
        return;
      case "batch":
        this.#handleBatch(decoded.items);
        return;
      case "notification":
        this.#handleNotification(decoded.message);
        return;
      case "response": {
        const waiting = this.#asked.get(String(decoded.message.id));
        if (waiting) {
          this.#asked.delete(String(decoded.message.id));
          waiting(decoded.message);
        } else {
          this.#options.logger.log(
            "debug",
            `ignored a response (id ${
              JSON.stringify(decoded.message.id)
            }): no request of ours is waiting`,
          );
        }
        return;
      }
      case "request":
        this.#answerLater(this.#handleRequest(decoded.message), (reply) => {
          if (reply) this.#reply(reply);
        });
    }
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
        case "ignored":
        case "response":
        case "batch":
          return Promise.resolve(
            decoded.kind === "batch"
              ? failure(null, INVALID_REQUEST, "Invalid Request: batches cannot be nested")
              : null,
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
    const related = Array.isArray(reply) ? undefined : reply.id ?? undefined;
    if (this.#options.send(reply, related)) return;
    const encodable = (r: JsonRpcResponse) => {
      try {
        JSON.stringify(r);
        return r;
      } catch {
        this.#options.logger.log(
          "error",
          `the reply to ${JSON.stringify(r.id)} could not be encoded as JSON`,
        );
        return failure(
          r.id,
          INTERNAL_ERROR,
          "Internal error: the result could not be encoded as JSON",
        );
      }
    };
    this.#options.send(Array.isArray(reply) ? reply.map(encodable) : encodable(reply), related);
  }

  #handleNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === "notifications/cancelled") {
      const id = params.requestId;
      if (typeof id !== "string" && typeof id !== "number") return;
      this.cancel(id, typeof params.reason === "string" ? params.reason : undefined);
      return;
    }
    if (message.method === "notifications/initialized" && this.#session) {
      this.#hearListChanges(this.#service.capabilities(this.#session.version));
    }
    if (message.method === "notifications/roots/list_changed") {
      this.#clientRoots = null; // fetched again when a tool next asks
    }
    this.#options.logger.log("debug", `notification ${message.method}`);
  }

  /** Cancels a request in flight: it gets no reply. Unknown or finished ids are ignored. */
  cancel(id: RequestId, reason?: string): void {
    const call = this.#calls.get(requestKey(id));
    // initialize cannot be cancelled.
    if (!call || call.method === "initialize") return;
    call.abort("cancelled");
    // The client will get no reply, so to it the id is free again at once, even while the
    // tool is still cleaning up.
    this.#calls.delete(requestKey(id));
    this.#options.logger.log(
      "info",
      `request ${JSON.stringify(id)} (${call.method}) cancelled by the client${
        reason ? `: ${reason}` : ""
      }`,
    );
  }

  /** Whether a request with this id is in flight. */
  busy(id: RequestId): boolean {
    return this.#calls.has(requestKey(id));
  }

  /** The protocol version `initialize` settled, if it has run. */
  get sessionVersion(): string | undefined {
    return this.#session?.version;
  }

  async #handleRequest(message: JsonRpcRequest): Promise<JsonRpcResponse | null> {
    const { id, method } = message;
    const key = requestKey(id);
    if (this.#calls.has(key)) {
      // A client bug; answering under that id is still clearer than silence.
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
      const meta = isPlainObject(params._meta) ? params._meta : {};
      const scope = this.#scope(params, meta);
      const run = this.#methodFor(method, scope);
      const token = meta.progressToken;
      call = new Call(
        id,
        method,
        scope,
        typeof token === "string" || typeof token === "number" ? token : undefined,
        this.#environment,
      );
      this.#calls.set(key, call);
      const result = await run(params, call, this);
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
        if (this.#calls.get(key) === call) this.#calls.delete(key);
      }
    }
  }

  /** A request's era and declarations; modern `_meta` is checked before anything else. */
  #scope(params: Params, meta: Params): Scope {
    const modern = modernScope(meta);
    if (modern) return modern;
    const session = this.#session;
    return {
      era: "legacy",
      version: session?.version ?? negotiateLegacy(params.protocolVersion),
      clientCapabilities: session?.clientCapabilities ?? {},
      logLevel: this.#sessionLogLevel,
    };
  }

  #methodFor(name: string, scope: Scope): Handler {
    const method = this.#service.methods.get(name);
    if (!method) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${name}`);
    if (!method.eras.includes(scope.era)) {
      if (scope.era === "modern") {
        throw new RpcError(
          METHOD_NOT_FOUND,
          `Method not found: ${name} is not part of MCP ${scope.version}` +
            (name === "logging/setLevel"
              ? `; set _meta["${META_LOG_LEVEL}"] on each request instead`
              : ""),
        );
      }
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${name} needs _meta["${META_PROTOCOL_VERSION}"] and _meta["${META_CLIENT_CAPABILITIES}"] (MCP ${
          MODERN_VERSIONS.join(", ")
        })`,
      );
    }
    if (scope.era === "legacy" && !this.#session && name !== "initialize" && name !== "ping") {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${name} carries no protocol version. Either send initialize first (MCP 2025-11-25 and earlier) or put "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}" in params._meta (MCP ${
          MODERN_VERSIONS.join(", ")
        })`,
      );
    }
    return method.run;
  }

  /** Modern results name their type and the server. Handlers return fresh objects: edit in place. */
  #decorate(result: Record<string, unknown>, era: Era): Record<string, unknown> {
    if (era === "legacy") return result;
    result.resultType ??= "complete";
    result._meta = isPlainObject(result._meta)
      ? { ...result._meta, [META_SERVER_INFO]: this.#options.info }
      : this.#serverMeta;
    return result;
  }

  initialize(params: Params): Record<string, unknown> {
    if (typeof params.protocolVersion !== "string") {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: initialize needs params.protocolVersion (a string)",
      );
    }
    const version = negotiateLegacy(params.protocolVersion);
    this.#session = {
      version,
      clientCapabilities: isPlainObject(params.capabilities) ? params.capabilities : {},
      logLevel: null,
    };
    this.#clientRoots = null;
    // A session that starts again hears nothing until it says it is initialized.
    this.#watches?.removeListener(this.#legacyListener);
    this.#legacyUris.clear();
    const result: Record<string, unknown> = {
      protocolVersion: version,
      capabilities: this.#service.capabilities(version),
      serverInfo: this.#options.info,
    };
    if (this.#options.instructions) result.instructions = this.#options.instructions;
    return result;
  }

  /**
   * A legacy session hears of every list change its capabilities announce, from when it says
   * it is initialized: watching may ask the client for its roots, which must not come earlier.
   */
  #hearListChanges(capabilities: Record<string, unknown>): void {
    const watches = this.#changeWatches();
    for (const kind of ["tools", "prompts", "resources"] as const) {
      const announced = capabilities[kind] as { listChanged?: boolean } | undefined;
      if (announced?.listChanged) watches.addList(this.#legacyListener, kind);
    }
  }

  #changeWatches(): ChangeWatches {
    this.#watches ??= new ChangeWatches(this.#service, {
      roots: () => this.#roots(this.#scope({}, {})),
      log: (level, data) => this.#options.logger.log(level, `watch: ${describeLogData(data)}`),
    }, this.#options.logger);
    return this.#watches;
  }

  subscribe(params: Params, call: Call): Record<string, unknown> {
    const uri = this.#subscriptionUri(params, call);
    if (!this.#legacyUris.has(uri) && this.#legacyUris.size >= MAX_SUBSCRIBED_URIS) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: a session may subscribe to at most ${MAX_SUBSCRIBED_URIS} resources; unsubscribe from some first`,
      );
    }
    if (!this.#changeWatches().addResource(this.#legacyListener, uri)) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${uri} cannot be subscribed to: it does not tell when it changes`,
      );
    }
    this.#legacyUris.add(uri);
    return {};
  }

  unsubscribe(params: Params, call: Call): Record<string, unknown> {
    const uri = this.#subscriptionUri(params, call);
    this.#watches?.removeResource(this.#legacyListener, uri);
    this.#legacyUris.delete(uri);
    return {};
  }

  #subscriptionUri(params: Params, call: Call): string {
    const uri = params.uri;
    if (typeof uri !== "string" || uri === "") {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: ${call.method} needs params.uri (a non-empty string)`,
      );
    }
    if (this.#service.watchFor(uri) === undefined) throw resourceNotFound(uri, call.era);
    return uri;
  }

  /**
   * subscriptions/listen: acknowledges what it will tell, then tells it, tagged with the
   * request's id, until the client cancels (no reply then) or the server shuts down (a reply
   * that says the stream ended on purpose).
   */
  async listen(params: Params, call: Call): Promise<Record<string, unknown>> {
    const asked = params.notifications;
    if (!isPlainObject(asked)) {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: subscriptions/listen needs params.notifications (an object naming what to hear)",
      );
    }
    const uris = asked.resourceSubscriptions;
    if (uris !== undefined && !(Array.isArray(uris) && uris.every((u) => typeof u === "string"))) {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: notifications.resourceSubscriptions must be an array of URIs",
      );
    }
    if (uris && new Set(uris).size > MAX_SUBSCRIBED_URIS) {
      throw new RpcError(
        INVALID_PARAMS,
        `Invalid params: one subscription may name at most ${MAX_SUBSCRIBED_URIS} resources`,
      );
    }
    const tag = { [META_SUBSCRIPTION_ID]: call.id };
    const listener: ChangeListener = {
      deliver: (method, params) =>
        this.#options.send({ jsonrpc: "2.0", method, params: { ...params, _meta: tag } }, call.id),
    };
    const watches = this.#changeWatches();
    const granted: Record<string, unknown> = {};
    const flags = {
      toolsListChanged: "tools",
      promptsListChanged: "prompts",
      resourcesListChanged: "resources",
    } as const;
    const lists = Object.entries(flags).filter(([flag, kind]) =>
      asked[flag] === true && watches.canWatchList(kind)
    );
    for (const [flag] of lists) granted[flag] = true;
    const resources = [...new Set(uris ?? [])].filter((uri) => this.#service.watchFor(uri));
    if (uris !== undefined) granted.resourceSubscriptions = resources;
    // The acknowledgment goes first: nothing is watched until it is on its way.
    this.#options.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: granted },
    }, call.id);
    for (const [, kind] of lists) watches.addList(listener, kind);
    for (const uri of resources) watches.addResource(listener, uri);
    try {
      await new Promise<void>((resolve) => {
        if (call.signal.aborted) resolve();
        call.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } finally {
      watches.removeListener(listener);
    }
    return { _meta: tag };
  }

  setLevel(params: Params): Record<string, unknown> {
    if (!isLogLevel(params.level)) {
      throw new RpcError(INVALID_PARAMS, `Invalid params: level must be one of ${LOG_LEVEL_LIST}`);
    }
    this.#session!.logLevel = params.level;
    return {};
  }

  /**
   * Sends a request to the client (legacy era only) and waits for its result. If `signal` aborts
   * or the time runs out first, the client is told to drop the request (notifications/cancelled).
   */
  #ask(
    method: string,
    params: Params,
    timeoutMs = this.#options.timeouts?.clientRequestMs ?? CLIENT_REQUEST_TIMEOUT_MS,
    signal?: AbortSignal,
    related?: RequestId,
  ): Promise<Record<string, unknown>> {
    const id = `toolhost-${this.#nextAskId++}`;
    return new Promise((resolve, reject) => {
      const settle = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", onAbort);
        this.#asked.delete(id);
      };
      // Whatever ends our wait, the client is told to drop the request too.
      const withdraw = (reason: string, error: Error) => {
        settle();
        this.#options.send({
          jsonrpc: "2.0",
          method: "notifications/cancelled",
          params: { requestId: id, reason },
        }, related);
        reject(error);
      };
      const onAbort = () =>
        withdraw(
          "the tool call that asked was stopped",
          new Error(`${method} was abandoned: the call was stopped`),
        );
      const timer = setTimeout(
        () =>
          withdraw(
            `no answer within ${timeoutMs} ms`,
            new Error(`the client did not answer ${method} within ${timeoutMs} ms`),
          ),
        timeoutMs,
      );
      signal?.addEventListener("abort", onAbort, { once: true });
      this.#asked.set(id, (response) => {
        settle();
        if ("error" in response) reject(new Error(`${method} failed: ${response.error.message}`));
        else resolve(response.result);
      });
      if (!this.#options.send({ jsonrpc: "2.0", id, method, params }, related)) {
        settle();
        reject(new Error(`${method} could not be sent: no stream to the client is open`));
      }
    });
  }

  #roots(scope: Scope, related?: RequestId): Promise<string[]> {
    const { fixed, fallback } = this.#options.roots;
    if (fixed.length > 0) return Promise.resolve(fixed);
    if (scope.era === "legacy" && this.#session?.clientCapabilities.roots) {
      this.#clientRoots ??= this.#ask("roots/list", {}, undefined, undefined, related).then(
        (result) => rootPaths(result, this.#options.logger),
        (error) => {
          // Until the client says its roots changed, do not make every call wait again.
          this.#options.logger.log(
            "warning",
            `could not get the client's roots (${error.message}); using ${
              fallback.join(", ")
            } until they change`,
          );
          return [];
        },
      );
      return this.#clientRoots.then((roots) => (roots.length > 0 ? roots : fallback));
    }
    return Promise.resolve(fallback);
  }

  /** Stops this connection's watches (the connection itself ends with its transport). */
  close(): void {
    this.#watches?.close();
  }
}

/** The local directories in a roots/list result; other kinds of URI are skipped with a warning. */
function rootPaths(result: Record<string, unknown>, logger: Logger): string[] {
  const roots = Array.isArray(result.roots) ? result.roots : [];
  const paths: string[] = [];
  for (const root of roots) {
    const uri = isPlainObject(root) ? root.uri : undefined;
    try {
      if (typeof uri === "string" && uri.startsWith("file:")) {
        paths.push(fileURLToPath(uri));
        continue;
      }
    } catch {
      // not a usable file URI: reported below
    }
    logger.log("warning", `ignored a root that is not a local directory: ${JSON.stringify(root)}`);
  }
  return paths;
}

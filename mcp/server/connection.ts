/**
 * One client's connection: dispatch, both protocol eras, concurrency, cancellation and flow
 * control. It takes messages its transport decoded and hands every outgoing message to `send`;
 * it knows no transport (transport.ts is the seam; connect.ts makes one) and no particular tool.
 * What every connection shares is the McpService
 * (service.ts). Its parts: the legacy session's terms (handshake.ts), what the client asked to
 * hear of changes (subscriptions.ts), our requests to the client (requests_to_client.ts), the
 * roots its tools work in (roots.ts), how replies go out (replies.ts), batches (batch.ts), and
 * which era a request is (eras.ts).
 */
import { bounded, quoted, quotedJson } from "../../config/quote.ts";
import { batchReplies } from "../wire/batch.ts";
import { Call, type CallEnvironment } from "../tool/call.ts";
import { SessionMemory } from "../tool/session_memory.ts";
import { modernScope, type Scope } from "../wire/eras.ts";
import { expired, FORBIDDEN, type Grant, missingScope, refusalText } from "../wire/grant.ts";
import { Handshake } from "./handshake.ts";
import {
  type Decoded,
  failure,
  INTERNAL_ERROR,
  INVALID_REQUEST,
  isPlainObject,
  type JsonRpcNotification,
  type JsonRpcRequest,
  type JsonRpcResponse,
  type Params,
  type RequestId,
  RpcError,
} from "../wire/jsonrpc.ts";
import { atLeast, describeLogData, type Logger, type LogLevel } from "../wire/log.ts";
import { RequestsToClient } from "./requests_to_client.ts";
import { Replies } from "./replies.ts";
import { Roots } from "./roots.ts";
import type { Outbox } from "./outbox.ts";
import type { TransportConnection } from "./transport.ts";
import { type Connection, handlerFor, McpService, type ServiceOptions } from "./service.ts";
import { PENDING, settledValue } from "../wire/settled.ts";
import { Subscriptions } from "./subscriptions.ts";
import { Unanswered } from "./unanswered.ts";
import { describeTask } from "../tool/tasks/methods.ts";
import { TaskStore } from "../tool/tasks/store.ts";
import { traceOf } from "../wire/trace.ts";

export interface ConnectionOptions extends ServiceOptions, Outbox {
  /** Shared with other connections; made from these options when absent. */
  service?: McpService;
  /** A session kept beyond this connection (its transport ends it); else one of its own. */
  session?: SessionMemory;
  /** Whose own session is (an OAuth token's subject), when it makes one. */
  subject?: string;
}

/** What a request is answered with; null when no reply is sent (it was cancelled). */
type Reply = JsonRpcResponse | null;

/** The `_meta` of a request that has none: shared, and never modified. */
const NO_META: Params = Object.freeze({});

export class McpConnection implements Connection, TransportConnection {
  readonly #options: ConnectionOptions;
  readonly #service: McpService;
  /** By id: a Map keeps 1 and "1" apart by itself (SameValueZero), so no key is built. */
  readonly #calls = new Map<RequestId, Call>();
  /** Requests and batches whose replies are not sent yet, and who waits on their number. */
  readonly #unanswered = new Unanswered();
  readonly #handshake: Handshake;
  readonly #replies: Replies;
  #closing = false;
  /** Calls answered by shutdown before they ended: their own end sends nothing. */
  readonly #stragglers = new WeakSet<Call>();
  readonly #requests: RequestsToClient;
  readonly #roots: Roots;
  readonly #subscriptions: Subscriptions;
  readonly #environment: CallEnvironment;
  readonly #ownSession: boolean; // ended with it (else by its transport)
  #tasks?: TaskStore;

  constructor(options: ConnectionOptions) {
    this.#options = options;
    this.#service = options.service ?? new McpService(options);
    this.#replies = new Replies(options, options.info);
    this.#handshake = new Handshake(this.#service, options);
    this.#requests = new RequestsToClient(options, options.timeouts?.clientRequestMs);
    this.#roots = new Roots(
      options,
      () => Boolean(this.#handshake.terms?.clientCapabilities.roots),
      this.#requests,
    );
    this.#ownSession = options.session === undefined;
    const session = options.session ?? new SessionMemory(options.subject);
    this.#subscriptions = new Subscriptions(
      this.#service,
      options,
      () => this.#roots.of(this.#handshake.scope({})),
      session,
    );
    this.#environment = {
      session,
      logger: options.logger,
      send: options.send,
      roots: (scope, related) => this.#roots.of(scope, related),
      ask: (method, params, timeoutMs, signal, related) =>
        this.#requests.ask(method, params, timeoutMs, signal, related),
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
    const min = this.#handshake.terms?.logLevel;
    if (min && atLeast(level, min)) {
      this.#options.send({
        jsonrpc: "2.0",
        method: "notifications/message",
        params: { level, logger, data },
      });
    }
  }

  /** Where this connection's stderr lines go. */
  get logger(): Logger {
    return this.#options.logger;
  }

  /** Requests and batches started whose replies are not sent yet (a transport's flow control). */
  get unanswered(): number {
    return this.#unanswered.count;
  }

  /** Requests and batches answered (or dropped, when cancelled) since the start. */
  get answeredCount(): number {
    return this.#unanswered.answered;
  }

  /** Resolves once fewer than `n` requests and batches are unanswered. */
  whenUnansweredBelow(n: number): Promise<void> {
    return this.#unanswered.below(n);
  }

  /**
   * Handles one message its transport decoded (a line of stdin, an HTTP body); see
   * TransportConnection. How many run at once is the transport's to bound (read_ahead.ts).
   */
  receive(decoded: Decoded, grant?: Grant, answered?: () => void): void {
    this.#dispatch(decoded, grant, answered);
    if (decoded.kind !== "request" && decoded.kind !== "batch") answered?.();
  }

  /** Refuses new requests, aborts work in flight (still answered); resolves then, or after `ms`. */
  async shutdown(ms: number): Promise<void> {
    this.#closing = true;
    for (const call of this.#calls.values()) call.abort("shutdown");
    this.#tasks?.close();
    await this.settled(ms);
    this.#answerStragglers();
    this.close();
  }

  /**
   * Calls still running when shutdown stops waiting (a child that ignores SIGTERM) are answered
   * now as the others were, since the process may end before they do; their own end sends nothing.
   */
  #answerStragglers(): void {
    for (const [key, call] of this.#calls) {
      if (call.finished) continue;
      call.finished = true;
      this.#calls.delete(key);
      this.#stragglers.add(call);
      this.#options.logger.log(
        "warning",
        `request ${quotedJson(call.id)} (${call.method}) did not stop in time; answered as stopped`,
      );
      this.#replies.send(this.#replies.stopped(call));
    }
  }

  /** Resolves once every request has been answered (or dropped), or after `ms`. */
  settled(ms: number): Promise<void> {
    return this.#unanswered.none(ms);
  }

  #dispatch(decoded: Decoded, grant: Grant | undefined, answered?: () => void): void {
    switch (decoded.kind) {
      case "invalid":
        this.#replies.send(decoded.reply);
        return;
      case "ignored":
        this.#options.logger.log("warning", `ignored a malformed notification: ${decoded.why}`);
        return;
      case "batch":
        this.#handleBatch(decoded.items, grant, answered);
        return;
      case "notification":
        this.#handleNotification(decoded.message);
        return;
      case "response":
        this.#requests.answer(decoded.message);
        return;
      case "request":
        if (decoded.message.method === "initialize") {
          this.#replies.initializeStarted();
          this.#answerLater(
            this.#handleRequest(decoded.message, grant),
            this.#initializeAnswered,
            answered,
          );
          return;
        }
        this.#answerLater(this.#handleRequest(decoded.message, grant), this.#replyIfAny, answered);
    }
  }

  /**
   * Counts work until its reply is sent, without a promise per request to keep track of; work
   * already done is answered at once. (`#replyIfAny` and `#done` are made once, not per request,
   * and a function per request only when someone waits for it: `answered`, an HTTP budget.)
   */
  #answerLater<T>(work: T | Promise<T>, reply: (value: T) => void, answered?: () => void): void {
    this.#unanswered.add();
    if (work instanceof Promise) {
      work.then(reply).finally(answered ? () => this.#done(answered) : this.#done);
      return;
    }
    try {
      reply(work);
    } catch (error) {
      this.#options.logger.log("error", `sending a reply failed: ${describeLogData(error)}`);
    } finally {
      this.#done(answered);
    }
  }

  readonly #replyIfAny = (reply: Reply) => reply && this.#replies.send(reply);
  readonly #initializeAnswered = (reply: Reply) => this.#replies.initializeAnswered(reply);
  readonly #done = (answered?: () => void) => {
    this.#unanswered.done();
    answered?.();
  };

  #handleBatch(items: unknown[], grant: Grant | undefined, answered?: () => void): void {
    const replies = batchReplies(items, this.#handshake.version, {
      notification: (message) => this.#handleNotification(message),
      request: (message) => Promise.resolve(this.#handleRequest(message, grant)),
    });
    if (!Array.isArray(replies)) {
      this.#replies.send(replies);
      answered?.();
      return;
    }
    this.#answerLater(Promise.all(replies), (all) => {
      const sent = all.filter((r): r is JsonRpcResponse => r !== null);
      if (sent.length > 0) this.#replies.send(sent);
    }, answered);
  }

  #handleNotification(message: JsonRpcNotification): void {
    const params = message.params ?? {};
    if (message.method === "notifications/cancelled") {
      const id = params.requestId;
      if (typeof id !== "string" && typeof id !== "number") return;
      this.cancel(id, typeof params.reason === "string" ? params.reason : undefined);
      return;
    }
    const terms = this.#handshake.terms;
    if (message.method === "notifications/initialized" && terms) {
      this.#subscriptions.hearListChanges(this.#service.capabilities(terms.version));
    }
    if (message.method === "notifications/roots/list_changed") {
      this.#roots.forget(); // fetched again when a tool next asks
    }
    this.#options.logger.log("debug", `notification ${quoted(message.method)}`);
  }

  /** Cancels a request in flight: it gets no reply. Unknown or finished ids are ignored. */
  cancel(id: RequestId, reason?: string): void {
    const call = this.#calls.get(id);
    // initialize cannot be cancelled.
    if (!call || call.method === "initialize") return;
    call.abort("cancelled");
    // No reply will come, so to the client the id is free at once, even while the tool cleans up.
    this.#calls.delete(id);
    this.#options.logger.log(
      "info",
      `request ${quotedJson(id)} (${call.method}) cancelled by the client${
        reason ? `: ${bounded(reason)}` : ""
      }`,
    );
  }

  /** Whether a request with this id is in flight. */
  busy(id: RequestId): boolean {
    return this.#calls.has(id);
  }

  /** The protocol version `initialize` settled, if it has run. */
  get sessionVersion(): string | undefined {
    return this.#handshake.version;
  }

  /**
   * A request's reply (null: none is sent), at once when its handler finished at once, else a
   * promise of it: the common call then costs no promise job at all.
   */
  #handleRequest(message: JsonRpcRequest, grant?: Grant): Reply | Promise<Reply> {
    const { id, method } = message;
    if (this.#calls.has(id)) {
      // A client bug; answering under that id is still clearer than silence.
      return failure(
        id,
        INVALID_REQUEST,
        `Invalid Request: id ${quotedJson(id)} is already used by a request in flight`,
      );
    }
    if (this.#closing) {
      return failure(id, INTERNAL_ERROR, "The server is shutting down and takes no new requests");
    }
    let call: Call | undefined;
    let result: Record<string, unknown> | Promise<Record<string, unknown>>;
    try {
      const params = message.params ?? {};
      const meta = isPlainObject(params._meta) ? params._meta : NO_META;
      const scope = this.#scope(params, meta);
      if (grant) this.#authorize(grant, method, params);
      const run = handlerFor(this.#service.methods, method, scope, this.#handshake.terms !== null);
      const token = meta.progressToken;
      call = new Call(
        id,
        method,
        scope,
        typeof token === "string" || typeof token === "number" ? token : undefined,
        this.#environment,
      );
      if (meta !== NO_META) call.trace = traceOf(meta);
      if (grant) call.grant = grant;
      this.#calls.set(id, call);
      result = run(params, call, this);
    } catch (error) {
      return this.#failed(message, call, error);
    }
    const now = settledValue(result);
    if (now !== PENDING) return this.#succeeded(message, call, now);
    const running = call;
    return (result as Promise<Record<string, unknown>>).then(
      (value) => this.#succeeded(message, running, value),
      (error) => this.#failed(message, running, error),
    );
  }

  #succeeded(message: JsonRpcRequest, call: Call, result: Record<string, unknown>): Reply {
    try {
      this.#finish(message.id, call);
      if (call.reason === "cancelled" || this.#stragglers.has(call)) return null;
      return { jsonrpc: "2.0", id: message.id, result: this.#replies.decorate(result, call.era) };
    } catch (error) {
      return this.#failed(message, call, error);
    }
  }

  #failed(message: JsonRpcRequest, call: Call | undefined, error: unknown): Reply {
    const { id, method } = message;
    if (call) this.#finish(id, call);
    if (call?.reason === "cancelled" || (call && this.#stragglers.has(call))) return null;
    if (error instanceof RpcError) return failure(id, error.code, error.message, error.data);
    this.#options.logger.log(
      "error",
      `internal error in ${method} (id ${quotedJson(id)}): ${describeLogData(error)}`,
    );
    return failure(
      id,
      INTERNAL_ERROR,
      `Internal error while handling ${method}; the server's stderr has the details`,
    );
  }

  /** The call is over: its id is free again. */
  #finish(id: RequestId, call: Call): void {
    call.finished = true;
    if (this.#calls.get(id) === call) this.#calls.delete(id);
  }

  /** Throws the JSON-RPC error for a request the caller's authorization does not cover. */
  #authorize(grant: Grant, method: string, params: Params): void {
    if (expired(grant)) {
      throw new RpcError(
        FORBIDDEN,
        "Unauthorized: the access token this channel was opened with has expired; connect " +
          "again with a new one",
      );
    }
    const missing = missingScope(grant, method, params, this.#service.catalog.kindOf);
    if (missing) throw new RpcError(FORBIDDEN, refusalText(grant, method, missing));
  }

  /** A request's era and declarations; modern `_meta` is checked before anything else. */
  #scope(params: Params, meta: Params): Scope {
    return modernScope(meta) ?? this.#handshake.scope(params);
  }

  initialize(params: Params): Record<string, unknown> {
    const result = this.#handshake.initialize(params);
    this.#roots.forget();
    this.#subscriptions.forgetLegacy();
    return result;
  }

  setLevel(params: Params): Record<string, unknown> {
    return this.#handshake.setLevel(params);
  }

  subscribe(params: Params, call: Call): Record<string, unknown> {
    return this.#subscriptions.subscribe(params, call);
  }

  unsubscribe(params: Params, call: Call): Record<string, unknown> {
    return this.#subscriptions.unsubscribe(params, call);
  }

  listen(params: Params, call: Call): Promise<Record<string, unknown>> {
    return this.#subscriptions.listen(params, call);
  }

  /**
   * The tasks of this connection's legacy session, made on first use; each change of status is
   * told to the client (notifications/tasks/status), on no request's stream.
   */
  get tasks(): TaskStore {
    this.#tasks ??= new TaskStore(undefined, (task) => {
      this.#options.send({
        jsonrpc: "2.0",
        method: "notifications/tasks/status",
        params: describeTask(task),
      });
    });
    return this.#tasks;
  }

  /**
   * Stops this connection's watches and ends its own session: what it kept is released (its
   * background processes stopped). The connection itself ends with its transport.
   */
  close(): void {
    this.#subscriptions.close();
    if (this.#ownSession) void this.#environment.session.dispose();
  }
}

/**
 * What one connection asked to hear of changes: the legacy session's list changes (from
 * notifications/initialized on) and the resources it subscribed to, and each 2026-07-28
 * subscriptions/listen stream. The watches themselves run in ChangeWatches, made on first use.
 */
import { bounded } from "../../config/quote.ts";
import type { Call } from "../tool/call.ts";
import { type ChangeListener, ChangeWatches } from "./change_watches.ts";
import type { Outbox } from "./outbox.ts";
import { resourceNotFound } from "../features/handler_errors.ts";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";
import { describeLogData } from "../wire/log.ts";
import type { McpService } from "./service.ts";
import type { SessionMemory } from "../tool/session_memory.ts";
import { detailedTask } from "../tool/tasks/methods.ts";
import { requestedTaskIds, TaskStream } from "../tool/tasks/listen.ts";
import { META_SUBSCRIPTION_ID } from "../wire/versions.ts";

/** Resources one subscription may name, and a legacy session may subscribe to: each is a watch. */
const MAX_SUBSCRIBED_URIS = 100;

export class Subscriptions {
  /** Made when someone first wants to hear of changes. */
  #watches?: ChangeWatches;
  /** What the legacy session subscribed to. */
  readonly #legacyUris = new Set<string>();
  /** The legacy session as a receiver of change notifications. */
  readonly #legacyListener: ChangeListener = {
    deliver: (method, params) => this.out.send({ jsonrpc: "2.0", method, params }),
  };

  constructor(
    readonly service: McpService,
    readonly out: Outbox,
    /** The roots a watch works in: the legacy session's. */
    readonly roots: () => Promise<string[]>,
    /** The session whose things a watch watches (its background processes). */
    readonly session: SessionMemory,
  ) {}

  /**
   * A legacy session hears of every list change its capabilities announce, from when it says
   * it is initialized: watching may ask the client for its roots, which must not come earlier.
   */
  hearListChanges(capabilities: Record<string, unknown>): void {
    const watches = this.#changeWatches();
    for (const kind of ["tools", "prompts", "resources"] as const) {
      const announced = capabilities[kind] as { listChanged?: boolean } | undefined;
      if (announced?.listChanged) watches.addList(this.#legacyListener, kind);
    }
  }

  /** A session that starts again hears nothing until it says it is initialized. */
  forgetLegacy(): void {
    this.#watches?.removeListener(this.#legacyListener);
    this.#legacyUris.clear();
  }

  #changeWatches(): ChangeWatches {
    this.#watches ??= new ChangeWatches(this.service, {
      config: this.service.program.config,
      state: this.service.program.state,
      roots: this.roots,
      session: this.session,
      log: (level, data) => this.out.logger.log(level, `watch: ${describeLogData(data)}`),
    }, this.out.logger);
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
        `Invalid params: ${
          bounded(uri, 300)
        } cannot be subscribed to: it does not tell when it changes`,
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
    if (this.service.watchFor(uri) === undefined) throw resourceNotFound(uri, call.era);
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
    // A server with no task to tell of offers no such notifications: the field is left unanswered.
    const taskIds = this.service.tasks ? requestedTaskIds(asked, call) : undefined;
    const tag = { [META_SUBSCRIPTION_ID]: call.id };
    const listener: ChangeListener = {
      deliver: (method, params) =>
        this.out.send({ jsonrpc: "2.0", method, params: { ...params, _meta: tag } }, call.id),
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
    const resources = [...new Set(uris ?? [])].filter((uri) => this.service.watchFor(uri));
    if (uris !== undefined) granted.resourceSubscriptions = resources;
    const { tasks: store, taskWatchers } = this.service;
    const tasks = taskIds && store && taskWatchers
      ? new TaskStream(taskIds, store, taskWatchers, (task) =>
        this.out.send({
          jsonrpc: "2.0",
          method: "notifications/tasks",
          params: { ...detailedTask(task), _meta: tag },
        }, call.id))
      : undefined;
    if (tasks) granted.taskIds = tasks.grantedIds;
    // The acknowledgment goes first: nothing is watched until it is on its way.
    this.out.send({
      jsonrpc: "2.0",
      method: "notifications/subscriptions/acknowledged",
      params: { _meta: tag, notifications: granted },
    }, call.id);
    for (const [, kind] of lists) watches.addList(listener, kind);
    for (const uri of resources) watches.addResource(listener, uri);
    tasks?.start();
    try {
      await new Promise<void>((resolve) => {
        if (call.signal.aborted) resolve();
        call.signal.addEventListener("abort", () => resolve(), { once: true });
      });
    } finally {
      watches.removeListener(listener);
      tasks?.stop();
    }
    return { _meta: tag };
  }

  /** Stops every watch. */
  close(): void {
    this.#watches?.close();
  }
}

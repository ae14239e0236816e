/**
 * What every connection of one server shares: the catalogs of tools, resources and prompts,
 * which methods exist, and the capabilities that follow from them. A connection (connection.ts)
 * adds what belongs to one client: its session, its requests in flight, its subscriptions.
 */
import { quoted } from "../../config/quote.ts";
import { homedir } from "node:os";
import process from "node:process";
import { stateDirectory } from "../../config/paths.ts";
import { defaultSettings, type Settings } from "../../config/settings.ts";
import type { Call } from "../tool/call.ts";
import { ToolCatalog } from "../features/tool_catalog.ts";
import type { ChangeSources, ListKind } from "./change_watches.ts";
import { complete } from "../features/completion.ts";
import type { Scope } from "../wire/eras.ts";
import { INVALID_PARAMS, METHOD_NOT_FOUND, type Params, RpcError } from "../wire/jsonrpc.ts";
import { describeLogData, type Logger, type LogLevel } from "../wire/log.ts";
import type { Extension } from "../features/extension.ts";
import type { Icon } from "../tool/icons.ts";
import type { Prompt, PromptFamily } from "../features/prompt.ts";
import { PromptCatalog } from "../features/prompts.ts";
import type { ReadContext, Resource, ResourceTemplate } from "../features/resource.ts";
import { ResourceCatalog, SEARCH_MAX_QUERY, SEARCH_MAX_RESULTS } from "../features/resources.ts";
import type { ProgramContext, Tool, ToolContext, ToolHook, ToolState } from "../tool/tool.ts";
import { combineHooks } from "../tool/tool_hooks.ts";
import type { PrecompiledValidators } from "../tool/schema/mod.ts";
import {
  cancelTask,
  getTask,
  listTasks,
  taskResult,
  TASKS_EXTENSION,
  updateTask,
} from "../tool/tasks/methods.ts";
import { TaskStore } from "../tool/tasks/store.ts";
import { TaskWatchers } from "../tool/tasks/watchers.ts";
import {
  type Era,
  features,
  META_CLIENT_CAPABILITIES,
  META_LOG_LEVEL,
  META_PROTOCOL_VERSION,
  META_SERVER_INFO,
  MODERN_VERSIONS,
  SUPPORTED_VERSIONS,
} from "../wire/versions.ts";
import type { Watch } from "../features/watch.ts";

export interface ServerInfo {
  name: string;
  title?: string;
  version: string;
}

export interface ServiceOptions {
  info: ServerInfo;
  /**
   * The server's icons: in serverInfo where the version has them (initialize of 2025-11-25,
   * server/discover), not in the serverInfo every 2026-07-28 result carries.
   */
  icons?: readonly Icon[];
  instructions?: string;
  tools: Tool[];
  /** Resources with fixed URIs, resource templates and prompts (each optional). */
  resources?: Resource[];
  templates?: ResourceTemplate[];
  prompts?: (Prompt | PromptFamily)[];
  /** Extensions the families speak: their methods, announced in capabilities.extensions. */
  extensions?: Extension[];
  /** Diagnostics; goes to stderr, never to the client's stdout. */
  logger: Logger;
  /** Items per page of every list method. */
  pageSize?: number;
  /**
   * Where tools may work: `fixed` (from the command line) wins; otherwise the client's roots
   * when a legacy client offers them; otherwise `fallback` (the working directory).
   */
  roots: { fixed: string[]; fallback: string[] };
  /** What every tool call passes through (plan mode, reminders), run phase by phase. */
  hooks?: readonly ToolHook[];
  /**
   * The built-in tools' validators compiled ahead of time (tools/_catalog/validators); a schema
   * not among them is compiled by Ajv at its first use.
   */
  validators?: PrecompiledValidators;
  /** The settings in force, every tool's `ctx.config`; the defaults when absent. */
  config?: Settings;
  /**
   * Where tools may persist, their `ctx.state`; when absent, TOOLHOST_STATE_DIR or the
   * platform's place, looked up when a tool asks.
   */
  state?: ToolState;
  /** Overrides of how long the client may take to answer us, and tools to prepare. */
  timeouts?: { clientRequestMs?: number; prepareMs?: number };
}

/** toolhost's own method: resources and templates by a word in their names and URIs. */
export const RESOURCES_SEARCH = "resources/search";

/** How long clients may cache list and discovery results (modern era). */
export const CACHE_TTL_MS = 300_000;

/** What a method handler may ask of the connection the request came on. */
export interface Connection {
  initialize(params: Params): Record<string, unknown>;
  setLevel(params: Params): Record<string, unknown>;
  subscribe(params: Params, call: Call): Record<string, unknown>;
  unsubscribe(params: Params, call: Call): Record<string, unknown>;
  listen(params: Params, call: Call): Promise<Record<string, unknown>>;
  /** The tasks of this connection's legacy session (2026-07-28 tasks are the service's). */
  readonly tasks: TaskStore;
}

export type Handler = (
  params: Params,
  call: Call,
  connection: Connection,
) => Promise<Record<string, unknown>> | Record<string, unknown>;

export interface Method {
  run: Handler;
  eras: readonly Era[];
}

const BOTH: Era[] = ["legacy", "modern"];
const LEGACY: Era[] = ["legacy"];
const MODERN: Era[] = ["modern"];

export class McpService implements ChangeSources {
  readonly options: ServiceOptions;
  readonly catalog: ToolCatalog;
  readonly resources?: ResourceCatalog;
  readonly prompts?: PromptCatalog;
  readonly methods: Map<string, Method>;
  /**
   * The tasks of 2026-07-28 requests, which have no session: the process holds them, each
   * found by its unguessable id. Undefined when no tool may run as a task.
   */
  readonly tasks?: TaskStore;
  /** Who listens to which of those tasks (subscriptions/listen's taskIds); with `tasks`. */
  readonly taskWatchers?: TaskWatchers;
  /** What every tool, resource and prompt is given besides its call. */
  readonly program: ProgramContext;
  /**
   * Where logs from outside any call go (a tool's timer): the transport that serves sets it to
   * reach its clients; until then, stderr.
   */
  programLog: (level: LogLevel, logger: string, data: unknown) => void;

  constructor(options: ServiceOptions) {
    this.options = options;
    this.programLog = (level, logger, data) =>
      options.logger.log(level, `${logger}: ${describeLogData(data)}`);
    this.program = {
      config: options.config ?? defaultSettings(),
      state: options.state ?? {
        get dir() {
          return defaultStateDir();
        },
      },
      serverLog: (level, logger, data) => this.programLog(level, logger, data),
    };
    const program = this.program;
    const pageSize = options.pageSize ?? 100;
    this.catalog = new ToolCatalog(options.tools, options.logger, {
      program,
      pageSize,
      cacheTtlMs: CACHE_TTL_MS,
      hooks: options.hooks?.length ? combineHooks(options.hooks) : undefined,
      prepareTimeoutMs: options.timeouts?.prepareMs,
      validators: options.validators,
    });
    const resources = options.resources ?? [];
    const templates = options.templates ?? [];
    if (resources.length || templates.length) {
      this.resources = new ResourceCatalog(resources, templates, options.logger, {
        program,
        pageSize,
        cacheTtlMs: CACHE_TTL_MS,
      });
    }
    if (options.prompts?.length) {
      this.prompts = new PromptCatalog(options.prompts, options.logger, { program, pageSize });
    }
    if (options.tools.some((tool) => tool.taskSupport && tool.taskSupport !== "forbidden")) {
      const watchers = new TaskWatchers();
      this.taskWatchers = watchers;
      this.tasks = new TaskStore(undefined, (task) => watchers.changed(task));
    }
    this.methods = this.#methodTable();
  }

  #methodTable(): Map<string, Method> {
    const catalog = this.catalog;
    const methods = new Map<string, Method>([
      ["initialize", { run: (p, _c, conn) => conn.initialize(p), eras: LEGACY }],
      ["ping", { run: () => ({}), eras: LEGACY }],
      ["logging/setLevel", { run: (p, _c, conn) => conn.setLevel(p), eras: LEGACY }],
      ["server/discover", { run: () => this.discover(), eras: MODERN }],
      ["tools/list", { run: (p, c) => catalog.list(p, c), eras: BOTH }],
      ["tools/call", {
        run: (p, c, conn) => catalog.call(p, c, this.#tasksOf(c, conn)),
        eras: BOTH,
      }],
    ]);
    if (this.tasks) {
      const pageSize = this.options.pageSize ?? 100;
      const store = (c: Call, conn: Connection) => this.#tasksOf(c, conn)!;
      methods.set("tasks/get", { run: (p, c, conn) => getTask(p, c, store(c, conn)), eras: BOTH });
      methods.set("tasks/cancel", {
        run: (p, c, conn) => cancelTask(p, c, store(c, conn)),
        eras: BOTH,
      });
      methods.set("tasks/result", {
        run: (p, c, conn) => taskResult(p, c, store(c, conn)),
        eras: LEGACY,
      });
      methods.set("tasks/list", {
        run: (p, c, conn) => listTasks(p, c, store(c, conn), pageSize),
        eras: LEGACY,
      });
      methods.set("tasks/update", {
        run: (p, c, conn) => updateTask(p, c, store(c, conn)),
        eras: MODERN,
      });
    }
    // Only what is offered is answered: the rest stays "method not found", as capabilities say.
    const res = this.resources;
    if (res) {
      methods.set("resources/list", { run: (p, c) => res.list(p, c), eras: BOTH });
      methods.set("resources/templates/list", {
        run: (p, c) => res.listTemplates(p, c),
        eras: BOTH,
      });
      methods.set("resources/read", { run: (p, c) => res.read(p, c), eras: BOTH });
      // An extension, announced in capabilities.experimental: standard clients never call it.
      methods.set(RESOURCES_SEARCH, { run: (p, c) => res.search(p, c), eras: BOTH });
      if (res.subscribable) {
        methods.set("resources/subscribe", {
          run: (p, c, conn) => conn.subscribe(p, c),
          eras: LEGACY,
        });
        methods.set("resources/unsubscribe", {
          run: (p, c, conn) => conn.unsubscribe(p, c),
          eras: LEGACY,
        });
      }
    }
    const prompts = this.prompts;
    if (prompts) {
      methods.set("prompts/list", { run: (p, c) => prompts.list(p, c), eras: BOTH });
      methods.set("prompts/get", { run: (p, c) => prompts.get(p, c), eras: BOTH });
    }
    if (res?.templates.length || prompts) {
      const catalogs = {
        resources: res,
        prompts,
        logger: this.options.logger,
        program: this.program,
      };
      methods.set("completion/complete", { run: (p, c) => complete(p, c, catalogs), eras: BOTH });
    }
    methods.set("subscriptions/listen", { run: (p, c, conn) => conn.listen(p, c), eras: MODERN });
    this.#addExtensions(methods);
    return methods;
  }

  /** Each extension's methods, in both eras; a name the server already answers is refused. */
  #addExtensions(methods: Map<string, Method>): void {
    const terms = { pageSize: this.options.pageSize ?? 100, cacheTtlMs: CACHE_TTL_MS };
    for (const extension of this.options.extensions ?? []) {
      for (const [name, method] of Object.entries(extension.methods)) {
        if (methods.has(name)) {
          throw new Error(`Extension ${extension.id}: the method ${name} is answered already`);
        }
        methods.set(name, {
          run: (p, c) =>
            method(p, { ...extensionView(c.context(this.program)), era: c.era, ...terms }),
          eras: BOTH,
        });
      }
    }
  }

  /** Where a call's tasks live: the process's for 2026-07-28, else its connection's. */
  #tasksOf(call: Call, connection: Connection): TaskStore | undefined {
    if (!this.tasks) return undefined;
    return call.era === "modern" ? this.tasks : connection.tasks;
  }

  watchFor(uri: string): Watch | null | undefined {
    return this.resources?.watchFor(uri);
  }

  listWatches(kind: ListKind): readonly Watch[] {
    if (kind === "resources") return this.resources?.listWatches ?? [];
    if (kind === "prompts") return this.prompts?.listWatches ?? [];
    return [];
  }

  /**
   * Exactly what is implemented, for a legacy `version` or (null) the modern era: change
   * notifications are announced only where something can tell of changes.
   */
  capabilities(version: string | null): Record<string, unknown> {
    const capabilities: Record<string, unknown> = {
      tools: version === null ? {} : { listChanged: false },
      logging: {},
    };
    const res = this.resources;
    if (res) {
      capabilities.resources = {
        ...(res.subscribable ? { subscribe: true } : {}),
        ...(res.listWatches.length ? { listChanged: true } : {}),
      };
      capabilities.experimental = {
        [RESOURCES_SEARCH]: { maxQueryLength: SEARCH_MAX_QUERY, maxResults: SEARCH_MAX_RESULTS },
      };
    }
    if (this.prompts) {
      capabilities.prompts = this.prompts.listWatches.length ? { listChanged: true } : {};
    }
    const completes = this.methods.has("completion/complete");
    if (completes && (version === null || features.completionsCapability(version))) {
      capabilities.completions = {};
    }
    const extensions: Record<string, unknown> = {};
    for (const extension of this.options.extensions ?? []) {
      extensions[extension.id] = extension.settings;
    }
    if (Object.keys(extensions).length) capabilities.extensions = extensions;
    if (this.tasks) {
      if (version === null) capabilities.extensions = { ...extensions, [TASKS_EXTENSION]: {} };
      else if (features.tasks(version)) {
        capabilities.tasks = { list: {}, cancel: {}, requests: { tools: { call: {} } } };
      }
    }
    return capabilities;
  }

  discover(): Record<string, unknown> {
    const result: Record<string, unknown> = {
      supportedVersions: SUPPORTED_VERSIONS,
      capabilities: this.capabilities(null),
      ttlMs: CACHE_TTL_MS,
      cacheScope: "public",
    };
    if (this.options.instructions) result.instructions = this.options.instructions;
    if (this.options.icons?.length) {
      result._meta = { [META_SERVER_INFO]: { ...this.options.info, icons: this.options.icons } };
    }
    return result;
  }
}

/** A resource read's view of a call's context (what ExtensionContext adds its terms to). */
function extensionView(ctx: ToolContext): ReadContext {
  return {
    signal: ctx.signal,
    roots: () => ctx.roots(),
    log: (level, data) => ctx.log(level, data),
    config: ctx.config,
    state: ctx.state,
    session: ctx.session,
  };
}

function defaultStateDir(): string {
  const env = process.env;
  return stateDirectory(env.TOOLHOST_STATE_DIR ?? "", env, homedir(), process.platform);
}

/**
 * The handler of `name` for a request of this scope, if its era has that method: -32601 when
 * nothing answers it, -32602 when the request lacks what the method's era needs (modern `_meta`,
 * or a legacy session that `initialize` opened).
 */
export function handlerFor(
  methods: ReadonlyMap<string, Method>,
  name: string,
  scope: Scope,
  initialized: boolean,
): Handler {
  const method = methods.get(name);
  if (!method) throw new RpcError(METHOD_NOT_FOUND, `Method not found: ${quoted(name)}`);
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
  if (scope.era === "legacy" && !initialized && name !== "initialize" && name !== "ping") {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: ${name} carries no protocol version. Either send initialize first (MCP 2025-11-25 and earlier) or put "${META_PROTOCOL_VERSION}" and "${META_CLIENT_CAPABILITIES}" in params._meta (MCP ${
        MODERN_VERSIONS.join(", ")
      })`,
    );
  }
  return method.run;
}

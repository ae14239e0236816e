/**
 * The tool catalog: `tools/list` (descriptions shaped per protocol version, cursor pages) and
 * `tools/call` (argument validation, running the tool, shaping its result).
 */
import { quoted } from "../../config/quote.ts";
import type { Call } from "../tool/call.ts";
import { answersOf, callDigest, InputRequired, inputRequiredResult } from "../tool/round_trip.ts";
import { INVALID_PARAMS, isPlainObject, type Params, RpcError } from "../wire/jsonrpc.ts";
import { describeLogData, type Logger } from "../wire/log.ts";
import { pageOf } from "../wire/pages.ts";
import { traceTag } from "../wire/trace.ts";
import {
  type PrecompiledValidators,
  type Validator,
  ValidatorCache,
} from "../tool/schema/schema.ts";
import { PENDING, settledValue } from "../wire/settled.ts";
import { closest } from "../../config/suggest.ts";
import type { ProgramContext, Tool, ToolContext, ToolHooks, ToolReturn } from "../tool/tool.ts";
import { MissingClientCapability, ToolError } from "../tool/tool.ts";
import { missingCapability } from "./handler_errors.ts";
import { errorResult, normalize, type ToolResult } from "./tool_result.ts";
import { features } from "../wire/versions.ts";
import { appOnly, rendersApps, toolUiMeta } from "../tool/apps.ts";
import { mayCall } from "../wire/grant.ts";
import { mayWrite } from "../tool/writes.ts";
import { runAsTask, taskPlan } from "../tool/tasks/start.ts";
import type { TaskStore } from "../tool/tasks/store.ts";

interface CatalogOptions {
  program: ProgramContext;
  pageSize: number;
  cacheTtlMs: number;
  hooks?: ToolHooks;
  /** How long tools may take to prepare before they are listed as they stand. */
  prepareTimeoutMs?: number;
  /** Validators compiled ahead of time, for the schemas they were made from. */
  validators?: PrecompiledValidators;
}

const PREPARE_TIMEOUT_MS = 5_000;
/**
 * When a first call still running has its output validator compiled: past the steps a tool
 * takes before its first real wait (~10 ms for code_nav to spawn its server).
 */
const OUTPUT_COMPILE_AFTER_MS = 25;

/** A call's result: at once when nothing had to wait, else a promise of it. */
type Outcome = Record<string, unknown> | Promise<Record<string, unknown>>;

export class ToolCatalog {
  /** The tools by name, sorted; replaced once by their prepared versions. */
  #tools: Tool[];
  #byName: Map<string, Tool>;
  readonly #validators: ValidatorCache;
  /** The last call waiting for a validator: calls after it wait behind it (see #run). */
  #loading: Promise<unknown> | undefined;
  /** Tool descriptions shaped for each protocol version, built on first request. */
  readonly #described = new Map<string, Record<string, unknown>[]>();
  /** The tools' prepare() calls, run once, before the first list or call. */
  #prepared: Promise<void> | undefined;
  #ready = false;
  /** Calls waiting for the tools to be prepared: a call after them waits too. */
  #waitingToPrepare = 0;
  /** Whether any description depends on the user's files. */
  readonly #personal: boolean;

  constructor(
    tools: Tool[],
    readonly logger: Logger,
    readonly options: CatalogOptions,
  ) {
    this.#tools = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    this.#byName = new Map();
    for (const tool of this.#tools) {
      if (this.#byName.has(tool.name)) throw new Error(`Two tools are named ${tool.name}`);
      this.#byName.set(tool.name, tool);
    }
    this.#personal = this.#tools.some((tool) => tool.prepare);
    this.#validators = new ValidatorCache(options.validators);
  }

  /** The input schema of the tool of this name, as prepared (undefined for no such tool). */
  inputSchema(name: string): unknown {
    return this.#byName.get(name)?.input;
  }

  /**
   * Whether the tool of this name changes things, by its annotations, or, given a call's
   * arguments, by what they make it write (fetch_url is read-only until `save_to` names a
   * file); undefined: no such tool.
   */
  kindOf = (name: string, args?: Record<string, unknown>): "read-only" | "changes" | undefined => {
    const tool = this.#byName.get(name);
    if (!tool) return undefined;
    if (!tool.annotations?.readOnlyHint) return "changes";
    return args && mayWrite(tool.writes, args) ? "changes" : "read-only";
  };

  /**
   * Lets tools whose description depends on the disk (skills) fill it in, once, in the roots of
   * the first request. A tool that takes too long or fails is listed as it was defined.
   */
  #prepare(call: Call): Promise<void> {
    this.#prepared ??= this.#personal ? this.#prepareAll(call) : Promise.resolve();
    return this.#prepared.then(() => {
      this.#ready = true;
    });
  }

  async #prepareAll(call: Call): Promise<void> {
    const limit = this.options.prepareTimeoutMs ?? PREPARE_TIMEOUT_MS;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) => {
      timer = setTimeout(() => resolve("late"), limit);
    });
    const prepared = await Promise.all(this.#tools.map(async (tool): Promise<Tool> => {
      if (!tool.prepare) return tool;
      try {
        const work = call.roots().then((roots) =>
          tool.prepare!({ ...this.options.program, roots })
        );
        const update = await Promise.race([work, late]);
        if (update !== "late") return { ...tool, ...update };
        this.logger.log(
          "warning",
          `tool ${tool.name} took over ${limit} ms to prepare; listed as defined`,
        );
      } catch (error) {
        this.logger.log("error", `preparing tool ${tool.name} failed: ${describeLogData(error)}`);
      }
      return tool;
    }));
    clearTimeout(timer);
    this.#tools = prepared;
    this.#byName = new Map(prepared.map((tool) => [tool.name, tool]));
  }

  async list(params: Params, call: Call): Promise<Record<string, unknown>> {
    if (!this.#ready) await this.#prepare(call);
    const described = this.#describe(call);
    // A caller with a narrower grant (OAuth scopes) sees only the tools it may call.
    const grant = call.grant;
    const all = grant
      ? described.filter((tool) => mayCall(grant, this.kindOf(tool.name as string)))
      : described;
    const page = pageOf(all, params.cursor, this.options.pageSize, "tools");
    const result: Record<string, unknown> = { tools: page.items };
    if (page.nextCursor) result.nextCursor = page.nextCursor;
    if (call.era === "modern") {
      result.ttlMs = this.options.cacheTtlMs;
      // Descriptions a tool prepared from this user's files (skills) are theirs alone, and so
      // is a list narrowed to what a caller's grant allows.
      result.cacheScope = this.#personal || grant ? "private" : "public";
    }
    return result;
  }

  /**
   * `tasks` is where the call's task goes, should it become one (tasks/start.ts). The result
   * comes at once when nothing had to wait; a problem with the request itself is thrown.
   */
  call(params: Params, call: Call, tasks?: TaskStore): Outcome {
    if (this.#ready) return this.#start(params, call, tasks);
    // A tool with nothing to prepare is the same prepared or not: its call need not wait for the
    // others' (skills reading the disk, 1-7 ms before a first code_nav could start its server),
    // unless a call before it waits (calls start in the order they came).
    const tool = typeof params.name === "string" ? this.#byName.get(params.name) : undefined;
    const preparing = this.#prepare(call);
    if (tool && !tool.prepare && this.#waitingToPrepare === 0) {
      preparing.catch(() => {}); // a failure is the list's, which waits for it
      return this.#start(params, call, tasks);
    }
    this.#waitingToPrepare++;
    return preparing.finally(() => this.#waitingToPrepare--).then(() =>
      this.#start(params, call, tasks)
    );
  }

  #start(params: Params, call: Call, tasks?: TaskStore): Outcome {
    const name = params.name;
    if (typeof name !== "string") {
      throw new RpcError(INVALID_PARAMS, "Invalid params: tools/call needs params.name (a string)");
    }
    const found = this.#byName.get(name);
    // A tool meant for an app is unknown to a client that renders none (it was never listed).
    const tool = found && appOnly(found.ui) && !rendersApps(call.clientCapabilities)
      ? undefined
      : found;
    if (!tool) {
      const apps = rendersApps(call.clientCapabilities);
      const names = this.#tools.filter((t) => apps || !appOnly(t.ui)).map((t) => t.name);
      const guess = closest(name, names);
      throw new RpcError(
        INVALID_PARAMS,
        `Unknown tool ${quoted(name)}${guess ? ` (did you mean ${guess}?)` : ""}. ` +
          `Available tools: ${names.join(", ")}`,
      );
    }
    const args = params.arguments ?? {};
    if (!isPlainObject(args)) {
      throw new RpcError(
        INVALID_PARAMS,
        "Invalid params: tools/call params.arguments must be an object",
      );
    }
    const plan = tasks ? taskPlan(tool.taskSupport, name, params, call) : null;
    if (!plan || !tasks) return this.#run(tool, args, params, call);
    const work = () => {
      try {
        return Promise.resolve(this.#run(tool, args, params, call));
      } catch (error) {
        return Promise.reject(error);
      }
    };
    return runAsTask(tasks, call, plan, work, this.logger);
  }

  /**
   * Checks the arguments, runs the tool and shapes its result. Each step goes on in the same turn
   * when the one before finished at once (a compiled validator, hooks that decide at once, a tool
   * that needed no wait), so the common call makes no promise of its own.
   */
  #run(tool: Tool, args: Record<string, unknown>, params: Params, call: Call): Outcome {
    const validate = this.#validators.ready(tool.input);
    if (validate && !this.#loading) return this.#checked(validate(args), tool, args, params, call);
    // A validator still loading: this call, and every call after it until it is loaded, start
    // in the order they came (the journal puts calls on one path in line in that order).
    const behind = this.#loading;
    const loaded = this.#validators.get(tool.input).then(async (compiled) => {
      await behind;
      return compiled;
    });
    const turn: Promise<unknown> = loaded.catch(() => {}).finally(() => {
      if (this.#loading === turn) this.#loading = undefined;
    });
    this.#loading = turn;
    return loaded.then((compiled) => this.#checked(compiled(args), tool, args, params, call));
  }

  #checked(
    check: ReturnType<Validator>,
    tool: Tool,
    args: Record<string, unknown>,
    params: Params,
    call: Call,
  ): Outcome {
    const name = tool.name;
    if (!check.ok) {
      return this.#shape(
        errorResult(
          `Invalid arguments for ${name}:\n${check.problems.map((p) => `- ${p}`).join("\n")}\n` +
            `Fix these and call ${name} again.`,
        ),
        call,
      );
    }
    // A retry's answers count only for the call they were asked in (same tool, same arguments).
    // Hashing the arguments is left to the calls that ask or answer: most do neither.
    if (
      call.era === "modern" &&
      (params.requestState !== undefined || params.inputResponses !== undefined)
    ) {
      call.questions.answers = answersOf(params, callDigest("tools/call", name, args));
    }
    const started = performance.now();
    let ctx: ToolContext | undefined;
    let returned: ToolReturn<unknown> | Promise<ToolReturn<unknown>>;
    try {
      // A cancel (or shutdown) may have come while the validator was loading.
      if (call.reason) throw new ToolError(`${name} was not started: the call was stopped first`);
      call.label = name;
      const context = ctx = call.context(this.options.program, { declared: tool.writes, args });
      // A call that writes paths takes its place in line on them now, in the order calls came,
      // whatever its hooks wait for; it leaves the line when it is over (#over).
      if (tool.writes?.paths) context.writes.enterLine();
      // Most hooks decide at once; waiting only on a real promise keeps the common call cheap.
      const checked = this.options.hooks?.before?.(tool, context, args);
      returned = checked ? checked.then(() => tool.run(args, context)) : tool.run(args, context);
    } catch (error) {
      return this.#over(() => this.#threw(error, tool, args, call, ctx, started), ctx, tool);
    }
    const now = settledValue(returned);
    if (now !== PENDING) {
      return this.#over(() => this.#returned(now, tool, args, call, ctx, started), ctx, tool);
    }
    const later = returned as Promise<ToolReturn<unknown>>;
    // A first call's output validator is compiled while the tool waits (a language server
    // starting, a command running), not after its answer came (~8 ms for code_nav's). Not at
    // once: the tool's own steps up to its first wait would run after it. A tool done sooner
    // compiles it in #finished, and this finds it compiled.
    const output = tool.output;
    if (output && !this.#validators.ready(output)) {
      const compile = () => this.#validators.get(output).catch(() => {}); // fails in #finished
      const timer = setTimeout(compile, OUTPUT_COMPILE_AFTER_MS);
      const cancel = () => clearTimeout(timer);
      later.then(cancel, cancel);
    }
    return this.#over(
      () =>
        later.then(
          (value) => this.#returned(value, tool, args, call, ctx, started),
          (error) => this.#threw(error, tool, args, call, ctx, started),
        ),
      ctx,
      tool,
    );
  }

  /**
   * The call's outcome, once its place in line on the paths it writes is given up: however the
   * call ended (answered, refused, asked a question, failed, or threw), the next call on its
   * paths may go.
   */
  #over(outcome: () => Outcome, ctx: ToolContext | undefined, tool: Tool): Outcome {
    if (!ctx || !tool.writes?.paths) return outcome();
    const writes = ctx.writes;
    let made: Outcome;
    try {
      made = outcome();
    } catch (error) {
      writes.leaveLine();
      throw error;
    }
    if (!(made instanceof Promise)) {
      writes.leaveLine();
      return made;
    }
    return made.finally(() => writes.leaveLine());
  }

  /** The tool returned: its value normalized (one that cannot be is the tool's failure). */
  #returned(
    value: ToolReturn<unknown>,
    tool: Tool,
    args: Record<string, unknown>,
    call: Call,
    ctx: ToolContext | undefined,
    started: number,
  ): Outcome {
    let result: ToolResult;
    try {
      result = normalize(value);
    } catch (error) {
      return this.#threw(error, tool, args, call, ctx, started);
    }
    return this.#finished(result, tool, args, call, ctx, started);
  }

  /** The tool (or a hook before it) threw: an error result, a question, or an RPC error. */
  #threw(
    error: unknown,
    tool: Tool,
    args: Record<string, unknown>,
    call: Call,
    ctx: ToolContext | undefined,
    started: number,
  ): Outcome {
    const name = tool.name;
    if (error instanceof InputRequired) {
      // The client answers and calls again; the answers so far ride along, signed.
      const digest = callDigest("tools/call", name, args);
      return inputRequiredResult(error, digest, call.questions.answers);
    }
    if (error instanceof MissingClientCapability && call.era === "modern") {
      throw missingCapability(error);
    }
    if (error instanceof ToolError) {
      return this.#finished(errorResult(error.message), tool, args, call, ctx, started);
    }
    // A tool stopped by a cancel or shutdown failing on its way out is no bug.
    const level = call.reason ? "debug" : "error";
    this.logger.log(level, `tool ${name} threw: ${describeLogData(error)}${traceTag(call.trace)}`);
    const message = error instanceof Error ? error.message : String(error);
    return this.#finished(
      errorResult(`${name} failed: ${message}`),
      tool,
      args,
      call,
      ctx,
      started,
    );
  }

  /** Checks structured output, runs the hooks after the call and shapes the result. */
  #finished(
    result: ToolResult,
    tool: Tool,
    args: Record<string, unknown>,
    call: Call,
    ctx: ToolContext | undefined,
    started: number,
  ): Outcome {
    if (tool.output && !result.isError) {
      const output = tool.output;
      const validate = this.#validators.ready(output);
      if (!validate) {
        return this.#validators.get(output).then(() =>
          this.#finished(result, tool, args, call, ctx, started)
        );
      }
      if (result.structuredContent === undefined) {
        throw new Error(
          `tool ${tool.name} declares an output schema but returned no structured result`,
        );
      }
      const out = validate(result.structuredContent);
      if (!out.ok) {
        throw new Error(
          `tool ${tool.name} returned output that fails its schema: ${out.problems.join("; ")}`,
        );
      }
    }
    // Only a result that will be sent gets the hooks' additions (they are delivered once).
    if (!call.reason) this.options.hooks?.after?.(result, ctx);
    const finished = this.options.hooks?.finished;
    if (finished && ctx) {
      // Waited for only when a hook returned a promise (the journal does for file changes only).
      const recording = finished({
        tool,
        ctx,
        args,
        result,
        outcome: call.reason ? "cancelled" : result.isError ? "error" : "ok",
        durationMs: performance.now() - started,
        era: call.era,
      });
      if (recording) return recording.then(() => this.#shape(result, call));
    }
    return this.#shape(result, call);
  }

  /** Drops what the negotiated version does not know. */
  #shape(result: ToolResult, call: Call): Record<string, unknown> {
    if (
      call.era === "legacy" && !features.structuredOutput(call.version) &&
      result.structuredContent !== undefined
    ) {
      const { structuredContent: _, ...rest } = result;
      return rest;
    }
    return result;
  }

  #describe(call: Call): Record<string, unknown>[] {
    const apps = rendersApps(call.clientCapabilities);
    const key = `${call.era === "modern" ? "modern" : call.version}${apps ? " apps" : ""}`;
    let described = this.#described.get(key);
    if (!described) {
      const structured = call.era === "modern" || features.structuredOutput(call.version);
      const annotated = call.era === "modern" || features.toolAnnotations(call.version);
      const iconic = call.era === "modern" || features.icons(call.version);
      const offered = apps ? this.#tools : this.#tools.filter((tool) => !appOnly(tool.ui));
      described = offered.map((tool) => {
        const d: Record<string, unknown> = { name: tool.name };
        if (structured && tool.title) d.title = tool.title;
        d.description = tool.description;
        d.inputSchema = tool.input;
        if (structured && tool.output) d.outputSchema = tool.output;
        if (iconic && tool.icons?.length) d.icons = tool.icons;
        if (annotated && tool.annotations) {
          d.annotations = tool.title && !structured
            ? { title: tool.title, ...tool.annotations }
            : tool.annotations;
        }
        // 2026-07-28 has no execution field: there the server decides (tasks/start.ts).
        if (call.era === "legacy" && features.tasks(call.version) && tool.taskSupport) {
          d.execution = { taskSupport: tool.taskSupport };
        }
        if (apps && tool.ui) d._meta = toolUiMeta(tool.ui);
        return d;
      });
      this.#described.set(key, described);
    }
    return described;
  }
}

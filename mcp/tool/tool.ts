/** The tool contract: defineTool(), what a tool's handler receives, and what it may return. */
import type { Settings } from "../../config/settings.ts";
import type { ToolUi } from "./apps.ts";
import type { ElicitRequest, ElicitResult } from "./elicit.ts";
import type { Icon } from "./icons.ts";
import type { LogLevel } from "../wire/log.ts";
import type { TraceContext } from "../wire/trace.ts";
import type { JsonSchema } from "./schema/schema.ts";
import type { FromSchema } from "./schema/schema_types.ts";
import type { CallWrites, ToolWrites } from "./writes.ts";
import type { SessionMemory } from "./session_memory.ts";

export { SessionKey, SessionMemory } from "./session_memory.ts";

export {
  CallWrites,
  Handoff,
  type PathWrite,
  type PlannedWrite,
  type RunTimeWrite,
  type ToolWrites,
  type WriteKind,
} from "./writes.ts";

export interface ToolAnnotations {
  title?: string;
  readOnlyHint?: boolean;
  destructiveHint?: boolean;
  idempotentHint?: boolean;
  openWorldHint?: boolean;
}

/** A content block as MCP defines it (text, image, audio, resource link, embedded resource). */
export type ContentBlock =
  | { type: "text"; text: string }
  | { type: "image" | "audio"; data: string; mimeType: string }
  | { type: "resource_link"; uri: string; name: string; [key: string]: unknown }
  | { type: "resource"; resource: Record<string, unknown> };

/** Where tools may keep what must outlive the server (task lists, plans). */
export interface ToolState {
  /** toolhost's state directory, absolute; whoever writes there creates what it needs. */
  readonly dir: string;
}

/** What the program gives every tool, resource, prompt and hook, whichever call it serves. */
export interface ProgramContext {
  /** The settings in force: defaults, config files, environment and flags (config/). */
  readonly config: Readonly<Settings>;
  readonly state: ToolState;
  /**
   * Logs outside any one call (a timer that fires later, a tool's preparation): to stderr and
   * to the clients that asked for log messages.
   */
  serverLog(level: LogLevel, logger: string, data: unknown): void;
}

/**
 * What a tool's handler may use; nothing about the wire. Made per call.
 *
 * @example
 * ```ts
 * async run(args, ctx) {
 *   ctx.progress(0, files.length);
 *   if (ctx.signal.aborted) throw new ToolError("stopped before anything was written");
 *   // Every write goes through the edit transaction (tools/_lib/transaction/).
 *   return await transaction(ctx, async (tx) => {
 *     const target = await tx.target("path");
 *     const written = await tx.replace(target, bytes);
 *     return `Wrote ${target.shown}${written.note}.`;
 *   });
 * }
 * ```
 */
export interface ToolContext extends ProgramContext {
  /** Aborted on cancellation or shutdown. */
  readonly signal: AbortSignal;
  /**
   * The W3C trace context the client sent in the request's `_meta` (SEP-414), well formed and
   * bounded, for what the call starts (withTraceEnv) or logs; undefined when none came.
   */
  readonly trace?: TraceContext;
  /** Why `signal` was aborted, once it is. */
  abortReason(): "cancelled" | "shutdown" | undefined;
  /**
   * Runs `listener` when the call is aborted, or at once if it already was (a cancel can arrive
   * before the tool starts). Returns a function that removes the listener.
   */
  onAbort(listener: () => void): () => void;
  /** Reports progress; dropped unless the client asked for it, and unless `done` increased. */
  progress(done: number, total?: number, message?: string): void;
  /** Logs to stderr and, when the client asked for this level, to the client. */
  log(level: LogLevel, data: unknown): void;
  /**
   * The directories the user allows tools to work in, as absolute paths: the server's --root
   * flags, else the client's roots (legacy clients that offer them), else the working directory.
   */
  roots(): Promise<string[]>;
  /** Whether the client can put questions to the user (it declared elicitation). */
  readonly canElicit: boolean;
  /**
   * Whether a question can be put to the user now, its answer awaited while the call's work goes
   * on: a legacy client that can elicit, before the call is answered (or while its task runs).
   * Work a tool does not await step by step (a command's network request) asks only then: in
   * the 2026-07-28 era a question ends the call.
   */
  readonly canElicitMidCall: boolean;
  /**
   * Asks the user through the client and returns their answer. In the 2026-07-28 era the call
   * ends here and the tool runs again, from the start, once the client comes back with the
   * answer: code before the question must be safe to run twice. Check `canElicit` first.
   */
  elicit(request: ElicitRequest, options?: AskOptions): Promise<ElicitResult>;
  /** Whether the client can run a prompt through its model for us (it declared sampling). */
  readonly canSample: boolean;
  /** Asks the client's model (the client may show the request to the user first). */
  sample(request: SampleRequest, options?: AskOptions): Promise<SampleResult>;
  /** Whether the client offers its roots (it declared roots). */
  readonly canListRoots: boolean;
  /**
   * The client's own roots, as it gives them (URIs; roots() gives the directories tools work
   * in). Asked in both eras; in 2026-07-28 the call ends and runs again as for elicit().
   */
  clientRoots(options?: AskOptions): Promise<ClientRoot[]>;
  /**
   * Several questions at once: a 2026-07-28 client gets all of them in one round. Answers come
   * back under the same keys (ElicitResult, SampleResult or ClientRoot[] by question).
   */
  ask(questions: Record<string, Question>): Promise<Record<string, unknown>>;
  /**
   * This call's writes (writes.ts): the paths its tool declared, resolved for its arguments;
   * `replacing()` before renaming over a file, `willWrite()` for paths decided at run time, and
   * the hand-offs between the hooks and the tool.
   */
  readonly writes: CallWrites;
  /**
   * What this session (the connection) keeps between its calls, by typed key
   * (session_memory.ts): the files it read and wrote, for one.
   */
  readonly session: SessionMemory;
}

/** One question of several asked at once. */
export type Question =
  | { elicit: ElicitRequest }
  | { sample: SampleRequest }
  | { roots: true };

export interface ClientRoot {
  uri: string;
  name?: string;
}

export interface AskOptions {
  /**
   * Names the question in a 2026-07-28 input_required result (default ask1, ask2, …): each
   * question of one call needs its own.
   */
  key?: string;
}

/** sampling/createMessage as MCP defines it; the client may show it to the user first. */
export interface SampleRequest {
  messages: { role: "user" | "assistant"; content: ContentBlock }[];
  maxTokens: number;
  systemPrompt?: string;
  temperature?: number;
  stopSequences?: string[];
  modelPreferences?: Record<string, unknown>;
}

export interface SampleResult {
  role: "user" | "assistant";
  content: ContentBlock;
  model: string;
  stopReason?: string;
}

/** Everything a handler may return: text, content blocks, or the full form. */
export type ToolReturn<Out> =
  | string
  | ContentBlock[]
  | { content?: string | ContentBlock[]; structured?: Out; isError?: boolean };

/** Thrown by a handler to give the model an `isError` result carrying this message. */
export class ToolError extends Error {}

/**
 * Thrown by a handler (2026-07-28 era) when the client lacks a capability the call needs: the
 * request fails with -32021 naming it, rather than with a result.
 */
export class MissingClientCapability extends Error {
  constructor(readonly required: Record<string, unknown>) {
    super(`the client must declare ${Object.keys(required).join(", ")} for this call`);
  }
}

type InputSchema = JsonSchema & { readonly type: "object" };

/**
 * Whether a call of the tool may run as a task (docs/protocol.md#tasks): "optional" for work
 * that can take long (commands, the web, searches), "required" for a tool that only runs as one;
 * absent ("forbidden") where a handle makes no sense (quick edits, tools that return at once).
 */
export type TaskSupport = "forbidden" | "optional" | "required";

/**
 * When a hook's work is done, around the tool's own (the write): hooks run phase by phase, in
 * this order, and a call refused in one phase reaches no later one.
 * - `gate`: read-only decisions that may refuse the call (read-only mode, plan mode);
 * - `check`: what must hold of the files before anything is kept (another's unseen change);
 * - `keep`: what undo needs, kept before the tool changes anything (the journal);
 * - `observe`: what watches the change (diagnostics before and after an edit, reminders).
 * `finished` runs in the same order once the call is over.
 */
export type HookPhase = "gate" | "check" | "keep" | "observe";

/** The phases in the order their hooks run. */
export const HOOK_PHASES: readonly HookPhase[] = ["gate", "check", "keep", "observe"];

/**
 * Work that every tool call passes through: plan mode's refusals, reminders attached to
 * results. A tool module declares it with defineToolHook() beside its tool.
 */
export interface ToolHooks {
  /** Runs before a tool, given its checked arguments; a ToolError it throws refuses the call. */
  before?(tool: Tool, ctx: ToolContext, args: Record<string, unknown>): void | Promise<void>;
  /** Runs on every finished result (with its call's context, when it had one); may append blocks. */
  after?(result: { content: ContentBlock[]; isError?: boolean }, ctx?: ToolContext): void;
  /**
   * Runs once a call that passed argument checks is over (sent, refused, failed or stopped),
   * after `after`; a promise it returns is awaited before the result is sent (return none to
   * keep the reply path free). For records (the journal), not changes.
   */
  finished?(call: FinishedCall): void | Promise<void>;
}

/** A call as `finished` hooks see it. */
export interface FinishedCall {
  tool: Tool;
  ctx: ToolContext;
  /** The same object `before` was given. */
  args: Record<string, unknown>;
  result: { content: ContentBlock[]; isError?: boolean };
  outcome: "ok" | "error" | "cancelled";
  durationMs: number;
  era: "legacy" | "modern";
}

/** Whether the session offers the tool of this name (what a description may name). */
export type Offers = (name: string) => boolean;

/**
 * A description that names other tools: written for the tools the session offers, so the model
 * is never pointed at one it does not have (tools/_catalog/assemble.ts calls it).
 */
export type Describe = (offers: Offers) => string;

export interface ToolSpec<I extends InputSchema, O extends JsonSchema | undefined> {
  /** ^[A-Za-z0-9_.-]{1,128}$ and unique across tools/. */
  name: string;
  title?: string;
  /** Text, or a function of what else is offered when it names other tools. */
  description: string | Describe;
  annotations?: ToolAnnotations;
  /**
   * What a call writes (writes.ts): the arguments naming the paths it creates, replaces,
   * changes, removes or moves, or `atRunTime`, or `untracked`. The journal, undo and plan mode
   * act on it; a destructive tool declares something.
   */
  writes?: ToolWrites;
  /** Shown by clients of 2025-11-25 and later; a tool without its own gets its family's. */
  icons?: readonly Icon[];
  input: I;
  /** When present, every successful result carries `structured` matching this schema. */
  output?: O;
  /** Whether a call may run as a task; absent means never. */
  taskSupport?: TaskSupport;
  /** Its app (MCP Apps, apps.ts): listed as `_meta.ui` to clients that render apps. */
  ui?: ToolUi;
  /**
   * Tools without which this one has nothing to work on (bash_output: bash_background): it is
   * offered only beside them.
   */
  needs?: readonly string[];
  run(
    args: FromSchema<I>,
    ctx: ToolContext,
  ): Promise<ToolReturn<O extends JsonSchema ? FromSchema<O> : never>>;
  /**
   * For a tool whose description or input depend on what is on disk (skills): called once,
   * before the first tools/list or tools/call, and its answer replaces the static ones. `roots`
   * are those of that first request (--root, else the client's, else the working directory).
   */
  prepare?(env: PrepareEnvironment): Promise<{ description?: string; input?: InputSchema }>;
}

export interface PrepareEnvironment extends ProgramContext {
  roots: string[];
}

/** A tool as the server holds it: the schema types are erased once the handler is typed. */
export interface Tool {
  name: string;
  title?: string;
  /** As listed; a Describe's text for a session offering every tool, until assembled. */
  description: string;
  /** What the description is made of when it names other tools. */
  describe?: Describe;
  annotations?: ToolAnnotations;
  writes?: ToolWrites;
  icons?: readonly Icon[];
  input: InputSchema;
  output?: JsonSchema;
  taskSupport?: TaskSupport;
  ui?: ToolUi;
  needs?: readonly string[];
  run(args: Record<string, unknown>, ctx: ToolContext): Promise<ToolReturn<unknown>>;
  prepare?(env: PrepareEnvironment): Promise<{ description?: string; input?: InputSchema }>;
}

export const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;

/**
 * Makes a tool: its name, description, hints, what it writes, its input schema (the handler's
 * argument type follows from it) and its handler.
 *
 * @example A tool that replaces the file its `path` names
 * ```ts
 * export default defineTool({
 *   name: "upper_case",
 *   description: "Rewrites a text file in upper case.",
 *   annotations: REPLACES_FILES,
 *   // The journal keeps the old file for undo, plan mode refuses the call, and a file changed
 *   // since this session read it is not overwritten unless `force`.
 *   writes: { paths: [{ arg: "path", kind: "replaces" }], force: "force" },
 *   input: {
 *     type: "object",
 *     properties: { path: { type: "string" }, force: { type: "boolean" } },
 *     required: ["path"],
 *     additionalProperties: false,
 *   },
 *   run(args, ctx) {
 *     // The edit transaction (tools/_lib/transaction/): resolved once, checked, kept, written.
 *     return transaction(ctx, async (tx) => {
 *       const file = await tx.readText(await tx.target("path"), TEXT_RULES);
 *       const written = await tx.replace(file, file.encode(file.text.toUpperCase()));
 *       return `Rewrote ${file.shown}${written.note}.`;
 *     });
 *   },
 * });
 * ```
 */
export function defineTool<
  const I extends InputSchema,
  const O extends JsonSchema | undefined = undefined,
>(spec: ToolSpec<I, O>): Tool {
  if (!TOOL_NAME.test(spec.name)) {
    throw new Error(`Tool name ${JSON.stringify(spec.name)} must match ${TOOL_NAME}`);
  }
  if (typeof spec.description === "function") {
    const describe = spec.description;
    return { ...spec, description: describe(() => true), describe } as unknown as Tool;
  }
  return spec as unknown as Tool;
}

/**
 * `tool` as a session offering `offers` lists it: its description names only tools offered.
 *
 * @example
 * ```ts
 * const offered = new Set(tools.map((t) => t.name));
 * const listed = tools.map((t) => describedFor(t, (name) => offered.has(name)));
 * ```
 */
export function describedFor(tool: Tool, offers: Offers): Tool {
  return tool.describe ? { ...tool, description: tool.describe(offers) } : tool;
}

/**
 * Names joined as a sentence says them ("a, b and c"), those not offered left out.
 *
 * @example
 * ```ts
 * `${listOffered(offers, ["write_file", "copy_file"])} create parents themselves`;
 * ```
 */
export function listOffered(offers: Offers, names: readonly string[], and = "and"): string {
  const kept = names.filter(offers);
  return kept.length <= 1 ? kept.join("") : `${kept.slice(0, -1).join(", ")} ${and} ${kept.at(-1)}`;
}

/** Hooks as a tools/ module exports them, beside the tool they belong to. */
export interface ToolHook extends ToolHooks {
  kind: "tool_hook";
  /** Names the hook in logs and tests; orders hooks of one phase among themselves. */
  name: string;
  /** When it runs (HookPhase): hooks are ordered by phase, never by the file they come from. */
  phase: HookPhase;
}

/**
 * Makes a hook: its phase says when it runs among the others.
 *
 * @example A gate: refused calls reach no later phase
 * ```ts
 * export const noFridays = defineToolHook({
 *   name: "no_fridays",
 *   phase: "gate",
 *   before(tool) {
 *     if (new Date().getDay() === 5 && tool.annotations?.destructiveHint) {
 *       throw new ToolError(`${tool.name} was refused: no changes on Fridays.`);
 *     }
 *   },
 * });
 * ```
 */
export function defineToolHook(spec: Omit<ToolHook, "kind">): ToolHook {
  return { kind: "tool_hook", ...spec };
}

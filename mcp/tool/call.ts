/**
 * One request in flight: its scope, its cancellation state, and the progress and log channels
 * back to the client that its tool reaches through a ToolContext.
 */
import type { ElicitRequest, ElicitResult } from "./elicit.ts";
import type { JsonRpcNotification, Params, RequestId } from "../wire/jsonrpc.ts";
import { atLeast, describeLogData, type Logger, type LogLevel } from "../wire/log.ts";
import type { Scope } from "../wire/eras.ts";
import type { Grant } from "../wire/grant.ts";
import { Questions } from "./questions.ts";
import { type TraceContext, traceTag } from "../wire/trace.ts";
import type { Task } from "./tasks/store.ts";
import { META_RELATED_TASK } from "../wire/versions.ts";
import type {
  AskOptions,
  ClientRoot,
  ProgramContext,
  Question,
  SampleRequest,
  SampleResult,
  ToolContext,
} from "./tool.ts";
import { CallWrites, type ToolWrites } from "./writes.ts";
import type { SessionMemory } from "./session_memory.ts";

/** What a call needs from the server around it. */
export interface CallEnvironment {
  /** What the session (the connection) keeps between its calls. */
  session: SessionMemory;
  logger: Logger;
  /** `related` is the id of the request the message belongs to, if any. */
  send(message: JsonRpcNotification, related?: RequestId): unknown;
  /** The directories the user allows, for a request of this scope. */
  roots(scope: Scope, related: RequestId): Promise<string[]>;
  /** Sends a request to a legacy client and waits for its result. */
  ask(
    method: string,
    params: Params,
    timeoutMs: number,
    signal: AbortSignal,
    related?: RequestId,
  ): Promise<Record<string, unknown>>;
}

export type AbortReason = "cancelled" | "shutdown";

export class Call {
  reason?: AbortReason;
  /** Set once the reply is decided: later progress and log messages are dropped. */
  finished = false;
  /**
   * The task the call became (tasks/start.ts): its work goes on after the reply. A 2025-11-25
   * task keeps sending progress and log messages, marked with the task; a 2026-07-28 one sends
   * none, and its questions wait in the task for tasks/update.
   */
  task?: Task;
  /** Names the source of progress and log messages (the tool, for tools/call). */
  label: string;
  /** The trace the request named in `_meta` (SEP-414), checked and bounded. */
  trace?: TraceContext;
  /** What the caller may do, when the transport knows (HTTP with OAuth). */
  grant?: Grant;
  #lastProgress = -Infinity;
  #questions?: Questions;
  // Made on first use: most calls never look at their signal, and each controller costs memory.
  #controller?: AbortController;
  readonly #out: CallEnvironment;

  constructor(
    readonly id: RequestId,
    readonly method: string,
    readonly scope: Scope,
    readonly progressToken: string | number | undefined,
    out: CallEnvironment,
  ) {
    this.label = method;
    this.#out = out;
  }

  get era() {
    return this.scope.era;
  }

  get version() {
    return this.scope.version;
  }

  get clientCapabilities(): Params {
    return this.scope.clientCapabilities;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.reason && !this.#controller.signal.aborted) this.#controller.abort();
    return this.#controller.signal;
  }

  abort(reason: AbortReason): void {
    this.reason ??= reason;
    this.#controller?.abort();
  }

  /**
   * What a tool may see of this call, with what the program gives every call; `writes`: what
   * the tool declared it writes, and the call's arguments.
   */
  context(
    program: ProgramContext,
    writes?: { declared?: ToolWrites; args: Record<string, unknown> },
  ): ToolContext {
    return new ToolCallContext(this, program, writes);
  }

  /** Whether progress and log messages may still reach the client. */
  get #audible(): boolean {
    if (this.task) return this.era === "legacy" && !this.task.terminal;
    return !this.finished;
  }

  /** Where messages of this call go: its request, or the tasks/result waiting for its task. */
  get #related(): RequestId | undefined {
    return this.task ? this.task.relatedRequest : this.id;
  }

  /** Marks a message's params with the call's task, as 2025-11-25 asks. */
  #withTask(params: Params): Params {
    if (!this.task) return params;
    return { ...params, _meta: { [META_RELATED_TASK]: { taskId: this.task.id } } };
  }

  progress(done: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || !this.#audible || this.reason) return;
    if (!(done > this.#lastProgress)) return;
    this.#lastProgress = done;
    const params: Params = { progressToken: this.progressToken, progress: done };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#out.send(
      { jsonrpc: "2.0", method: "notifications/progress", params: this.#withTask(params) },
      this.#related,
    );
  }

  roots(): Promise<string[]> {
    return this.#out.roots(this.scope, this.id);
  }

  get session(): SessionMemory {
    return this.#out.session;
  }

  /** What the tool may ask the client, and the answers a modern retry brought. */
  get questions(): Questions {
    this.#questions ??= new Questions({
      era: this.era,
      version: this.version,
      clientCapabilities: this.scope.clientCapabilities,
      signal: this.signal,
      ask: (method, params, timeoutMs) => {
        const task = this.task;
        if (!task) return this.#out.ask(method, params, timeoutMs, this.signal, this.id);
        return task.asking(() =>
          this.#out.ask(method, this.#withTask(params), timeoutMs, this.signal, task.relatedRequest)
        );
      },
      park: (requests) =>
        this.task && this.era === "modern" ? this.task.park(requests, this.signal) : undefined,
    });
    return this.#questions;
  }

  async #one<T>(key: string | undefined, question: Question): Promise<T> {
    const name = key ?? this.questions.nextKey();
    return (await this.questions.ask({ [name]: question }))[name] as T;
  }

  elicit(request: ElicitRequest, options: AskOptions = {}): Promise<ElicitResult> {
    return this.#one(options.key, { elicit: request });
  }

  sample(request: SampleRequest, options: AskOptions = {}): Promise<SampleResult> {
    return this.#one(options.key, { sample: request });
  }

  clientRoots(options: AskOptions = {}): Promise<ClientRoot[]> {
    return this.#one(options.key, { roots: true });
  }

  log(level: LogLevel, data: unknown): void {
    this.#out.logger.log(level, `${this.label}: ${describeLogData(data)}${traceTag(this.trace)}`);
    const threshold = this.scope.logLevel;
    const min = typeof threshold === "function" ? threshold() : threshold;
    if (min === null || !this.#audible || this.reason === "cancelled") return;
    if (!atLeast(level, min)) return;
    this.#out.send({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: this.#withTask({ level, logger: this.label, data }),
    }, this.#related);
  }
}

class ToolCallContext implements ToolContext {
  readonly #call: Call;
  readonly #program: ProgramContext;
  readonly #declared?: { declared?: ToolWrites; args: Record<string, unknown> };
  #writes?: CallWrites;

  constructor(
    call: Call,
    program: ProgramContext,
    writes?: { declared?: ToolWrites; args: Record<string, unknown> },
  ) {
    this.#call = call;
    this.#program = program;
    this.#declared = writes;
  }

  /** Made on first use: most calls write nothing and never look. */
  get writes(): CallWrites {
    return this.#writes ??= new CallWrites(this.#declared?.declared, this.#declared?.args ?? {});
  }

  get config(): ProgramContext["config"] {
    return this.#program.config;
  }

  get state(): ProgramContext["state"] {
    return this.#program.state;
  }

  serverLog(level: LogLevel, logger: string, data: unknown): void {
    this.#program.serverLog(level, logger, data);
  }

  get signal(): AbortSignal {
    return this.#call.signal;
  }

  get trace(): TraceContext | undefined {
    return this.#call.trace;
  }

  abortReason(): AbortReason | undefined {
    return this.#call.reason;
  }

  onAbort(listener: () => void): () => void {
    const signal = this.#call.signal;
    if (signal.aborted) {
      listener();
      return () => {};
    }
    signal.addEventListener("abort", listener, { once: true });
    return () => signal.removeEventListener("abort", listener);
  }

  progress(done: number, total?: number, message?: string): void {
    this.#call.progress(done, total, message);
  }

  log(level: LogLevel, data: unknown): void {
    this.#call.log(level, data);
  }

  roots(): Promise<string[]> {
    return this.#call.roots();
  }

  get session(): SessionMemory {
    return this.#call.session;
  }

  get canElicit(): boolean {
    return this.#call.questions.canElicit;
  }

  get canElicitMidCall(): boolean {
    const call = this.#call;
    if (call.era !== "legacy" || !call.questions.canElicit || call.reason) return false;
    return call.task ? !call.task.terminal : !call.finished;
  }

  elicit(request: ElicitRequest, options?: AskOptions): Promise<ElicitResult> {
    return this.#call.elicit(request, options);
  }

  get canSample(): boolean {
    return this.#call.questions.canSample;
  }

  sample(request: SampleRequest, options?: AskOptions): Promise<SampleResult> {
    return this.#call.sample(request, options);
  }

  get canListRoots(): boolean {
    return this.#call.questions.canListRoots;
  }

  clientRoots(options?: AskOptions): Promise<ClientRoot[]> {
    return this.#call.clientRoots(options);
  }

  ask(questions: Record<string, Question>): Promise<Record<string, unknown>> {
    return this.#call.questions.ask(questions);
  }
}

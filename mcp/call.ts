/**
 * One request in flight: its scope, its cancellation state, and the progress and log channels
 * back to the client that its tool reaches through a ToolContext.
 */
import { type ElicitRequest, type ElicitResult, formFor, InputRequired } from "./elicit.ts";
import { checkAnswer } from "./elicit_check.ts";
import { isPlainObject, type JsonRpcNotification, type Params, type RequestId } from "./jsonrpc.ts";
import { atLeast, describeLogData, type Logger, type LogLevel } from "./log.ts";
import type { Scope } from "./eras.ts";
import {
  type ElicitOptions,
  MissingClientCapability,
  type SampleRequest,
  type SampleResult,
  type ToolContext,
  ToolError,
} from "./tool.ts";
import { features } from "./versions.ts";

/** What a call needs from the server around it. */
export interface CallEnvironment {
  logger: Logger;
  /** `related` is the id of the request the message belongs to. */
  send(message: JsonRpcNotification, related: RequestId): unknown;
  /** The directories the user allows, for a request of this scope. */
  roots(scope: Scope, related: RequestId): Promise<string[]>;
  /** Sends a request to a legacy client and waits for its result. */
  ask(
    method: string,
    params: Params,
    timeoutMs: number,
    signal: AbortSignal,
    related: RequestId,
  ): Promise<Record<string, unknown>>;
}

/** How long a legacy client's user has to answer a question. */
const ELICIT_TIMEOUT_MS = 10 * 60 * 1000;

export type AbortReason = "cancelled" | "shutdown";

export class Call {
  reason?: AbortReason;
  /** Set once the reply is decided: later progress and log messages are dropped. */
  finished = false;
  /** Names the source of progress and log messages (the tool, for tools/call). */
  label: string;
  #lastProgress = -Infinity;
  /** Answers a 2026-07-28 retry brought (see elicit.ts), and how many questions were asked. */
  answers = new Map<string, ElicitResult>();
  #asked = 0;
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

  /** What a tool may see of this call: nothing about the wire. */
  context(): ToolContext {
    return new ToolCallContext(this);
  }

  progress(done: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.finished || this.reason) return;
    if (!(done > this.#lastProgress)) return;
    this.#lastProgress = done;
    const params: Params = { progressToken: this.progressToken, progress: done };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.#out.send({ jsonrpc: "2.0", method: "notifications/progress", params }, this.id);
  }

  roots(): Promise<string[]> {
    return this.#out.roots(this.scope, this.id);
  }

  /**
   * Whether the client can show forms to the user: it declared elicitation (`{}` alone meaning
   * forms; a client offering only `url` cannot) and, before 2026, speaks 2025-06-18 or later.
   */
  get canElicit(): boolean {
    const elicitation = this.scope.clientCapabilities.elicitation;
    if (!isPlainObject(elicitation)) return false;
    if (this.era === "legacy" && !features.elicitation(this.version)) return false;
    return elicitation.form !== undefined
      ? isPlainObject(elicitation.form)
      : elicitation.url === undefined;
  }

  async elicit(request: ElicitRequest, options: ElicitOptions = {}): Promise<ElicitResult> {
    if (!this.canElicit) {
      throw new ToolError(
        "this client cannot show questions to the user (it did not declare form elicitation); ask them in the chat instead",
      );
    }
    const key = options.key ?? `ask${++this.#asked}`;
    if (this.era === "modern") {
      const answer = this.answers.get(key);
      if (!answer) throw new InputRequired(key, request);
      if (answer.action !== "accept") return answer;
      const checked = checkAnswer(request, answer.content);
      if (checked.ok) return { action: "accept", content: checked.content };
      // Asked again, saying what was wrong: the retry may answer this key once more.
      this.answers.delete(key);
      throw new InputRequired(key, {
        ...request,
        message: `${request.message}\n\n(The previous answer could not be used: ${
          checked.problems.join("; ")
        }.)`,
      });
    }
    const form = formFor(this.version, request);
    const result = await this.#out.ask(
      "elicitation/create",
      { ...form.request },
      ELICIT_TIMEOUT_MS,
      this.signal,
      this.id,
    );
    const action = result.action;
    if (action !== "accept" && action !== "decline" && action !== "cancel") {
      throw new Error(`the client answered elicitation/create without a valid action`);
    }
    if (action !== "accept") return { action };
    const checked = checkAnswer(
      request,
      form.restore(isPlainObject(result.content) ? result.content : undefined),
    );
    if (!checked.ok) {
      throw new ToolError(
        `the client's answer does not fit the questions asked (${checked.problems.join("; ")})`,
      );
    }
    return { action, content: checked.content };
  }

  get canSample(): boolean {
    return this.era === "legacy" && isPlainObject(this.scope.clientCapabilities.sampling);
  }

  async sample(request: SampleRequest): Promise<SampleResult> {
    if (this.era === "modern" && !isPlainObject(this.scope.clientCapabilities.sampling)) {
      throw new MissingClientCapability({ sampling: {} });
    }
    if (!this.canSample) {
      throw new ToolError(
        this.era === "modern"
          ? "sampling is not available to MCP 2026-07-28 clients of this server yet"
          : "this client cannot run prompts through its model (it did not declare sampling)",
      );
    }
    const result = await this.#out.ask(
      "sampling/createMessage",
      { ...request },
      ELICIT_TIMEOUT_MS,
      this.signal,
      this.id,
    );
    if (
      (result.role !== "user" && result.role !== "assistant") ||
      !isPlainObject(result.content) || typeof result.model !== "string"
    ) {
      throw new Error("the client answered sampling/createMessage without role, content and model");
    }
    return result as unknown as SampleResult;
  }

  log(level: LogLevel, data: unknown): void {
    this.#out.logger.log(level, `${this.label}: ${describeLogData(data)}`);
    const threshold = this.scope.logLevel;
    const min = typeof threshold === "function" ? threshold() : threshold;
    if (min === null || this.finished || this.reason === "cancelled") return;
    if (!atLeast(level, min)) return;
    this.#out.send({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level, logger: this.label, data },
    }, this.id);
  }
}

class ToolCallContext implements ToolContext {
  readonly #call: Call;

  constructor(call: Call) {
    this.#call = call;
  }

  get signal(): AbortSignal {
    return this.#call.signal;
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

  get canElicit(): boolean {
    return this.#call.canElicit;
  }

  elicit(request: ElicitRequest, options?: ElicitOptions): Promise<ElicitResult> {
    return this.#call.elicit(request, options);
  }

  get canSample(): boolean {
    return this.#call.canSample;
  }

  sample(request: SampleRequest): Promise<SampleResult> {
    return this.#call.sample(request);
  }
}

/**
 * One request in flight: its scope, its cancellation state, and the progress and log channels
 * back to the client that its tool reaches through a ToolContext.
 */
import type { JsonRpcNotification, Params, RequestId } from "./jsonrpc.ts";
import { atLeast, describeLogData, type Logger, type LogLevel } from "./log.ts";
import type { Scope } from "./eras.ts";
import type { ToolContext } from "./tool.ts";

/** What a call needs from the server around it. */
export interface CallEnvironment {
  logger: Logger;
  send(message: JsonRpcNotification): unknown;
  /** The directories the user allows, for a request of this scope. */
  roots(scope: Scope): Promise<string[]>;
}

export type AbortReason = "cancelled" | "shutdown";

export class Call {
  reason?: AbortReason;
  /** Set once the reply is decided: later progress and log messages are dropped. */
  finished = false;
  /** Names the source of progress and log messages (the tool, for tools/call). */
  label: string;
  #lastProgress = -Infinity;
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
    this.#out.send({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  roots(): Promise<string[]> {
    return this.#out.roots(this.scope);
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
    });
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
}

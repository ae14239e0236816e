/**
 * One request in flight: its era, version and capabilities, its cancellation state, and (as
 * the ToolContext a tool receives) its progress and log channels back to the client.
 */
import type { JsonRpcNotification, Params, RequestId } from "./jsonrpc.ts";
import { atLeast, describeLogData, type Logger, type LogLevel } from "./log.ts";
import type { ToolContext } from "./tool.ts";
import type { Era } from "./versions.ts";

export interface CallInit {
  id: RequestId;
  method: string;
  era: Era;
  version: string;
  clientCapabilities: Params;
  progressToken?: string | number;
  /** The client's threshold for log notifications (a function when a session may change it). */
  logLevel: LogLevel | null | (() => LogLevel | null);
}

export interface CallOutput {
  logger: Logger;
  send(message: JsonRpcNotification): unknown;
}

export class Call implements ToolContext {
  readonly id: RequestId;
  readonly method: string;
  readonly era: Era;
  readonly version: string;
  readonly clientCapabilities: Params;
  readonly progressToken?: string | number;
  reason?: "cancelled" | "shutdown";
  finished = false;
  /** Names the source of progress and log messages (the tool, for tools/call). */
  label: string;
  #logLevel: CallInit["logLevel"];
  #lastProgress = -Infinity;
  // Made on first use: most calls never look at their signal, and each controller costs memory.
  #controller?: AbortController;

  constructor(init: CallInit, readonly out: CallOutput) {
    this.id = init.id;
    this.method = init.method;
    this.era = init.era;
    this.version = init.version;
    this.clientCapabilities = init.clientCapabilities;
    this.progressToken = init.progressToken;
    this.#logLevel = init.logLevel;
    this.label = init.method;
  }

  get signal(): AbortSignal {
    this.#controller ??= new AbortController();
    if (this.reason && !this.#controller.signal.aborted) this.#controller.abort();
    return this.#controller.signal;
  }

  abort(reason: "cancelled" | "shutdown"): void {
    this.reason ??= reason;
    this.#controller?.abort();
  }

  abortReason(): "cancelled" | "shutdown" | undefined {
    return this.reason;
  }

  progress(done: number, total?: number, message?: string): void {
    if (this.progressToken === undefined || this.finished || this.reason) return;
    if (!(done > this.#lastProgress)) return;
    this.#lastProgress = done;
    const params: Params = { progressToken: this.progressToken, progress: done };
    if (total !== undefined) params.total = total;
    if (message !== undefined) params.message = message;
    this.out.send({ jsonrpc: "2.0", method: "notifications/progress", params });
  }

  log(level: LogLevel, data: unknown): void {
    this.out.logger.log(level, `${this.label}: ${describeLogData(data)}`);
    const min = typeof this.#logLevel === "function" ? this.#logLevel() : this.#logLevel;
    if (min === null || this.finished || this.reason === "cancelled") return;
    if (!atLeast(level, min)) return;
    this.out.send({
      jsonrpc: "2.0",
      method: "notifications/message",
      params: { level, logger: this.label, data },
    });
  }
}

/**
 * Tasks: a tools/call answered at once with a handle, whose work goes on after the reply
 * (MCP 2025-11-25 `tasks`, the 2026-07-28 `io.modelcontextprotocol/tasks` extension). A store
 * holds the tasks of one scope — a legacy connection (an HTTP session, or the stdio process), or
 * the process for 2026-07-28 requests, whose task ids are unguessable handles — each until its
 * ttl, after which it is gone and its work, if still running, stopped. A store holds a bounded
 * number: past it, the oldest finished task makes room, and with none finished a new one is
 * refused.
 */
import { randomUUID } from "node:crypto";
import { INTERNAL_ERROR, type RequestId, RpcError } from "../../wire/jsonrpc.ts";
import { fitsMethod, type InputRequest } from "../round_trip.ts";
import type { Era } from "../../wire/versions.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

export interface TaskError {
  code: number;
  message: string;
  data?: unknown;
}

/** How long a task is kept when the client asks for nothing else, and the longest it may ask. */
export const DEFAULT_TTL_MS = 60 * 60 * 1000;
export const MAX_TTL_MS = 24 * 60 * 60 * 1000;
const MIN_TTL_MS = 1000;
/** How often clients are told to poll. */
export const POLL_INTERVAL_MS = 1000;
/** Tasks one scope may hold, running and finished. */
export const MAX_TASKS = 256;

export function isTerminal(status: TaskStatus): boolean {
  return status === "completed" || status === "failed" || status === "cancelled";
}

/** The ttl a client asked for, kept within what the server allows. */
export function ttlFor(requested: unknown): number {
  if (typeof requested !== "number" || !Number.isFinite(requested)) return DEFAULT_TTL_MS;
  return Math.min(MAX_TTL_MS, Math.max(MIN_TTL_MS, Math.round(requested)));
}

export class Task {
  readonly id = randomUUID();
  status: TaskStatus = "working";
  statusMessage?: string;
  readonly createdAt = Date.now();
  lastUpdatedAt = this.createdAt;
  result?: Record<string, unknown>;
  error?: TaskError;
  /** Questions waiting for the client (2026-07-28), by the key it answers under. */
  readonly inputRequests = new Map<string, InputRequest>();
  /** A legacy tasks/result waiting for this task: questions and progress go on its stream. */
  relatedRequest?: RequestId;
  /** Stops the work (tasks/cancel, expiry, shutdown); set by whoever runs it. */
  stop: (why: "cancelled" | "shutdown") => void = () => {};
  readonly done: Promise<void>;
  #settle!: () => void;
  #keys = new Set<string>();
  #answers = new Map<string, unknown>();
  #wake?: () => void;
  #legacyQuestions = 0;
  timer?: ReturnType<typeof setTimeout>;

  constructor(
    readonly era: Era,
    readonly ttlMs: number,
    readonly changed: (task: Task) => void,
  ) {
    this.done = new Promise((resolve) => this.#settle = resolve);
  }

  get terminal(): boolean {
    return isTerminal(this.status);
  }

  /** Moves to `status` unless the task already ended: terminal states never change. */
  moveTo(status: TaskStatus, message?: string): void {
    if (this.terminal || (status === this.status && message === this.statusMessage)) return;
    this.status = status;
    this.statusMessage = message;
    this.lastUpdatedAt = Date.now();
    if (this.terminal) {
      this.inputRequests.clear();
      this.#wake?.();
      this.#settle();
    }
    this.changed(this);
  }

  /** The work's outcome: its result, or the JSON-RPC error the request would have had. */
  finish(outcome: { result: Record<string, unknown> } | { error: TaskError }): void {
    if (this.terminal) return;
    if ("result" in outcome) {
      this.result = outcome.result;
      // 2025-11-25 counts a tool's isError result as failed; 2026-07-28 as completed.
      const failed = this.era === "legacy" && outcome.result.isError === true;
      this.moveTo(
        failed ? "failed" : "completed",
        failed ? "the tool reported an error" : undefined,
      );
    } else {
      this.error = outcome.error;
      this.moveTo("failed", outcome.error.message);
    }
  }

  /**
   * 2026-07-28: puts questions to the client through tasks/get and waits for tasks/update to
   * answer every one. Keys are never reused over a task's life: one asked again gets a new one.
   * Resolves with the answers under the keys the tool asked with.
   */
  async park(
    requests: Record<string, InputRequest>,
    signal: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const wire = new Map<string, string>();
    for (const [key, request] of Object.entries(requests)) {
      let unique = key;
      for (let n = 2; this.#keys.has(unique); n++) unique = `${key}.${n}`;
      this.#keys.add(unique);
      wire.set(unique, key);
      this.inputRequests.set(unique, request);
    }
    this.moveTo("input_required");
    while (!this.terminal && [...wire.keys()].some((key) => this.inputRequests.has(key))) {
      if (signal.aborted) break;
      await new Promise<void>((resolve) => {
        this.#wake = resolve;
        signal.addEventListener("abort", () => resolve(), { once: true });
      });
    }
    if (this.terminal || signal.aborted) throw new Error("the task ended while waiting for input");
    const answers: Record<string, unknown> = {};
    for (const [unique, key] of wire) {
      answers[key] = this.#answers.get(unique);
      this.#answers.delete(unique);
    }
    if (this.inputRequests.size === 0) this.moveTo("working");
    return answers;
  }

  /** tasks/update: answers to questions still open are taken; any other key is ignored. */
  answer(responses: Record<string, unknown>): void {
    let taken = false;
    for (const [key, response] of Object.entries(responses)) {
      const request = this.inputRequests.get(key);
      if (!request || !fitsMethod(request.method, response)) continue;
      this.inputRequests.delete(key);
      this.#answers.set(key, response);
      taken = true;
    }
    if (!taken) return;
    this.lastUpdatedAt = Date.now();
    // Some questions still open: the task stays input_required, with fewer of them to tell.
    if (this.inputRequests.size > 0) this.changed(this);
    this.#wake?.();
  }

  /** 2025-11-25: the task is input_required while a question of its work waits for the client. */
  async asking<T>(question: () => Promise<T>): Promise<T> {
    this.#legacyQuestions++;
    this.moveTo("input_required");
    try {
      return await question();
    } finally {
      if (--this.#legacyQuestions === 0) this.moveTo("working");
    }
  }
}

export class TaskStore {
  /** In order of creation. */
  readonly #tasks = new Map<string, Task>();

  constructor(
    readonly limit = MAX_TASKS,
    /** Told of every status change (status notifications). */
    readonly onChange: (task: Task) => void = () => {},
  ) {}

  get size(): number {
    return this.#tasks.size;
  }

  /** Whether a new task fits, dropping the oldest finished one if that makes room. */
  #room(): boolean {
    if (this.#tasks.size < this.limit) return true;
    for (const task of this.#tasks.values()) {
      if (task.terminal) {
        this.#drop(task);
        return true;
      }
    }
    return false;
  }

  /** A new working task, or null when the scope holds as many running tasks as it may. */
  create(era: Era, ttlMs: number): Task | null {
    if (!this.#room()) return null;
    const task = new Task(era, ttlMs, (t) => this.onChange(t));
    this.#tasks.set(task.id, task);
    task.timer = setTimeout(() => this.#expire(task), ttlMs);
    (task.timer as { unref?: () => void }).unref?.();
    return task;
  }

  get(id: unknown): Task | undefined {
    return typeof id === "string" ? this.#tasks.get(id) : undefined;
  }

  /** Newest first. */
  list(): Task[] {
    return [...this.#tasks.values()].reverse();
  }

  /** Asks the work to stop and marks the task cancelled (terminal tasks are left as they are). */
  cancel(task: Task, message = "cancelled by the client"): void {
    if (task.terminal) return;
    task.moveTo("cancelled", message);
    task.stop("cancelled");
  }

  #expire(task: Task): void {
    if (!task.terminal) {
      task.moveTo("cancelled", "the task's ttl ran out");
      task.stop("cancelled");
    }
    this.#drop(task);
  }

  #drop(task: Task): void {
    clearTimeout(task.timer);
    this.#tasks.delete(task.id);
  }

  /** Shutdown: every running task is stopped; nothing is kept. */
  close(): void {
    for (const task of this.#tasks.values()) {
      if (!task.terminal) {
        task.moveTo("cancelled", "the server shut down");
        task.stop("shutdown");
      }
      clearTimeout(task.timer);
    }
    this.#tasks.clear();
  }
}

/** What a request's failure becomes on a failed task: the error the request would have had. */
export function taskError(error: unknown): TaskError {
  if (error instanceof RpcError) {
    return {
      code: error.code,
      message: error.message,
      ...(error.data === undefined ? {} : { data: error.data }),
    };
  }
  return {
    code: INTERNAL_ERROR,
    message: "Internal error while running the task; the server's stderr has the details",
  };
}

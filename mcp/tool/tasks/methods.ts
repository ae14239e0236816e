/**
 * The tasks methods and their wire shapes in each era. 2025-11-25: tasks/get, tasks/result
 * (waits for the end, then answers what the request would have), tasks/list (newest first, in
 * pages), tasks/cancel (answers the cancelled task; a finished one is refused). 2026-07-28:
 * tasks/get (the result, error or questions inline), tasks/update (answers to the questions) and
 * tasks/cancel, both acknowledged empty; a request must declare the extension to use them.
 */
import {
  INVALID_PARAMS,
  isPlainObject,
  METHOD_NOT_FOUND,
  MISSING_CLIENT_CAPABILITY,
  type Params,
  RpcError,
} from "../../wire/jsonrpc.ts";
import type { Call } from "../call.ts";
import { pageOf } from "../../wire/pages.ts";
import { features, META_RELATED_TASK } from "../../wire/versions.ts";
import { POLL_INTERVAL_MS, type Task, type TaskStore } from "./store.ts";

export const TASKS_EXTENSION = "io.modelcontextprotocol/tasks";

/** Whether this request may get or use tasks: a 2026-07-28 one that declared the extension. */
export function declaresTasks(call: Call): boolean {
  const extensions = call.clientCapabilities.extensions;
  return isPlainObject(extensions) && isPlainObject(extensions[TASKS_EXTENSION]);
}

export function missingTasksExtension(what: string): RpcError {
  return new RpcError(
    MISSING_CLIENT_CAPABILITY,
    `Missing client capability: ${what} needs the ${TASKS_EXTENSION} extension; declare it in _meta["io.modelcontextprotocol/clientCapabilities"].extensions`,
    { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
  );
}

/** A task as each era writes it. */
export function describeTask(task: Task): Record<string, unknown> {
  const described: Record<string, unknown> = { taskId: task.id, status: task.status };
  if (task.statusMessage) described.statusMessage = task.statusMessage;
  described.createdAt = new Date(task.createdAt).toISOString();
  described.lastUpdatedAt = new Date(task.lastUpdatedAt).toISOString();
  if (task.era === "legacy") {
    described.ttl = task.ttlMs;
    described.pollInterval = POLL_INTERVAL_MS;
  } else {
    described.ttlMs = task.ttlMs;
    described.pollIntervalMs = POLL_INTERVAL_MS;
  }
  return described;
}

/** 2026-07-28 tasks/get and notifications: the task with what its status carries inline. */
export function detailedTask(task: Task): Record<string, unknown> {
  const described = describeTask(task);
  if (task.status === "input_required") {
    described.inputRequests = Object.fromEntries(task.inputRequests);
  } else if (task.status === "completed" && task.result) {
    described.result = task.result;
  } else if (task.status === "failed") {
    if (task.error) described.error = task.error;
    else if (task.result) described.result = task.result;
  }
  return described;
}

/** The reply to the tools/call that made the task. */
export function createdResult(task: Task): Record<string, unknown> {
  if (task.era === "legacy") return { task: describeTask(task) };
  return { resultType: "task", ...describeTask(task) };
}

/** The store a request's tasks live in: the connection's (legacy) or the process's (modern). */
export type StoreOf = (call: Call) => TaskStore;

function taskOf(params: Params, store: TaskStore, method: string): Task {
  if (typeof params.taskId !== "string") {
    throw new RpcError(INVALID_PARAMS, `Invalid params: ${method} needs params.taskId (a string)`);
  }
  const task = store.get(params.taskId);
  if (!task) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: no such task (unknown, or expired after its ttl); start the call again",
    );
  }
  return task;
}

/** Who may use tasks at all: a 2025-11-25 session, or a 2026-07-28 request that declared them. */
function allowed(call: Call, method: string): void {
  if (call.era === "modern") {
    if (!declaresTasks(call)) throw missingTasksExtension(method);
  } else if (!features.tasks(call.version)) {
    throw new RpcError(
      METHOD_NOT_FOUND,
      `Method not found: ${method} arrived in MCP 2025-11-25; this session speaks ${call.version}`,
    );
  }
}

export function getTask(params: Params, call: Call, store: TaskStore): Record<string, unknown> {
  allowed(call, "tasks/get");
  const task = taskOf(params, store, "tasks/get");
  return call.era === "legacy" ? describeTask(task) : detailedTask(task);
}

export function listTasks(
  params: Params,
  call: Call,
  store: TaskStore,
  pageSize: number,
): Record<string, unknown> {
  allowed(call, "tasks/list");
  const page = pageOf(store.list(), params.cursor, pageSize, "tasks");
  const result: Record<string, unknown> = { tasks: page.items.map(describeTask) };
  if (page.nextCursor) result.nextCursor = page.nextCursor;
  return result;
}

export function cancelTask(params: Params, call: Call, store: TaskStore): Record<string, unknown> {
  allowed(call, "tasks/cancel");
  const task = taskOf(params, store, "tasks/cancel");
  if (call.era === "modern") {
    store.cancel(task);
    return {};
  }
  if (task.terminal) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: task ${task.id} already ended (${task.status}); there is nothing to cancel`,
    );
  }
  store.cancel(task);
  return describeTask(task);
}

export function updateTask(params: Params, call: Call, store: TaskStore): Record<string, unknown> {
  allowed(call, "tasks/update");
  const task = taskOf(params, store, "tasks/update");
  if (!isPlainObject(params.inputResponses)) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: tasks/update needs params.inputResponses (an object)",
    );
  }
  task.answer(params.inputResponses);
  return {};
}

/**
 * 2025-11-25 tasks/result: waits for the task to end (or this request to be cancelled), then
 * answers what the tools/call would have: its result, or its error. While it waits, the task's
 * questions and progress travel on its stream.
 */
export async function taskResult(
  params: Params,
  call: Call,
  store: TaskStore,
): Promise<Record<string, unknown>> {
  allowed(call, "tasks/result");
  const task = taskOf(params, store, "tasks/result");
  if (!task.terminal) {
    task.relatedRequest = call.id;
    const stopped = new Promise<void>((resolve) =>
      call.signal.addEventListener("abort", () => resolve(), { once: true })
    );
    try {
      await Promise.race([task.done, stopped]);
    } finally {
      if (task.relatedRequest === call.id) task.relatedRequest = undefined;
    }
    if (!task.terminal) return {};
  }
  if (task.error) throw new RpcError(task.error.code, task.error.message, task.error.data);
  if (!task.result) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: task ${task.id} was ${task.status}; it has no result`,
    );
  }
  const meta = isPlainObject(task.result._meta) ? task.result._meta : {};
  return { ...task.result, _meta: { ...meta, [META_RELATED_TASK]: { taskId: task.id } } };
}

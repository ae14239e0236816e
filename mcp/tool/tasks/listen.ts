/**
 * The tasks part of a 2026-07-28 subscriptions/listen: `notifications.taskIds` asks for
 * notifications/tasks about those tasks. Only a request that declared the tasks extension may ask
 * (-32021 otherwise). The acknowledgement lists the tasks that will be told: those of the
 * process's store (an unknown id, an expired one or a legacy session's is left out), each with
 * room for one more listener. The stream then carries each granted task's state as it is now,
 * and every change after, each the DetailedTask tasks/get would answer at that moment, ending
 * with its terminal one.
 */
import { INVALID_PARAMS, type Params, RpcError } from "../../wire/jsonrpc.ts";
import type { Call } from "../call.ts";
import { declaresTasks, missingTasksExtension } from "./methods.ts";
import { MAX_TASKS, type Task, type TaskStore } from "./store.ts";
import type { TaskListener, TaskWatchers } from "./watchers.ts";

/**
 * Task ids one subscriptions/listen may name: a store never holds more tasks than this, so a
 * longer list cannot name more live tasks, and it is refused before anything is built from it.
 */
export const MAX_LISTEN_TASK_IDS = MAX_TASKS;

/**
 * `notifications.taskIds`, checked: undefined when the client did not ask. Throws -32021 for a
 * request without the tasks extension, -32602 for anything but a list of at most
 * MAX_LISTEN_TASK_IDS strings.
 */
export function requestedTaskIds(asked: Params, call: Call): string[] | undefined {
  const ids = asked.taskIds;
  if (ids === undefined) return undefined;
  if (!declaresTasks(call)) throw missingTasksExtension("notifications.taskIds");
  if (!Array.isArray(ids)) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: notifications.taskIds must be an array of task ids (strings)",
    );
  }
  if (ids.length > MAX_LISTEN_TASK_IDS) {
    throw new RpcError(
      INVALID_PARAMS,
      `Invalid params: notifications.taskIds names ${ids.length} tasks; one subscription may name at most ${MAX_LISTEN_TASK_IDS}`,
    );
  }
  if (!ids.every((id) => typeof id === "string")) {
    throw new RpcError(
      INVALID_PARAMS,
      "Invalid params: notifications.taskIds must be an array of task ids (strings)",
    );
  }
  return [...new Set(ids as string[])];
}

/** One stream's tasks: the ones granted, their state now, then their changes until stop(). */
export class TaskStream {
  /** What the acknowledgement lists, in the order the client named them. */
  readonly granted: Task[];
  readonly #watched: string[] = [];

  constructor(
    ids: readonly string[],
    store: TaskStore,
    readonly watchers: TaskWatchers,
    readonly deliver: TaskListener,
  ) {
    this.granted = [];
    for (const id of ids) {
      const task = store.get(id);
      // An ended task needs no listener: it is told once, now.
      if (task && (task.terminal || watchers.hasRoom(task))) this.granted.push(task);
    }
  }

  get grantedIds(): string[] {
    return this.granted.map((task) => task.id);
  }

  /**
   * Once the acknowledgement is on its way: each granted task as it is now (a task may have
   * changed, even ended, between the reply that created it and this stream), then each change.
   */
  start(): void {
    for (const task of this.granted) {
      this.deliver(task);
      if (!task.terminal && this.watchers.watch(task, this.deliver)) this.#watched.push(task.id);
    }
  }

  /** The stream ended: its listeners go. */
  stop(): void {
    for (const id of this.#watched.splice(0)) this.watchers.unwatch(id, this.deliver);
  }
}

/**
 * Who wants to hear of which 2026-07-28 task (subscriptions/listen with notifications.taskIds).
 * The process's task store tells every change here, and each listener of that task gets it. A
 * task that ended changes no more, so its listeners are dropped once they heard the end. Bounded:
 * a task has at most MAX_LISTENERS_PER_TASK listeners, and a store holds at most MAX_TASKS tasks.
 */
import type { Task } from "./store.ts";

/** Streams that may listen to one task at once; past it, the task is not acknowledged. */
export const MAX_LISTENERS_PER_TASK = 32;

export type TaskListener = (task: Task) => void;

export class TaskWatchers {
  readonly #byTask = new Map<string, Set<TaskListener>>();

  /** Whether one more listener fits on `task`. */
  hasRoom(task: Task): boolean {
    return (this.#byTask.get(task.id)?.size ?? 0) < MAX_LISTENERS_PER_TASK;
  }

  /** Starts telling `listener` of each change of `task`; false when it has no room left. */
  watch(task: Task, listener: TaskListener): boolean {
    let listeners = this.#byTask.get(task.id);
    if (!listeners) this.#byTask.set(task.id, listeners = new Set());
    if (listeners.size >= MAX_LISTENERS_PER_TASK) return false;
    listeners.add(listener);
    return true;
  }

  unwatch(taskId: string, listener: TaskListener): void {
    const listeners = this.#byTask.get(taskId);
    if (!listeners) return;
    listeners.delete(listener);
    if (listeners.size === 0) this.#byTask.delete(taskId);
  }

  /** A task changed: its listeners hear it; after its last change (terminal) they are dropped. */
  changed(task: Task): void {
    const listeners = this.#byTask.get(task.id);
    if (!listeners) return;
    if (task.terminal) this.#byTask.delete(task.id);
    for (const listener of [...listeners]) listener(task);
  }

  /** Listeners of every task together (for tests and diagnostics). */
  get size(): number {
    let n = 0;
    for (const listeners of this.#byTask.values()) n += listeners.size;
    return n;
  }
}

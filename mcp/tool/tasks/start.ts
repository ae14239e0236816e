/**
 * Whether a tools/call becomes a task, and turning it into one. 2025-11-25: the client asks with
 * `params.task` and gets the task at once. 2026-07-28: the server decides; a request that declared
 * the extension, calling a tool that allows tasks, gets its result directly when the tool is done
 * within a moment, and a task otherwise (at once for a tool that requires one). From then on the
 * work runs on past the reply: tasks/cancel, the ttl or shutdown stop it, never a cancel of the
 * request that created it (that request was answered).
 */
import { quoted } from "../../../config/quote.ts";
import type { Call } from "../call.ts";
import {
  INTERNAL_ERROR,
  isPlainObject,
  METHOD_NOT_FOUND,
  type Params,
  RpcError,
} from "../../wire/jsonrpc.ts";
import type { Logger } from "../../wire/log.ts";
import type { TaskSupport } from "../tool.ts";
import { features } from "../../wire/versions.ts";
import { createdResult, declaresTasks, missingTasksExtension } from "./methods.ts";
import { DEFAULT_TTL_MS, taskError, type TaskStore, ttlFor } from "./store.ts";

/** How long a 2026-07-28 call may run before it turns into a task. */
export const TASK_AFTER_MS = 300;

export interface TaskPlan {
  ttlMs: number;
  /** How long to wait for a direct result first (0: a task at once). */
  graceMs: number;
}

/** How this call runs: null for directly, else as a task; throws when it cannot run at all. */
export function taskPlan(
  support: TaskSupport | undefined,
  name: string,
  params: Params,
  call: Call,
): TaskPlan | null {
  const allows = support === "optional" || support === "required";
  if (call.era === "modern") {
    // A legacy `params.task` means nothing here: the tool's registration decides.
    if (!declaresTasks(call)) {
      if (support === "required") throw missingTasksExtension(`the tool ${quoted(name)}`);
      return null;
    }
    if (!allows) return null;
    return { ttlMs: DEFAULT_TTL_MS, graceMs: support === "required" ? 0 : TASK_AFTER_MS };
  }
  if (!features.tasks(call.version)) return null;
  if (isPlainObject(params.task)) {
    if (!allows) {
      throw new RpcError(
        METHOD_NOT_FOUND,
        `The tool ${
          quoted(name)
        } cannot run as a task (its execution.taskSupport is forbidden); call it without params.task`,
      );
    }
    return { ttlMs: ttlFor(params.task.ttl), graceMs: 0 };
  }
  if (support === "required") {
    throw new RpcError(
      METHOD_NOT_FOUND,
      `The tool ${
        quoted(name)
      } runs only as a task (its execution.taskSupport is required); call it with params.task`,
    );
  }
  return null;
}

/**
 * Runs `work` as a task of `store`: the reply is the task (or, for a 2026-07-28 call done within
 * its grace, the result itself), and the outcome goes to the task when the work ends.
 */
export async function runAsTask(
  store: TaskStore,
  call: Call,
  plan: TaskPlan,
  work: () => Promise<Record<string, unknown>>,
  logger: Logger,
): Promise<Record<string, unknown>> {
  let running: Promise<Record<string, unknown>> | undefined;
  if (plan.graceMs > 0) {
    running = work();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<"late">((resolve) =>
      timer = setTimeout(() => resolve("late"), plan.graceMs)
    );
    const first = await Promise.race([
      running.then(() => "done" as const, () => "done" as const),
      late,
    ]);
    clearTimeout(timer);
    // Done in time, stopped by the client, or no room for a task: the call stays direct.
    if (first === "done" || call.reason) return running;
  }
  const task = store.create(call.era, plan.ttlMs);
  if (!task) {
    if (running) return running;
    throw new RpcError(
      INTERNAL_ERROR,
      `Too many tasks (${store.limit}) are running; wait for one to finish or cancel one with tasks/cancel`,
    );
  }
  call.task = task;
  task.stop = (why) => call.abort(why);
  running ??= work();
  running.then(
    (result) => {
      if (result.resultType === "input_required") {
        task.finish({
          error: {
            code: INTERNAL_ERROR,
            message: "the tool asked a question as it became a task; call it again",
          },
        });
      } else task.finish({ result });
    },
    (error) => {
      if (!(error instanceof RpcError)) {
        logger.log(
          "error",
          `task ${task.id} (${call.label}) failed: ${
            error instanceof Error ? error.stack ?? error.message : String(error)
          }`,
        );
      }
      task.finish({ error: taskError(error) });
    },
  );
  return createdResult(task);
}

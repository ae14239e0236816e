import { join } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { refuseOtherFields } from "./_lib/action_fields.ts";
import { projectOf, tasksFileName } from "./_lib/project_state.ts";
import { readState, withLock, writeState } from "../_lib/state.ts";
import { checklist, countByStatus, summary } from "./_lib/task_checklist.ts";
import {
  addStep,
  asTaskList,
  type Change,
  complete,
  createTask,
  emptyTaskList,
  findTask,
  MAX_STEPS,
  MAX_TASKS,
  MAX_TEXT_CHARS,
  remove,
  requiredLine,
  shownId,
  start,
  switchTo,
  type TaskList,
} from "./_lib/task_list.ts";
import { KEEPS_WORKFLOW_STATE } from "../_lib/declarations/annotations.ts";

const STATUS = { enum: ["pending", "in_progress", "done"] } as const;

/** The fields each action takes besides `action`. */
const FIELDS = {
  create: ["text"],
  add: ["text", "task_id"],
  start: ["task_id", "step_id"],
  complete: ["task_id", "step_id"],
  switch: ["task_id"],
  remove: ["task_id", "step_id"],
  list: ["task_id"],
  pending: ["task_id"],
};

export default defineTool({
  name: "tasks",
  title: "Task list",
  description:
    "Your task list for this project, shared by your sessions and kept across restarts: plan " +
    'multi-step work and track it. "create" a task (the first becomes current), "add" a step to ' +
    '`task_id` (default: the current task), "start"/"complete" a task or a step (`step_id`), ' +
    '"switch" the current task, "remove", "list", "pending" (optional `task_id`). Ids are never ' +
    "reused: tasks t1, t2, …; steps t1.1, …. " +
    `At most ${MAX_TASKS} tasks of ${MAX_STEPS} steps.`,
  annotations: KEEPS_WORKFLOW_STATE,
  input: {
    type: "object",
    properties: {
      action: {
        enum: ["create", "add", "start", "complete", "list", "pending", "switch", "remove"],
      },
      text: {
        type: "string",
        minLength: 1,
        maxLength: MAX_TEXT_CHARS,
        description: "create: the task's title; add: the step's text. One line.",
      },
      task_id: { type: "string", minLength: 1, description: "A task's id, like t3." },
      step_id: { type: "string", minLength: 1, description: "A step's id, like t3.2." },
    },
    required: ["action"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      id: { type: ["string", "null"] },
      current: { type: ["string", "null"] },
      total: { type: "integer" },
      counts: {
        type: "object",
        properties: {
          pending: { type: "integer" },
          in_progress: { type: "integer" },
          done: { type: "integer" },
        },
        required: ["pending", "in_progress", "done"],
        additionalProperties: false,
      },
      tasks: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            title: { type: "string" },
            status: STATUS,
            current: { type: "boolean" },
            steps: {
              type: "array",
              items: {
                type: "object",
                properties: { id: { type: "string" }, text: { type: "string" }, status: STATUS },
                required: ["id", "text", "status"],
                additionalProperties: false,
              },
            },
          },
          required: ["id", "title", "status", "current", "steps"],
          additionalProperties: false,
        },
      },
      omitted: { type: "integer" },
    },
    required: ["id", "current", "total", "counts", "tasks", "omitted"],
    additionalProperties: false,
  },

  run: runTaskAction,
});

/** What the model asked tasks for. */
interface TasksArgs {
  action: "create" | "add" | "start" | "complete" | "list" | "pending" | "switch" | "remove";
  text?: string;
  task_id?: string;
  step_id?: string;
}

/** Carries out the tasks action asked on this session's task list. */
async function runTaskAction(args: TasksArgs, ctx: ToolContext) {
  if (args.action === "create" && args.task_id !== undefined) {
    throw new ToolError(
      `create makes a new task; to add a step to ${shownId(args.task_id)}, use action "add"`,
    );
  }
  refuseOtherFields(args, FIELDS);
  const file = join((await projectOf(ctx)).dir, tasksFileName(ctx.session));
  const load = async () => asTaskList(await readState(file, emptyTaskList()), file);
  const action = args.action;
  if (action === "list" || action === "pending") {
    const list = await load();
    const open = action === "pending";
    const tasks = args.task_id === undefined ? list.tasks : [findTask(list, args.task_id)];
    const shown = checklist(list, tasks, open);
    const empty = open && shown.tasks.length === 0 && list.tasks.length > 0
      ? "Nothing pending: every task is done."
      : "";
    return result(list, null, [summary(list), shown.text || empty], shown);
  }
  // Read, change and write under the project's lock: another server may be doing the same.
  const { list, change } = await withLock(file, async () => {
    const list = await load();
    const change = apply(list, action, args);
    await writeState(file, list);
    return { list, change };
  });
  const shown = checklist(list, change.task ? [change.task] : []);
  return result(list, change.id, [change.message, shown.text, summary(list)], shown);
}

function apply(
  list: TaskList,
  action: "create" | "add" | "start" | "complete" | "switch" | "remove",
  args: { text?: string; task_id?: string; step_id?: string },
): Change {
  switch (action) {
    case "create":
      return createTask(list, requiredLine(args.text, "create"));
    case "add":
      return addStep(list, args.task_id, requiredLine(args.text, "add"));
    case "start":
      return start(list, args.task_id, args.step_id);
    case "complete":
      return complete(list, args.task_id, args.step_id);
    case "switch":
      return switchTo(list, args.task_id);
    case "remove":
      return remove(list, args.task_id, args.step_id);
  }
}

function result(
  list: TaskList,
  id: string | null,
  parts: string[],
  shown: ReturnType<typeof checklist>,
) {
  return {
    content: parts.filter(Boolean).join("\n\n"),
    structured: {
      id,
      current: list.current,
      total: list.tasks.length,
      counts: countByStatus(list),
      tasks: shown.tasks,
      omitted: shown.omitted,
    },
  };
}

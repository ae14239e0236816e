/**
 * An agent's task list as tasks.json holds it, and the changes the tasks tool makes to it: tasks
 * with steps, a current task, and short ids (t3, t3.2) that are never given out twice, so an id
 * the model remembers still means the same thing later. No disk here.
 */
import { ToolError } from "../../../mcp/tool/mod.ts";
import { oneLine } from "../../_lib/text/one_line.ts";
import { quoted } from "../../../config/quote.ts";

export type Status = "pending" | "in_progress" | "done";

export interface Step {
  id: string;
  text: string;
  status: Status;
}

export interface Task {
  id: string;
  title: string;
  status: Status;
  steps: Step[];
  /** The number the next step's id gets: the ids of removed steps stay retired. */
  nextStep: number;
}

export interface TaskList {
  /** The number the next task's id gets. */
  nextTask: number;
  current: string | null;
  tasks: Task[];
}

/** Bounds that keep the file and every result small. */
export const MAX_TASKS = 500;
export const MAX_STEPS = 50;

/** What one action did, told in a sentence, with the id it created or changed. */
export interface Change {
  id: string;
  message: string;
  /** The task to show after the change; absent when it was removed. */
  task?: Task;
}

export function emptyTaskList(): TaskList {
  return { nextTask: 1, current: null, tasks: [] };
}

/**
 * What tasks.json held, checked enough that a file edited by hand fails with a sentence rather
 * than in the middle of a change: its shape, and the ids every action relies on (unique, current
 * pointing at a task, counters past every id given out).
 */
export function asTaskList(value: unknown, file: string): TaskList {
  const problem = shapeProblem(value) ?? idProblem(value as TaskList);
  if (problem) {
    throw new ToolError(`${file} does not hold a valid task list (${problem}); fix or remove it`);
  }
  return value as TaskList;
}

function shapeProblem(value: unknown): string | undefined {
  const list = value as TaskList;
  const ok = typeof list === "object" && list !== null && Number.isSafeInteger(list.nextTask) &&
    (list.current === null || typeof list.current === "string") && Array.isArray(list.tasks) &&
    list.tasks.every((task) =>
      typeof task?.id === "string" && typeof task.title === "string" && isStatus(task.status) &&
      Number.isSafeInteger(task.nextStep) && Array.isArray(task.steps) &&
      task.steps.every((step) =>
        typeof step?.id === "string" && typeof step.text === "string" && isStatus(step.status)
      )
    );
  return ok ? undefined : "its fields are not those of a task list";
}

function idProblem(list: TaskList): string | undefined {
  const tasks = new Set<string>();
  for (const task of list.tasks) {
    const number = idNumber(task.id, "t");
    if (number === undefined) return `${quoted(task.id, MAX_SHOWN_ID)} is not a task id like t3`;
    if (tasks.has(task.id)) return `task id ${task.id} appears twice`;
    tasks.add(task.id);
    if (number >= list.nextTask) return `nextTask is ${list.nextTask}, but ${task.id} exists`;
    const steps = new Set<string>();
    for (const step of task.steps) {
      const stepNumber = idNumber(step.id, `${task.id}.`);
      if (stepNumber === undefined) return `step ${shownId(step.id)} is under ${task.id}`;
      if (steps.has(step.id)) return `step id ${step.id} appears twice`;
      steps.add(step.id);
      if (stepNumber >= task.nextStep) {
        return `nextStep of ${task.id} is ${task.nextStep}, but ${step.id} exists`;
      }
    }
  }
  if (list.current !== null && !tasks.has(list.current)) {
    return `the current task ${shownId(list.current)} is not in it`;
  }
}

/** The number in an id made of `prefix` and a number (t3: 3), or undefined. */
function idNumber(id: string, prefix: string): number | undefined {
  if (!id.startsWith(prefix)) return undefined;
  const digits = id.slice(prefix.length);
  return /^[1-9]\d{0,14}$/.test(digits) ? Number(digits) : undefined;
}

function isStatus(value: unknown): value is Status {
  return value === "pending" || value === "in_progress" || value === "done";
}

/** How much of an id the model passed an error echoes: ids are not length-checked. */
const MAX_SHOWN_ID = 40;

/** An id from the model, for a message: as it is when it has an id's form, else quoted and cut. */
export function shownId(id: string): string {
  return /^t\d{1,15}(\.\d{1,15})?$/.test(id) ? id : quoted(id, MAX_SHOWN_ID);
}

/** The most a title or a step holds (the input schema says so too). */
export const MAX_TEXT_CHARS = 300;

/** Titles and steps are one line each: the checklist stays a checklist. */
export function requiredLine(text: string | undefined, action: string): string {
  const line = oneLine(text ?? "", MAX_TEXT_CHARS);
  if (!line) {
    const what = action === "create" ? "the task's title" : "the step's text";
    throw new ToolError(`${action} needs \`text\`: ${what}`);
  }
  return line;
}

export function createTask(list: TaskList, title: string): Change {
  if (list.tasks.length >= MAX_TASKS) {
    throw new ToolError(
      `the list already holds ${MAX_TASKS} tasks, the most it keeps; remove finished ones ` +
        `(action "remove" with their task_id) first`,
    );
  }
  const task: Task = {
    id: `t${list.nextTask++}`,
    title,
    status: "pending",
    steps: [],
    nextStep: 1,
  };
  list.tasks.push(task);
  const becameCurrent = list.current === null;
  if (becameCurrent) list.current = task.id;
  return {
    id: task.id,
    task,
    message: `Created ${task.id}${becameCurrent ? " (now the current task)" : ""}.`,
  };
}

export function addStep(list: TaskList, taskId: string | undefined, text: string): Change {
  const task = taskId === undefined ? currentTask(list, "add") : findTask(list, taskId);
  if (task.steps.length >= MAX_STEPS) {
    throw new ToolError(
      `${task.id} already has ${MAX_STEPS} steps, the most a task keeps; remove some or split ` +
        "the task",
    );
  }
  const step: Step = { id: `${task.id}.${task.nextStep++}`, text, status: "pending" };
  task.steps.push(step);
  let message = `Added ${step.id} to ${task.id}.`;
  if (task.status === "done") {
    task.status = "in_progress";
    message += ` ${task.id} was done; it is open again.`;
  }
  return { id: step.id, task, message };
}

export function start(list: TaskList, taskId?: string, stepId?: string): Change {
  const { task, step } = target(list, "start", taskId, stepId);
  const item = step ?? task;
  const before = item.status;
  item.status = "in_progress";
  const reopened = step !== undefined && task.status === "done";
  if (step) task.status = "in_progress";
  list.current = task.id;
  const how = before === "in_progress"
    ? `${item.id} was already in progress`
    : before === "done"
    ? `Reopened ${item.id} (it was done); it is in progress`
    : `Started ${item.id}`;
  const also = step
    ? `; ${task.id} is ${reopened ? "open again, " : ""}in progress and current.`
    : " and it is the current task.";
  return { id: item.id, task, message: how + also };
}

export function complete(list: TaskList, taskId?: string, stepId?: string): Change {
  const { task, step } = target(list, "complete", taskId, stepId);
  if (step) {
    if (step.status === "done") {
      return { id: step.id, task, message: `${step.id} was already done.` };
    }
    step.status = "done";
    // Part of it is done, so the task is under way.
    if (task.status === "pending") task.status = "in_progress";
    const open = task.steps.filter((s) => s.status !== "done").length;
    const next = open === 0 && task.status !== "done"
      ? ` Every step of ${task.id} is done: complete ${task.id} once it is finished.`
      : "";
    return { id: step.id, task, message: `Completed ${step.id}.${next}` };
  }
  if (task.status === "done") return { id: task.id, task, message: `${task.id} was already done.` };
  task.status = "done";
  let message = `Completed ${task.id}.`;
  const open = task.steps.filter((s) => s.status !== "done").map((s) => s.id);
  if (open.length > 0) {
    message += ` ${open.length} of its steps ${open.length === 1 ? "was" : "were"} still open ` +
      `(${open.join(", ")}); they are left as they were.`;
  }
  if (list.current === task.id) {
    list.current = null;
    const next = list.tasks.find((t) => t.status !== "done");
    message += next
      ? ` No task is current now; next not done: ${next.id} ${next.title} (action "switch" or "start").`
      : " Every task is done.";
  }
  return { id: task.id, task, message };
}

export function switchTo(list: TaskList, taskId: string | undefined): Change {
  if (taskId === undefined) throw new ToolError("switch needs `task_id`: the task to make current");
  const task = findTask(list, taskId);
  list.current = task.id;
  const note = task.status === "done" ? " (it is done: start it to reopen it)" : "";
  return { id: task.id, task, message: `${task.id} is now the current task${note}.` };
}

export function remove(list: TaskList, taskId?: string, stepId?: string): Change {
  const { task, step } = target(list, "remove", taskId, stepId);
  if (step) {
    task.steps.splice(task.steps.indexOf(step), 1);
    return { id: step.id, task, message: `Removed ${step.id} from ${task.id}.` };
  }
  list.tasks.splice(list.tasks.indexOf(task), 1);
  if (list.current === task.id) list.current = null;
  const steps = task.steps.length;
  return {
    id: task.id,
    message: `Removed ${task.id}${
      steps ? ` and its ${steps} step${steps === 1 ? "" : "s"}` : ""
    }. Its id is not given out again.`,
  };
}

export function findTask(list: TaskList, id: string): Task {
  const task = list.tasks.find((t) => t.id === id);
  if (task) return task;
  const hint = /^t\d+\.\d+$/.test(id) ? " (it looks like a step id: pass it as step_id)" : "";
  throw new ToolError(`no task has the id ${quoted(id, MAX_SHOWN_ID)}${hint}; ${known(list)}`);
}

/** The task and step an action names: a step by step_id, else a task by task_id. */
function target(
  list: TaskList,
  action: string,
  taskId?: string,
  stepId?: string,
): { task: Task; step?: Step } {
  if (stepId !== undefined) {
    const owner = /^(t\d{1,15})\.\d{1,15}$/.exec(stepId)?.[1];
    if (!owner) {
      const hint = /^t\d+$/.test(stepId) ? " (it is a task id: pass it as task_id)" : "";
      throw new ToolError(
        `${quoted(stepId, MAX_SHOWN_ID)} is not a step id; step ids look like t2.1${hint}`,
      );
    }
    if (taskId !== undefined && taskId !== owner) {
      throw new ToolError(`step ${stepId} belongs to ${owner}, not to ${shownId(taskId)}`);
    }
    const task = findTask(list, owner);
    const step = task.steps.find((s) => s.id === stepId);
    if (!step) {
      const ids = task.steps.map((s) => s.id);
      throw new ToolError(
        `${task.id} has no step ${stepId}; ${
          ids.length ? `its steps are ${ids.join(", ")}` : "it has no steps"
        }`,
      );
    }
    return { task, step };
  }
  if (taskId !== undefined) return { task: findTask(list, taskId) };
  throw new ToolError(`${action} needs \`task_id\` (a task) or \`step_id\` (a step)`);
}

function currentTask(list: TaskList, action: string): Task {
  if (list.current !== null) return findTask(list, list.current);
  throw new ToolError(
    `${action} needs \`task_id\`: no task is current (make one current with action "switch")`,
  );
}

/** The ids there are, for an error message (the first few when there are many). */
function known(list: TaskList): string {
  if (list.tasks.length === 0) return 'the list is empty (add a task with action "create")';
  const ids = list.tasks.slice(0, 20).map((t) => t.id);
  const more = list.tasks.length > ids.length ? `, … (${list.tasks.length} in all)` : "";
  return `the tasks are ${ids.join(", ")}${more}`;
}

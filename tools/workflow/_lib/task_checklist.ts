/**
 * How a task list reads in results: a compact checklist (`[x]` done, `[~]` in progress, `[ ]`
 * pending, steps indented under their task) cut at a size a model reads at once, and the same
 * tasks as structured data.
 */
import type { Status, Step, Task, TaskList } from "./task_list.ts";

/** The checklist stops growing past this many characters; the rest is counted. */
const MAX_CHARS = 20_000;

const MARK: Record<Status, string> = { pending: "[ ]", in_progress: "[~]", done: "[x]" };

/** A task as results give it: whether it is current, and the steps shown. */
interface TaskView {
  id: string;
  title: string;
  status: Status;
  current: boolean;
  steps: Step[];
}

interface Checklist {
  text: string;
  tasks: TaskView[];
  /** Tasks left out to keep the result small. */
  omitted: number;
}

/**
 * The checklist of `tasks`; with `openOnly`, what is not done (tasks and steps), each task
 * saying how many of its steps are done.
 */
export function checklist(list: TaskList, tasks: Task[], openOnly = false): Checklist {
  const shown = openOnly ? tasks.filter((t) => t.status !== "done") : tasks;
  const views: TaskView[] = [];
  const blocks: string[] = [];
  let size = 0;
  for (const task of shown) {
    const view: TaskView = {
      id: task.id,
      title: task.title,
      status: task.status,
      current: list.current === task.id,
      // Only the fields results declare: a hand-edited file may hold more.
      steps: (openOnly ? task.steps.filter((s) => s.status !== "done") : task.steps)
        .map(({ id, text, status }) => ({ id, text, status })),
    };
    const block = render(view, task).join("\n");
    if (views.length > 0 && size + block.length > MAX_CHARS) break;
    views.push(view);
    blocks.push(block);
    size += block.length + 1;
  }
  const omitted = shown.length - views.length;
  if (omitted > 0) {
    blocks.push(
      `[${omitted} more task${omitted === 1 ? "" : "s"} not shown: pass task_id to see one, ` +
        "or remove finished tasks]",
    );
  }
  return { text: blocks.join("\n"), tasks: views, omitted };
}

/** One line saying where the list stands, e.g. "4 tasks: 1 done, 1 in progress, 2 pending". */
export function summary(list: TaskList): string {
  if (list.tasks.length === 0) return 'No tasks. Add one with action "create" and `text`.';
  const counts = countByStatus(list);
  const parts = [
    `${counts.done} done`,
    `${counts.in_progress} in progress`,
    `${counts.pending} pending`,
  ];
  const current = list.tasks.find((t) => t.id === list.current);
  const n = list.tasks.length;
  return `${n} task${n === 1 ? "" : "s"}: ${parts.join(", ")}; ` +
    (current ? `current: ${current.id} ${current.title}.` : "no current task.");
}

export function countByStatus(list: TaskList): Record<Status, number> {
  const counts: Record<Status, number> = { pending: 0, in_progress: 0, done: 0 };
  for (const task of list.tasks) counts[task.status]++;
  return counts;
}

function render(view: TaskView, task: Task): string[] {
  const notes: string[] = [];
  if (view.current) notes.push("current");
  if (task.steps.length > 0) {
    const done = task.steps.filter((s) => s.status === "done").length;
    notes.push(`${done}/${task.steps.length} steps done`);
  }
  const head = `${MARK[view.status]} ${view.id} ${view.title}${
    notes.length ? ` (${notes.join(", ")})` : ""
  }`;
  return [head, ...view.steps.map((s) => `  ${MARK[s.status]} ${s.id} ${s.text}`)];
}

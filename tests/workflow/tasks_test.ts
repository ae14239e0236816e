/** The tasks tool in-process: ids, the current task, the checklist, errors, bounds, the file. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { projectStateDir, writeState } from "../../tools/_lib/state.ts";
import tasks from "../../tools/workflow/tasks.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { currentStateDir, scratchStateDir } from "../helpers/state_dir.ts";

scratchStateDir();

/** A fresh project, and a way to call tasks in it. */
function project() {
  const root = scratchDir("toolhost-tasks-");
  const run = (args: Record<string, unknown>) => callInRoots(tasks, [root], args);
  /** Calls that must succeed; returns their text. */
  const ok = async (args: Record<string, unknown>) => {
    const { result, text } = await run(args);
    assert.equal(result.isError, undefined, text);
    return text;
  };
  /** Calls that must fail; returns the message. */
  const fails = async (args: Record<string, unknown>) => {
    const { result, text } = await run(args);
    assert.equal(result.isError, true, text);
    return text;
  };
  return { root, run, ok, fails };
}

test("tasks get short ids, the first becomes current, and list is a compact checklist", async () => {
  const p = project();
  assert.equal(
    await p.ok({ action: "create", text: "Set up CI" }),
    "Created t1 (now the current task).\n\n[ ] t1 Set up CI (current)\n\n" +
      "1 task: 0 done, 0 in progress, 1 pending; current: t1 Set up CI.",
  );
  await p.ok({ action: "create", text: "Write   docs\n(user guide)" });
  assert.match(await p.ok({ action: "add", text: "Outline" }), /^Added t1\.1 to t1\./);
  await p.ok({ action: "add", task_id: "t2", text: "Draft" });
  await p.ok({ action: "add", task_id: "t2", text: "Review" });
  await p.ok({ action: "complete", task_id: "t1" });
  await p.ok({ action: "start", step_id: "t2.1" });
  const { text, data } = await p.run({ action: "list" });
  assert.equal(
    text,
    "2 tasks: 1 done, 1 in progress, 0 pending; current: t2 Write docs (user guide).\n\n" +
      "[x] t1 Set up CI (0/1 steps done)\n" +
      "  [ ] t1.1 Outline\n" +
      "[~] t2 Write docs (user guide) (current, 0/2 steps done)\n" +
      "  [~] t2.1 Draft\n" +
      "  [ ] t2.2 Review",
  );
  assert.deepEqual(data, {
    id: null,
    current: "t2",
    total: 2,
    counts: { pending: 0, in_progress: 1, done: 1 },
    tasks: [
      {
        id: "t1",
        title: "Set up CI",
        status: "done",
        current: false,
        steps: [{ id: "t1.1", text: "Outline", status: "pending" }],
      },
      {
        id: "t2",
        title: "Write docs (user guide)",
        status: "in_progress",
        current: true,
        steps: [
          { id: "t2.1", text: "Draft", status: "in_progress" },
          { id: "t2.2", text: "Review", status: "pending" },
        ],
      },
    ],
    omitted: 0,
  });
});

test("completing a task says which steps were still open and what is next", async () => {
  const p = project();
  await p.ok({ action: "create", text: "Ship" });
  await p.ok({ action: "create", text: "Announce" });
  await p.ok({ action: "add", text: "Build" });
  await p.ok({ action: "add", text: "Upload" });
  assert.match(
    await p.ok({ action: "complete", step_id: "t1.1" }),
    /^Completed t1\.1\.\n\n\[~\] t1 Ship \(current, 1\/2 steps done\)/,
  );
  assert.match(
    await p.ok({ action: "complete", step_id: "t1.2" }),
    /^Completed t1\.2\. Every step of t1 is done: complete t1 once it is finished\./,
  );
  await p.ok({ action: "add", text: "Tag" });
  assert.match(
    await p.ok({ action: "complete", task_id: "t1" }),
    /^Completed t1\. 1 of its steps was still open \(t1\.3\); they are left as they were\. No task is current now; next not done: t2 Announce/,
  );
  assert.match(await p.ok({ action: "complete", task_id: "t1" }), /^t1 was already done\./);
  const { data } = await p.run({ action: "list" });
  assert.equal(data.current, null);
});

test("pending shows only what is not done", async () => {
  const p = project();
  await p.ok({ action: "create", text: "A" });
  await p.ok({ action: "create", text: "B" });
  await p.ok({ action: "add", task_id: "t2", text: "B one" });
  await p.ok({ action: "add", task_id: "t2", text: "B two" });
  await p.ok({ action: "complete", step_id: "t2.1" });
  await p.ok({ action: "complete", task_id: "t1" });
  assert.equal(
    await p.ok({ action: "pending" }),
    "2 tasks: 1 done, 1 in progress, 0 pending; no current task.\n\n" +
      "[~] t2 B (1/2 steps done)\n  [ ] t2.2 B two",
  );
  await p.ok({ action: "complete", task_id: "t2" });
  assert.match(await p.ok({ action: "pending" }), /\n\nNothing pending: every task is done\.$/);
});

test("start makes a task current; switch changes the current task; adding defaults to it", async () => {
  const p = project();
  await p.ok({ action: "create", text: "A" });
  await p.ok({ action: "create", text: "B" });
  assert.match(
    await p.ok({ action: "start", task_id: "t2" }),
    /^Started t2 and it is the current task\.\n\n\[~\] t2 B \(current\)/,
  );
  assert.match(await p.ok({ action: "add", text: "step" }), /^Added t2\.1 to t2\./);
  assert.match(await p.ok({ action: "switch", task_id: "t1" }), /^t1 is now the current task\./);
  assert.match(await p.ok({ action: "add", text: "step" }), /^Added t1\.1 to t1\./);
  await p.ok({ action: "complete", task_id: "t2" });
  assert.match(
    await p.ok({ action: "start", step_id: "t2.1" }),
    /^Started t2\.1; t2 is open again, in progress and current\./,
  );
});

test("ids are never given out again after a remove", async () => {
  const p = project();
  await p.ok({ action: "create", text: "A" });
  await p.ok({ action: "create", text: "B" });
  await p.ok({ action: "add", task_id: "t2", text: "x" });
  await p.ok({ action: "add", task_id: "t2", text: "y" });
  assert.match(await p.ok({ action: "remove", step_id: "t2.2" }), /^Removed t2\.2 from t2\./);
  assert.match(await p.ok({ action: "add", task_id: "t2", text: "z" }), /^Added t2\.3 to t2\./);
  assert.match(
    await p.ok({ action: "remove", task_id: "t2" }),
    /^Removed t2 and its 2 steps\. Its id is not given out again\./,
  );
  assert.match(await p.ok({ action: "create", text: "C" }), /^Created t3\./);
  await p.ok({ action: "remove", task_id: "t1" });
  assert.match(await p.ok({ action: "create", text: "D" }), /^Created t4 \(now the current task\)/);
});

test("mistakes get sentences that say what to do", async () => {
  const p = project();
  assert.match(await p.fails({ action: "start", task_id: "t1" }), /the list is empty/);
  await p.ok({ action: "create", text: "A" });
  await p.ok({ action: "add", text: "a step" });
  assert.match(
    await p.fails({ action: "complete", task_id: "t9" }),
    /no task has the id "t9"; the tasks are t1/,
  );
  assert.match(await p.fails({ action: "complete", task_id: "t1.1" }), /pass it as step_id/);
  assert.match(await p.fails({ action: "start", step_id: "t1" }), /pass it as task_id/);
  assert.match(
    await p.fails({ action: "remove", step_id: "t1.7" }),
    /t1 has no step t1\.7; its steps are t1\.1/,
  );
  assert.match(
    await p.fails({ action: "start", task_id: "t2", step_id: "t1.1" }),
    /step t1\.1 belongs to t1, not to t2/,
  );
  assert.match(
    await p.fails({ action: "complete" }),
    /complete needs `task_id` \(a task\) or `step_id`/,
  );
  assert.match(await p.fails({ action: "create" }), /create needs `text`: the task's title/);
  assert.match(await p.fails({ action: "add", text: " \n " }), /add needs `text`: the step's text/);
  assert.match(await p.fails({ action: "switch" }), /switch needs `task_id`/);
  assert.match(
    await p.fails({ action: "create", task_id: "t1", text: "x" }),
    /to add a step to t1, use action "add"/,
  );
  await p.ok({ action: "remove", task_id: "t1" });
  assert.match(await p.fails({ action: "add", text: "x" }), /no task is current/);
});

test("the list is kept per project in tasks.json, and each project has its own", async () => {
  const a = project();
  const b = project();
  await a.ok({ action: "create", text: "only in a" });
  const saved = JSON.parse(
    readFileSync(join(await projectStateDir(currentStateDir(), a.root), "tasks.json"), "utf8"),
  );
  assert.equal(saved.tasks[0].title, "only in a");
  assert.match(await b.ok({ action: "list" }), /^No tasks\./);
});

test("parallel changes in one server lose nothing", async () => {
  const p = project();
  const made = await Promise.all(
    Array.from({ length: 20 }, (_, i) => p.run({ action: "create", text: `task ${i}` })),
  );
  const ids = made.map((m) => m.data.id);
  assert.equal(new Set(ids).size, 20);
  const { data } = await p.run({ action: "list" });
  assert.equal(data.total, 20);
});

test("a full list refuses new tasks, and a long list is cut with a count of the rest", async () => {
  const p = project();
  const title = "x".repeat(300);
  await writeState(join(await projectStateDir(currentStateDir(), p.root), "tasks.json"), {
    nextTask: 501,
    current: null,
    tasks: Array.from({ length: 500 }, (_, i) => ({
      id: `t${i + 1}`,
      title,
      status: "pending",
      steps: [],
      nextStep: 1,
    })),
  });
  assert.match(await p.fails({ action: "create", text: "one more" }), /already holds 500 tasks/);
  const { text, data } = await p.run({ action: "list" });
  assert.ok(text.length < 21_000, `${text.length} characters`);
  assert.equal(data.total, 500);
  assert.equal((data.tasks as unknown[]).length + (data.omitted as number), 500);
  assert.match(text, new RegExp(`\\[${data.omitted} more tasks not shown: pass task_id`));
  assert.match(await p.ok({ action: "list", task_id: "t500" }), /\n\n\[ \] t500 x{300}$/);
});

test("a tasks.json that is not a task list is reported, not overwritten", async () => {
  const p = project();
  const file = join(await projectStateDir(currentStateDir(), p.root), "tasks.json");
  await writeState(file, { tasks: "oops" });
  assert.match(
    await p.fails({ action: "create", text: "x" }),
    /does not hold a valid task list \(its fields are not those of a task list\); fix or remove it/,
  );
  assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), { tasks: "oops" });
  const step = { id: "t1.1", text: "x", status: "sort of" };
  await writeState(file, {
    nextTask: 2,
    current: null,
    tasks: [{ id: "t1", title: "x", status: "pending", steps: [step], nextStep: 2 }],
  });
  assert.match(await p.fails({ action: "list" }), /does not hold a valid task list/);
});

test("a hand-edited tasks.json with fields of its own still lists, and changes reply normally", async () => {
  const p = project();
  const file = join(await projectStateDir(currentStateDir(), p.root), "tasks.json");
  await writeState(file, {
    nextTask: 2,
    current: "t1",
    note: "mine",
    tasks: [{
      id: "t1",
      title: "A",
      status: "pending",
      owner: "me",
      steps: [{ id: "t1.1", text: "a step", status: "pending", estimate: "1h" }],
      nextStep: 2,
    }],
  });
  const { data } = await p.run({ action: "list" });
  assert.deepEqual(data.tasks, [{
    id: "t1",
    title: "A",
    status: "pending",
    current: true,
    steps: [{ id: "t1.1", text: "a step", status: "pending" }],
  }]);
  assert.match(await p.ok({ action: "complete", step_id: "t1.1" }), /^Completed t1\.1\./);
  assert.match(await p.ok({ action: "add", text: "another" }), /^Added t1\.2 to t1\./);
});

test("a tasks.json whose ids repeat or point nowhere is reported with what is wrong", async () => {
  const p = project();
  const file = join(await projectStateDir(currentStateDir(), p.root), "tasks.json");
  const task = (id: string, steps: string[] = [], nextStep = steps.length + 1) => ({
    id,
    title: id,
    status: "pending",
    steps: steps.map((s) => ({ id: s, text: s, status: "pending" })),
    nextStep,
  });
  const broken: [unknown, RegExp][] = [
    [{ nextTask: 3, current: null, tasks: [task("t1"), task("t1")] }, /task id t1 appears twice/],
    [
      { nextTask: 2, current: null, tasks: [task("t1", ["t1.1", "t1.1"], 2)] },
      /step id t1\.1 appears twice/,
    ],
    [{ nextTask: 2, current: "t7", tasks: [task("t1")] }, /the current task t7 is not in it/],
    [{ nextTask: 2, current: null, tasks: [task("t1", ["t2.1"])] }, /step t2\.1 is under t1/],
    [{ nextTask: 2, current: null, tasks: [task("t5")] }, /nextTask is 2, but t5 exists/],
    [{ nextTask: 2, current: null, tasks: [task("t1", ["t1.4"], 2)] }, /nextStep of t1 is 2/],
    [{ nextTask: 2, current: null, tasks: [task("one")] }, /"one" is not a task id/],
  ];
  for (const [value, problem] of broken) {
    await writeState(file, value);
    const text = await p.fails({ action: "list" });
    assert.match(text, problem);
    assert.match(text, /; fix or remove it/);
    assert.match(await p.fails({ action: "create", text: "x" }), problem);
    assert.deepEqual(JSON.parse(readFileSync(file, "utf8")), value);
  }
});

test("fields an action does not take are refused, by name", async () => {
  const p = project();
  await p.ok({ action: "create", text: "A" });
  assert.match(
    await p.fails({ action: "list", text: "x" }),
    /^action list takes no text; it takes task_id$/,
  );
  assert.match(
    await p.fails({ action: "create", text: "x", step_id: "t1.1" }),
    /^action create takes no step_id; it takes text$/,
  );
  assert.match(
    await p.fails({ action: "switch", task_id: "t1", step_id: "t1.1", text: "x" }),
    /^action switch takes no step_id or text; it takes task_id$/,
  );
  assert.match(await p.fails({ action: "complete", task_id: "t1", text: "x" }), /takes no text/);
  assert.match((await p.run({ action: "list" })).text, /^1 task: 0 done, 0 in progress, 1 pending/);
});

test("ids echoed in errors are cut to a readable length", async () => {
  const p = project();
  await p.ok({ action: "create", text: "A" });
  const long = `t${"9".repeat(5000)}`;
  for (
    const args of [
      { action: "complete", task_id: long },
      { action: "complete", step_id: `${long}.1` },
      { action: "complete", step_id: `t1.${"9".repeat(5000)}` },
      { action: "start", task_id: "t1", step_id: `${long}.1` },
      { action: "remove", step_id: "x".repeat(5000) },
      { action: "create", task_id: long, text: "x" },
    ]
  ) {
    const text = await p.fails(args);
    assert.ok(text.length < 300, `${text.length} characters: ${text.slice(0, 200)}`);
    assert.match(text, /…/);
  }
});

/**
 * The watches behind change notifications, called directly: each fires on a real change (made
 * in-process by the tools, or by another process) and stays silent once stopped.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  type PromptFamily,
  type ResourceTemplate,
  sortContributions,
  type Unwatch,
  type WatchContext,
} from "../../mcp/features/mod.ts";
import { processesOf } from "../../tools/shell/_lib/background.ts";
import { SessionMemory } from "../../mcp/tool/mod.ts";
import { projectStateDir } from "../../tools/_lib/state.ts";
import { type StartedWatch, WATCH_LIMITS } from "../../tools/_lib/watch/watch_files.ts";
import { planMode } from "../../tools/workflow/plan_mode.ts";
import planResource from "../../tools/workflow/plan_resource.ts";
import processOutput from "../../tools/shell/output_resources.ts";
import fileResource from "../../tools/files/file_resources.ts";
import tasksResource from "../../tools/workflow/task_resources.ts";
import skillContributions from "../../tools/skills/skill_resources.ts";
import tasks from "../../tools/workflow/tasks.ts";
import { toolModules } from "../../tools/mod.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { harness, initializeParams } from "../helpers/in_process.ts";
import { waitUntil } from "../helpers/processes.ts";
import { currentStateDir, scratchStateDir } from "../helpers/state_dir.ts";
import { defaultSettings } from "../../config/settings.ts";
import { posixOnly } from "../helpers/posix_only.ts";

/** The registry is what is tested here; the sandbox, through the binary (tests/e2e). */
const UNCONFINED = { confinement: { unconfined: "a unit test of resource watches" } };

scratchStateDir();

const [skillFiles, skillPrompts] = skillContributions as [ResourceTemplate, PromptFamily];

// Directories that do not exist yet are polled; a short interval keeps these tests fast.
const savedPollMs = WATCH_LIMITS.pollMs;
before(() => (WATCH_LIMITS.pollMs = 100));
after(() => (WATCH_LIMITS.pollMs = savedPollMs));

/** How long a change may take to be noticed before a test fails. */
const WITHIN_MS = 1500;

/** A watch's `changed`, counting its calls, and waits for the next one. */
function recorder() {
  let calls = 0;
  const waiting = new Set<() => void>();
  return {
    changed: () => {
      calls++;
      for (const wake of waiting) wake();
    },
    get calls() {
      return calls;
    },
    /** Resolves once there have been more than `seen` calls; fails after WITHIN_MS. */
    after(seen: number, what: string): Promise<void> {
      if (calls > seen) return Promise.resolve();
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiting.delete(wake);
          reject(new Error(`no change was noticed within ${WITHIN_MS} ms: ${what}`));
        }, WITHIN_MS);
        const wake = () => {
          if (calls <= seen) return;
          clearTimeout(timer);
          waiting.delete(wake);
          resolve();
        };
        waiting.add(wake);
      });
    },
    /** Resolves once no call came for 100 ms (the tail of a burst of events). */
    quiet(): Promise<void> {
      return quiet(this);
    },
  };
}

type Recorder = ReturnType<typeof recorder>;

/** Resolves once none of `recorders` was called for 100 ms (the tail of a burst of events). */
async function quiet(...recorders: { calls: number }[]): Promise<void> {
  const total = () => recorders.reduce((sum, r) => sum + r.calls, 0);
  for (let before = -1; before !== total();) {
    before = total();
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Does `change` and waits for `r` to notice it. */
async function noticed(r: Recorder, what: string, change: () => unknown): Promise<void> {
  const seen = r.calls;
  await change();
  await r.after(seen, what);
}

/**
 * Stops `stop`, then proves it silent: a change that `control` (a second watch on the same
 * thing, still running) notices is not noticed by `r`.
 */
async function silentAfterStop(
  r: Recorder,
  stop: Unwatch,
  control: Recorder,
  change: () => unknown,
): Promise<void> {
  stop();
  const calls = r.calls;
  await noticed(control, "the control watch", change);
  await control.quiet();
  assert.equal(r.calls, calls, "a stopped watch fired");
}

/** What a watch gets: `root` as the client's only root, and a log the test can check. */
function context(root: string): WatchContext & { logged: unknown[] } {
  const logged: unknown[] = [];
  return {
    config: defaultSettings(),
    state: { dir: currentStateDir() },
    roots: () => Promise.resolve([root]),
    session: new SessionMemory(),
    log: (_level, data) => logged.push(data),
    logged,
  };
}

/** Runs a shell script in another process, as another toolhost or a person's editor would. */
function otherProcess(script: string): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile("sh", ["-c", script], (error) => (error ? reject(error) : resolve()));
  });
}

const quote = (path: string) => `'${path.replaceAll("'", `'\\''`)}'`;

async function started(watch: Unwatch): Promise<Unwatch> {
  await (watch as StartedWatch).ready;
  return watch;
}

test("toolhost://tasks: the tasks tool, another process (atomic or in place), then silence", async () => {
  const root = scratchDir("toolhost-watch-");
  const ctx = context(root);
  const r = recorder();
  // The project's state directory does not exist yet: the poll sees it come.
  const stop = await started(tasksResource.watch!(ctx, r.changed));
  await noticed(
    r,
    "the first task",
    () => callInRoots(tasks, [root], { action: "create", text: "A" }),
  );
  await r.quiet();

  const file = join(await projectStateDir(currentStateDir(), root), "tasks.json");
  const control = recorder();
  const stopControl = await started(tasksResource.watch!(ctx, control.changed));
  const list = (text: string) =>
    JSON.stringify({ version: 1, next: 2, tasks: [{ id: "t1", text, status: "pending" }] });
  await noticed(r, "tasks.json replaced by another process", () =>
    otherProcess(
      `printf '%s' ${quote(list("B"))} > ${quote(`${file}.tmp`)} && ` +
        `mv ${quote(`${file}.tmp`)} ${quote(file)}`,
    ));
  await noticed(
    r,
    "tasks.json written in place by another process",
    () => otherProcess(`printf '%s' ${quote(list("C"))} > ${quote(file)}`),
  );
  await r.quiet();
  await silentAfterStop(r, stop, control, () => writeFileSync(file, list("D")));
  stopControl();
  assert.deepEqual(ctx.logged, []);
});

test("file:///: a file written in place, replaced, created; a path outside the roots is not watched", async () => {
  const root = scratchDir("toolhost-watch-");
  const ctx = context(root);
  const file = join(root, "notes.md");
  writeFileSync(file, "one");
  const r = recorder();
  const path = { path: file.slice(1) };
  const stop = await started(fileResource.watch!(path, ctx, r.changed));
  const control = recorder();
  const stopControl = await started(
    fileResource.watch!(path, ctx, control.changed) as StartedWatch,
  );
  await noticed(r, "written in place", () => writeFileSync(file, "two"));
  await noticed(r, "replaced by rename", () =>
    otherProcess(
      `printf three > ${quote(`${file}.tmp`)} && mv ${quote(`${file}.tmp`)} ${quote(file)}`,
    ));
  await noticed(r, "removed", () => rmSync(file));
  await noticed(r, "created again", () => writeFileSync(file, "four"));
  await r.quiet();
  await silentAfterStop(r, stop, control, () => writeFileSync(file, "five"));
  stopControl();

  const outside = recorder();
  const stopOutside = await started(
    fileResource.watch!({ path: "etc/hostname" }, ctx, outside.changed) as StartedWatch,
  );
  assert.match(String(ctx.logged.at(-1)), /will not be noticed: .*outside/);
  stopOutside();
});

test("toolhost://plan: enter, write, exit and another process's changes; the plan file is followed", async () => {
  const root = scratchDir("toolhost-watch-");
  const ctx = context(root);
  const plan = async (args: Record<string, unknown>) => {
    const { result, text } = await callInRoots(planMode, [root], args);
    assert.equal(result.isError, undefined, text);
  };
  const r = recorder();
  const stop = await started(planResource.watch!(ctx, r.changed));
  await noticed(r, "plan mode entered", () => plan({ action: "enter", goal: "G" }));
  await r.quiet();
  await noticed(r, "the plan written", () => plan({ action: "write", text: "# Plan\n\none" }));
  await r.quiet();
  const own = join(await projectStateDir(currentStateDir(), root), "plan.md");
  await noticed(
    r,
    "the plan file edited by another process",
    () => otherProcess(`printf 'two\\n' >> ${quote(own)}`),
  );
  await r.quiet();
  await noticed(r, "plan mode exited", () => plan({ action: "exit" }));
  await r.quiet();

  // Entered again with a plan file of the project's: that file is watched now.
  const named = join(root, "docs", "plan.md");
  await noticed(
    r,
    "plan mode entered again",
    () => plan({ action: "enter", goal: "H", plan_file: "docs/plan.md" }),
  );
  await r.quiet();
  await noticed(r, "the named plan file written", () => writeFileSync(named, "# Plan\n\nthree\n"));
  await r.quiet();

  const stateFile = join(await projectStateDir(currentStateDir(), root), "plan.json");
  await noticed(r, "plan.json replaced by another process (a reset)", () =>
    otherProcess(
      `printf '{"active":false}' > ${quote(`${stateFile}.tmp`)} && ` +
        `mv ${quote(`${stateFile}.tmp`)} ${quote(stateFile)}`,
    ));
  await r.quiet();

  const control = recorder();
  const stopControl = await started(planResource.watch!(ctx, control.changed));
  await silentAfterStop(r, stop, control, () => plan({ action: "enter", goal: "I" }));
  stopControl();
  await plan({ action: "reset" });
  assert.deepEqual(ctx.logged, []);
});

test(
  "process output: its output and its end; the list: starts and ends; then silence",
  posixOnly("the background command is POSIX shell (read, echo $line)"),
  async () => {
    const root = scratchDir("toolhost-watch-");
    const ctx = context(root);
    const list = recorder();
    const stopList = processOutput.watchList!(ctx, list.changed);
    const waiting = processesOf(ctx).start('read line; echo "got $line"', root, UNCONFINED);
    // Its id is named before it starts: the watch takes it up when it does.
    const nextId = `p${Number(waiting.id.slice(1)) + 1}`;
    const output = recorder();
    const stopOutput = processOutput.watch!({ id: nextId }, ctx, output.changed);

    let proc!: ReturnType<ReturnType<typeof processesOf>["start"]>;
    await noticed(list, "a process started", () => {
      proc = processesOf(ctx).start('read line; echo "got $line"', root, UNCONFINED);
    });
    assert.equal(proc.id, nextId);
    await output.after(0, "the watched process started");
    await output.quiet();
    await noticed(output, "output", () => proc.write("one\n"));
    await noticed(
      list,
      "a process ended",
      () => proc.waitForEnd(WITHIN_MS, AbortSignal.timeout(WITHIN_MS)),
    );
    await output.quiet();

    const control = recorder();
    const stopControl = processOutput.watchList!(ctx, control.changed);
    await silentAfterStop(list, stopList, control, () => waiting.closeStdin());
    await waiting.waitForEnd(WITHIN_MS, AbortSignal.timeout(WITHIN_MS));
    stopControl();
    stopOutput();
    assert.ok(output.calls >= 2);
  },
);

test(
  "process output: a stopped watch hears no more output",
  posixOnly("the background command is POSIX shell (read, echo $line)"),
  async () => {
    const root = scratchDir("toolhost-watch-");
    const ctx = context(root);
    const proc = processesOf(ctx).start(
      'while read line; do echo "got $line"; done',
      root,
      UNCONFINED,
    );
    const r = recorder();
    const stop = processOutput.watch!({ id: proc.id }, ctx, r.changed);
    await noticed(r, "output", () => proc.write("one\n"));
    await r.quiet();
    const control = recorder();
    const stopControl = processOutput.watch!({ id: proc.id }, ctx, control.changed);
    await silentAfterStop(r, stop, control, () => proc.write("two\n"));
    stopControl();
    proc.closeStdin();
    await proc.waitForEnd(WITHIN_MS, AbortSignal.timeout(WITHIN_MS));
  },
);

test("skills: directories that appear, SKILL.md edited, a skill replaced or removed, then silence", async () => {
  const root = scratchDir("toolhost-watch-");
  const ctx = context(root);
  const skills = join(root, ".claude", "skills");
  const skillFile = (name: string, description: string) => {
    mkdirSync(join(skills, name), { recursive: true });
    writeFileSync(
      join(skills, name, "SKILL.md"),
      `---\nname: ${name}\ndescription: ${description}\n---\nDo it.\n`,
    );
  };
  // The resources' list and the prompts' list, watched the same way.
  const r = recorder();
  const p = recorder();
  const stop = await started(skillFiles.watchList!(ctx, r.changed));
  const stopPrompts = await started(skillPrompts.watchList!(ctx, p.changed));
  /** Does `change`, waits for both lists to notice it, then for the events to end. */
  const bothNotice = async (what: string, change: () => unknown) => {
    const seen = p.calls;
    await noticed(r, what, change);
    await p.after(seen, what);
    await quiet(r, p);
  };
  await bothNotice("the first skill (its directories did not exist)", () => skillFile("one", "A"));
  await bothNotice("SKILL.md edited", () => skillFile("one", "B"));
  await bothNotice("another skill", () => skillFile("two", "C"));
  await bothNotice("a skill replaced", () => {
    rmSync(join(skills, "one"), { recursive: true });
    skillFile("one", "D");
  });
  await bothNotice(
    "the replacement's SKILL.md edited by another process",
    () => otherProcess(`printf 'x' >> ${quote(join(skills, "one", "SKILL.md"))}`),
  );
  await bothNotice("a skill removed", () => rmSync(join(skills, "one"), { recursive: true }));
  await silentAfterStop(r, stop, p, () => skillFile("two", "E"));
  stopPrompts();
  assert.deepEqual(ctx.logged, []);
});

test("through the server: a client subscribed to toolhost://tasks hears of a task created", async () => {
  const root = scratchDir("toolhost-watch-");
  const { tools: _, ...offered } = sortContributions(toolModules);
  const h = harness([tasks], undefined, { fixed: [root], fallback: [root] }, offered);
  await h.request(1, "initialize", initializeParams("2025-11-25"));
  assert.deepEqual(
    (await h.request(2, "resources/subscribe", { uri: "toolhost://tasks" })).result,
    {},
  );
  const updated = () => h.notifications("notifications/resources/updated").length;
  // The watch starts as the subscription is answered; tasks are created until it has.
  const deadline = Date.now() + WITHIN_MS;
  for (let id = 3; updated() === 0 && Date.now() < deadline; id++) {
    await h.request(id, "tools/call", {
      name: "tasks",
      arguments: { action: "create", text: "A" },
    });
    await waitUntil(() => updated() > 0, 300);
  }
  assert.deepEqual(h.notifications("notifications/resources/updated")[0]?.params, {
    uri: "toolhost://tasks",
  });
  await h.request(100, "resources/unsubscribe", { uri: "toolhost://tasks" });
});

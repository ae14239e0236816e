import { stat } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defineTool, ToolError } from "../mcp/tool.ts";
// Loading plan_mode switches the gate on: destructive tools are refused while a plan is open.
import "./_lib/plan_gate.ts";
import { makeDirectories } from "./_lib/make_directories.ts";
import {
  MAX_PLAN_CHARS,
  planHeading,
  planSize,
  readPlan,
  startPlanFile,
  writePlan,
} from "./_lib/plan_file.ts";
import { OFF, type PlanState, planStatePath, readPlanState } from "./_lib/plan_state.ts";
import { projectOf } from "./_lib/project_state.ts";
import type { Sandbox } from "./_lib/sandbox.ts";
import { withLock, writeState } from "./_lib/state.ts";
import { bytes, count, duration } from "./_lib/units.ts";

const HOW_TO_FINISH = 'write the plan with action "write", then call action "exit" to present it';

export default defineTool({
  name: "plan_mode",
  title: "Plan mode",
  description:
    "Plan before changing anything. `enter` with a `goal` turns plan mode on for this project: " +
    "until `exit`, every destructive tool (bash, write_file, edit_file, move_file, …) is " +
    "refused, while reading and searching work. Write the plan in markdown with `write`: " +
    `\`text\` replaces the whole plan (at most ${count(MAX_PLAN_CHARS)} characters). It is ` +
    "kept in `plan_file` (a path inside the allowed roots, given at enter) or by default in " +
    "toolhost's state directory. `status` tells whether plan mode is on, the goal, for how long " +
    "and the plan's size. `exit` turns plan mode off and returns the plan: show it to the person " +
    "and wait for their go-ahead before carrying it out. `reset` turns it off without returning " +
    "the plan. Plan mode survives restarts and binds every session on the project.",
  annotations: {
    readOnlyHint: false,
    destructiveHint: false,
    idempotentHint: false,
    openWorldHint: false,
  },
  input: {
    type: "object",
    properties: {
      action: { enum: ["enter", "status", "write", "exit", "reset"], description: "What to do." },
      goal: {
        type: "string",
        minLength: 1,
        maxLength: 2000,
        description: "enter: what the plan is for.",
      },
      plan_file: {
        type: "string",
        minLength: 1,
        description:
          "enter: a markdown file inside the allowed roots to keep the plan in (kept if it " +
          "exists). Default: plan.md in toolhost's state directory, started afresh.",
      },
      text: {
        type: "string",
        maxLength: MAX_PLAN_CHARS,
        description: "write: the whole plan, in markdown; it replaces what the plan file holds.",
      },
    },
    required: ["action"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      active: { type: "boolean", description: "whether plan mode is on now" },
      goal: {
        type: ["string", "null"],
        description: "the goal of the plan this result is about (on exit and reset: the one ended)",
      },
      since: { type: ["string", "null"], description: "when plan mode was entered (ISO 8601)" },
      elapsedMs: { type: ["integer", "null"], description: "how long plan mode has been on" },
      planFile: { type: ["string", "null"], description: "where the plan is kept" },
      planBytes: { type: ["integer", "null"], description: "the plan's size; null if missing" },
      plan: { type: "string", description: "exit: the plan's text" },
      planTruncated: { type: "boolean", description: "exit: whether the plan was cut" },
    },
    required: ["active", "goal", "since", "elapsedMs", "planFile", "planBytes"],
    additionalProperties: false,
  },

  async run(args, ctx) {
    const { sandbox, dir } = await projectOf(ctx);
    const project = { sandbox, dir, file: planStatePath(dir) };
    switch (args.action) {
      case "enter":
        return await enter(project, args.goal, args.plan_file);
      case "write":
        return await write(project, args.text);
      case "status":
        return await status(project);
      case "exit":
        return await exit(project);
      case "reset":
        return await reset(project);
    }
  },
});

/** The call's project: its sandbox, its state directory, and its plan.json. */
interface Project {
  sandbox: Sandbox;
  dir: string;
  file: string;
}

async function enter(project: Project, goalText?: string, planFileArg?: string) {
  const goal = goalText?.trim();
  if (!goal) throw new ToolError("enter needs `goal`: what the plan is for");
  const { sandbox, file } = project;
  return await withLock(file, async () => {
    const now = await readPlanState(file);
    if (now.active) {
      throw new ToolError(
        `plan mode is already on (goal: ${now.goal}; since ${now.since}): ` +
          `${HOW_TO_FINISH}, or call action "reset" to drop it`,
      );
    }
    const planFile = planFileArg === undefined
      ? join(project.dir, "plan.md")
      : await planFileInside(sandbox, planFileArg);
    const kept = await startPlanFile(planFile, goal, planFileArg === undefined);
    const state: PlanState = { active: true, goal, since: new Date().toISOString(), planFile };
    await writeState(file, state);
    return {
      content: `Plan mode is on. Goal: ${goal}\n\n` +
        "Destructive tools (bash, write_file, edit_file, move_file, …) are refused until " +
        "plan mode ends; reading and searching work. Investigate, " +
        `${HOW_TO_FINISH} to the person. The plan is kept in ${shown(sandbox, planFile)}` +
        (kept === undefined ? "." : ` (it already held ${bytes(kept)}, kept as it was).`),
      structured: facts(sandbox, state, true, await planSize(planFile)),
    };
  });
}

async function write(project: Project, text?: string) {
  if (text === undefined) {
    throw new ToolError("write needs `text`: the whole plan in markdown (it replaces the plan)");
  }
  const { sandbox, file } = project;
  return await withLock(file, async () => {
    const state = await readPlanState(file);
    if (!state.active) {
      throw new ToolError(
        'plan mode is off, so there is no plan to write: start one with action "enter" ' +
          "and a goal (outside plan mode, files are written with write_file)",
      );
    }
    await writePlan(state.planFile, text);
    const size = new TextEncoder().encode(text).length;
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return {
      content: `Wrote the plan to ${shown(sandbox, state.planFile)}: ${bytes(size)}, ` +
        `${count(lines)} line${lines === 1 ? "" : "s"}. When it is complete, call action ` +
        '"exit" to present it to the person.',
      structured: facts(sandbox, state, true, size),
    };
  });
}

async function status({ sandbox, file }: Project) {
  const state = await readPlanState(file);
  if (!state.active) {
    return { content: "Plan mode is off.", structured: facts(sandbox, OFF, false) };
  }
  const size = await planSize(state.planFile);
  const where = shown(sandbox, state.planFile);
  const plan = size === undefined
    ? `${where} is missing (write the plan with action "write")`
    : `${where}, ${bytes(size)}`;
  return {
    content: `Plan mode is on for ${duration(Date.now() - Date.parse(state.since))} ` +
      `(since ${state.since}). Goal: ${state.goal}\nPlan: ${plan}.\n` +
      `Destructive tools are refused until you ${HOW_TO_FINISH}.`,
    structured: facts(sandbox, state, true, size),
  };
}

async function exit({ sandbox, file }: Project) {
  return await withLock(file, async () => {
    const state = await readPlanState(file);
    if (!state.active) throw new ToolError("plan mode is off: there is nothing to exit");
    const plan = await readPlan(state.planFile);
    await writeState(file, OFF);
    const where = shown(sandbox, state.planFile);
    const notes: string[] = [];
    if (plan.cut) {
      notes.push(
        `[the plan was cut at ${count(MAX_PLAN_CHARS)} characters of ${bytes(plan.bytes)}; ` +
          `the whole plan is in ${where}]`,
      );
    }
    if (plan.text.trim() === "" || plan.text === planHeading(state.goal)) {
      notes.push('[the plan is empty: nothing was written with action "write"]');
    }
    return {
      content: "Plan mode is off: destructive tools work again. Present this plan to the " +
        `person and wait for their go-ahead before carrying it out (it is kept in ${where}):` +
        `\n\n${plan.text}${notes.length ? `\n\n${notes.join("\n")}` : ""}`,
      structured: {
        ...facts(sandbox, state, false, plan.bytes),
        plan: plan.text,
        planTruncated: plan.cut,
      },
    };
  });
}

async function reset({ sandbox, file }: Project) {
  return await withLock(file, async () => {
    // Reset is the way out of a state file that cannot be read, so it never needs one.
    const before = await readPlanState(file).catch(() => undefined);
    await writeState(file, OFF);
    if (before === undefined) {
      return {
        content: "Plan mode's unreadable state was cleared: plan mode is off.",
        structured: facts(sandbox, OFF, false),
      };
    }
    if (!before.active) {
      return { content: "Plan mode was already off.", structured: facts(sandbox, OFF, false) };
    }
    return {
      content: `Plan mode was reset (goal: ${before.goal}); the plan was not presented, and ` +
        `${shown(sandbox, before.planFile)} is left as it was. Destructive tools work again.`,
      structured: facts(sandbox, before, false, await planSize(before.planFile)),
    };
  });
}

/** The structured result: about the plan in `state` (on exit and reset, the one just ended). */
function facts(sandbox: Sandbox, state: PlanState, active: boolean, size?: number) {
  return state.active
    ? {
      active,
      goal: state.goal,
      since: state.since,
      elapsedMs: Math.max(0, Date.now() - Date.parse(state.since)),
      planFile: shown(sandbox, state.planFile),
      planBytes: size ?? null,
    }
    : { active, goal: null, since: null, elapsedMs: null, planFile: null, planBytes: null };
}

/** A plan file the model named: inside the sandbox, and a file (or nothing yet) there. */
async function planFileInside(sandbox: Sandbox, path: string): Promise<string> {
  const { real, exists } = await sandbox.resolve(path);
  if (exists && !(await stat(real)).isFile()) {
    throw new ToolError(`plan_file ${sandbox.display(real)} is not a regular file`);
  }
  if (!exists) await makeDirectories(sandbox, dirname(real));
  return real;
}

/** How a plan file reads in results: relative to the first root when inside the roots. */
function shown(sandbox: Sandbox, real: string): string {
  return sandbox.contains(real) ? sandbox.display(real) : real;
}

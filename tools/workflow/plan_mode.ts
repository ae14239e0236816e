import { dirname } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { refuseOtherFields } from "./_lib/action_fields.ts";
import { planGate } from "./_lib/plan_gate.ts";
import { makeDirectories, type Sandbox } from "../_lib/sandbox/mod.ts";
import {
  assertRegular,
  isMarkdown,
  isPlan,
  MAX_PLAN_CHARS,
  planEntry,
  planHeading,
  readPlan,
  startPlanFile,
  writePlan,
} from "./_lib/plan_file.ts";
import {
  OFF,
  ownPlanPath,
  type PlanState,
  planStatePath,
  readPlanState,
} from "./_lib/plan_state.ts";
import { projectOf } from "./_lib/project_state.ts";
import { withLock, writeState } from "../_lib/state.ts";
import { bytes, count, duration } from "../_lib/text/units.ts";
import { KEEPS_WORKFLOW_STATE } from "../_lib/declarations/annotations.ts";

const HOW_TO_FINISH = 'write the plan with action "write", then call action "exit" to present it';

/** The fields each action takes besides `action`. */
const FIELDS = {
  enter: ["goal", "plan_file"],
  write: ["text"],
  status: [],
  exit: [],
  reset: [],
};

export const planMode = defineTool({
  name: "plan_mode",
  title: "Plan mode",
  description:
    "Plan before changing anything. `enter` with a `goal`: until `exit`, every tool that " +
    "changes files or runs commands is refused on this project; reading and searching work. " +
    "`write` replaces the whole plan with `text`, kept in `plan_file` or in toolhost's state " +
    "directory. `status` reports it. `exit` turns plan mode off and returns the plan: show it to " +
    "the person and wait for their go-ahead. `reset` turns it off without the plan. It survives " +
    "restarts.",
  annotations: KEEPS_WORKFLOW_STATE,
  input: {
    type: "object",
    properties: {
      action: { enum: ["enter", "status", "write", "exit", "reset"] },
      goal: {
        type: "string",
        minLength: 1,
        maxLength: 2000,
        description: "enter: what the plan is for.",
      },
      plan_file: {
        type: "string",
        minLength: 1,
        description: 'enter: a new .md file inside the roots, or an existing plan ("# Plan").',
      },
      text: {
        type: "string",
        maxLength: MAX_PLAN_CHARS,
        description: "write: the whole plan (markdown).",
      },
    },
    required: ["action"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      active: { type: "boolean" },
      goal: { type: ["string", "null"] },
      since: { type: ["string", "null"] },
      elapsedMs: { type: ["integer", "null"] },
      planFile: { type: ["string", "null"] },
      planBytes: { type: ["integer", "null"] },
      plan: { type: "string" },
      planTruncated: { type: "boolean" },
    },
    required: ["active", "goal", "since", "elapsedMs", "planFile", "planBytes"],
    additionalProperties: false,
  },

  run: runPlanAction,
});

/** What the model asked plan_mode for. */
interface PlanModeArgs {
  action: "enter" | "status" | "write" | "exit" | "reset";
  goal?: string;
  plan_file?: string;
  text?: string;
}

/** Carries out the plan_mode action asked on this project's plan. */
async function runPlanAction(args: PlanModeArgs, ctx: ToolContext) {
  refuseOtherFields(args, FIELDS);
  const { sandbox, dir } = await projectOf(ctx);
  const project = {
    sandbox,
    dir,
    file: planStatePath(dir, ctx.session),
    ownPlan: ownPlanPath(dir, ctx.session),
  };
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
}

// The gate comes with the tool: destructive tools are refused while a plan is open.
export default [planMode, planGate];

/** The call's project: its sandbox, its state directory, and its subject's plan state and file. */
interface Project {
  sandbox: Sandbox;
  dir: string;
  file: string;
  /** The plan file used when none is named. */
  ownPlan: string;
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
    let planFile = project.ownPlan;
    let kept: number | undefined;
    if (planFileArg === undefined) {
      await startPlanFile(planFile, goal, true);
    } else {
      ({ planFile, kept } = await namedPlanFile(sandbox, planFileArg));
      if (kept === undefined) await startPlanFile(planFile, goal, false, sandbox);
    }
    const state: PlanState = { active: true, goal, since: new Date().toISOString(), planFile };
    await writeState(file, state);
    return {
      content: `Plan mode is on. Goal: ${goal}\n\n` +
        "Destructive tools (bash, write_file, edit_file, move_file, …) are refused until " +
        "plan mode ends; reading and searching work. Investigate, " +
        `${HOW_TO_FINISH} to the person. The plan is kept in ${sandbox.display(planFile)}` +
        (kept === undefined ? "." : ` (it already held ${bytes(kept)}, kept as it was).`),
      structured: facts(sandbox, state, true, await planBytes(planFile)),
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
    const planFile = await usablePlanFile(project, state.planFile);
    assertRegular(await planEntry(planFile), sandbox.display(planFile));
    await writePlan(planFile, text, sandbox);
    const size = new TextEncoder().encode(text).length;
    const lines = text === "" ? 0 : text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
    return {
      content: `Wrote the plan to ${sandbox.display(planFile)}: ${bytes(size)}, ` +
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
  const where = sandbox.display(state.planFile);
  const entry = await planEntry(state.planFile).catch(() => undefined);
  const size = entry?.isFile() ? entry.size : undefined;
  const plan = !entry
    ? `${where} is missing (write the plan with action "write")`
    : size === undefined
    ? `${where} is not a regular file any more (call action "reset" to leave plan mode)`
    : `${where}, ${bytes(size)}`;
  return {
    content: `Plan mode is on for ${duration(Date.now() - Date.parse(state.since))} ` +
      `(since ${state.since}). Goal: ${state.goal}\nPlan: ${plan}.\n` +
      `Destructive tools are refused until you ${HOW_TO_FINISH}.`,
    structured: facts(sandbox, state, true, size),
  };
}

async function exit(project: Project) {
  const { sandbox, file } = project;
  return await withLock(file, async () => {
    const state = await readPlanState(file);
    if (!state.active) throw new ToolError("plan mode is off: there is nothing to exit");
    const where = sandbox.display(await usablePlanFile(project, state.planFile));
    const plan = await readPlan(state.planFile, where, sandbox);
    await writeState(file, OFF);
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
        `${sandbox.display(before.planFile)} is left as it was. Destructive tools work again.`,
      structured: facts(sandbox, before, false, await planBytes(before.planFile)),
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
      planFile: sandbox.display(state.planFile),
      planBytes: size ?? null,
    }
    : { active, goal: null, since: null, elapsedMs: null, planFile: null, planBytes: null };
}

/**
 * A plan file the model named: a markdown file inside the sandbox that does not exist yet (its
 * directory is made), or an existing plan, which is kept (its size is returned). Any other file
 * is refused, so that plan mode, which changes nothing else, cannot overwrite one.
 */
async function namedPlanFile(
  sandbox: Sandbox,
  path: string,
): Promise<{ planFile: string; kept?: number }> {
  const { real } = await sandbox.resolve(path);
  const shown = sandbox.display(real);
  if (!isMarkdown(real)) {
    throw new ToolError(
      `plan_file ${shown} is not a markdown file (.md): name a new .md file for the plan, or ` +
        "leave plan_file out to keep it in toolhost's state directory",
    );
  }
  const entry = await planEntry(real);
  if (!entry) {
    await makeDirectories(sandbox, dirname(real));
    return { planFile: real };
  }
  if (!entry.isFile()) throw new ToolError(`plan_file ${shown} is not a regular file`);
  if (!isPlan((await readPlan(real, shown, sandbox)).text)) {
    throw new ToolError(
      `plan_file ${shown} already exists and is not a plan (a plan starts with the line ` +
        '"# Plan"): name a new file, or leave plan_file out to keep the plan in toolhost\'s ' +
        "state directory",
    );
  }
  return { planFile: real, kept: entry.size };
}

/**
 * The plan file, if this call may use it: toolhost's own, or one inside the call's roots that
 * still lies where it did. Another server on the project may have other roots than the one
 * that entered plan mode.
 */
async function usablePlanFile(project: Project, planFile: string): Promise<string> {
  const { sandbox } = project;
  if (planFile === project.ownPlan) return planFile;
  if (!sandbox.contains(planFile)) {
    throw new ToolError(
      `the plan is kept in ${planFile}, outside this server's allowed roots ` +
        `(${sandbox.roots.join(", ")}): write and present it from a server whose roots hold ` +
        'it, or call action "reset" to leave plan mode without it',
    );
  }
  const parent = await sandbox.resolve(dirname(planFile)).catch(() => undefined);
  if (parent?.real !== dirname(planFile)) {
    throw new ToolError(
      `the plan file ${planFile} now lies elsewhere (a directory on its way leads somewhere ` +
        'else); call action "reset" to leave plan mode',
    );
  }
  return planFile;
}

/** The plan file's size; undefined when no regular file is there. */
async function planBytes(planFile: string): Promise<number | undefined> {
  const entry = await planEntry(planFile).catch(() => undefined);
  return entry?.isFile() ? entry.size : undefined;
}

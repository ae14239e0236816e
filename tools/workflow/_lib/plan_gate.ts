/**
 * Plan mode's gate: while plan mode is on for a call's project, every tool annotated destructive
 * is refused, so the model investigates and plans before it changes anything. plan_mode's
 * module exports it beside the tool, and it runs before every tool call of the server.
 */
import { defineToolHook, type Tool, type ToolContext, ToolError } from "../../../mcp/tool.ts";
import { cachedPlanState, type PlanState, planStatePath } from "./plan_state.ts";
import { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStatePath } from "../../_lib/state.ts";

/** The tools that may still write while planning, when what they write is the plan file. */
const PLAN_WRITERS = new Set(["write_file", "edit_file"]);

/** Arguments that make a call of a tool not marked destructive write a file all the same. */
const WRITING_ARGUMENTS = new Map([["fetch_url", "save_to"]]);

function writesAFile(tool: Tool, args: Record<string, unknown>): boolean {
  const argument = WRITING_ARGUMENTS.get(tool.name);
  return argument !== undefined && args[argument] !== undefined;
}

function refuseDestructiveInPlanMode(
  tool: Tool,
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<void> | undefined {
  // Decided at once for the tools plan mode never blocks.
  if (tool.annotations?.destructiveHint !== true && !writesAFile(tool, args)) return undefined;
  return refuseIfPlanning(tool, ctx, args);
}

async function refuseIfPlanning(
  tool: Tool,
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<void> {
  // No root exists: there is no project, so no plan mode (and the tool reports the roots itself).
  const sandbox = await Sandbox.of(ctx).catch(() => null);
  if (!sandbox) return;
  // The path alone: a check must not create state directories for projects that never plan.
  const file = planStatePath(projectStatePath(ctx.state.dir, sandbox.base));
  let state: PlanState;
  try {
    state = await cachedPlanState(file);
  } catch (error) {
    throw new ToolError(
      `${tool.name} was refused: plan mode's state cannot be read (${(error as Error).message}). ` +
        'Call plan_mode with action "reset" to clear it.',
    );
  }
  if (!state.active) return;
  // File tools may write the plan file only inside this call's roots, so only then is it offered.
  const planInRoots = sandbox.contains(state.planFile);
  if (planInRoots && PLAN_WRITERS.has(tool.name) && typeof args.path === "string") {
    const target = await sandbox.resolve(args.path).catch(() => null);
    if (target?.real === state.planFile) return;
  }
  const fileTools = planInRoots
    ? `, or write_file/edit_file on ${sandbox.display(state.planFile)}`
    : "";
  throw new ToolError(
    `${tool.name} was refused: plan mode is on (goal: ${state.goal}), and it blocks ` +
      `${writesAFile(tool, args) ? "writing files (save_to)" : "destructive tools"}. Keep ` +
      "investigating with read-only tools, finish the plan " +
      `(plan_mode with action "write"${fileTools}), then call plan_mode with action "exit" to ` +
      "present it to the person; they decide whether it is carried out.",
  );
}

export const planGate = defineToolHook({
  name: "plan_gate",
  before: refuseDestructiveInPlanMode,
});

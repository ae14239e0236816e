/**
 * Plan mode's gate: while plan mode is on for a call's project, every tool annotated destructive
 * is refused, and every call whose declared writes (mcp/tool/writes.ts) do more than add, so the
 * model investigates and plans before it changes anything. Only the plan file may be written, by a
 * call that writes files and nothing else. plan_mode's module exports it beside the tool, and it
 * runs before every tool call of the server.
 */
import {
  defineToolHook,
  onlyAdds,
  type PlannedWrite,
  plannedWrites,
  type Tool,
  type ToolContext,
  ToolError,
} from "../../../mcp/tool/mod.ts";
import { cachedPlanState, type PlanState, planStatePath } from "./plan_state.ts";
import { callSandbox, writeTargets } from "../../_lib/transaction/mod.ts";
import { projectStatePath } from "../../_lib/state.ts";

/**
 * The writes of a call that plan mode refuses although its tool is not marked destructive: what
 * it declares beyond adding (fetch_url's `save_to`), when its arguments ask for it.
 */
function declaredWrites(tool: Tool, args: Record<string, unknown>): PlannedWrite[] {
  return plannedWrites(tool.writes, args).filter((write) => !onlyAdds(write.kind));
}

/** Whether the call only writes files in place or by replacing them: it may write the plan. */
function editsFiles(tool: Tool, planned: readonly PlannedWrite[]): boolean {
  return planned.length > 0 && !tool.writes?.atRunTime && tool.writes?.untracked === undefined &&
    planned.every((write) => write.kind === "replaces" || write.kind === "changes");
}

function refuseDestructiveInPlanMode(
  tool: Tool,
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<void> | undefined {
  // Decided at once for the tools plan mode never blocks.
  if (tool.annotations?.destructiveHint !== true && declaredWrites(tool, args).length === 0) {
    return undefined;
  }
  return refuseIfPlanning(tool, ctx, args);
}

async function refuseIfPlanning(
  tool: Tool,
  ctx: ToolContext,
  args: Record<string, unknown>,
): Promise<void> {
  // No root exists: there is no project, so no plan mode (and the tool reports the roots itself).
  const sandbox = await callSandbox(ctx).catch(() => null);
  if (!sandbox) return;
  // The path alone: a check must not create state directories for projects that never plan.
  const file = planStatePath(projectStatePath(ctx.state.dir, sandbox.base), ctx.session);
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
  const planned = ctx.writes.planned;
  if (planInRoots && editsFiles(tool, planned)) {
    // Where the call's one resolution puts each write (every later phase and the tool use it).
    const targets = await writeTargets(ctx, planned);
    const all = targets.length === planned.length;
    if (all && targets.every((target) => target.real === state.planFile)) return;
  }
  const fileTools = planInRoots
    ? `, or write_file/edit_file on ${sandbox.display(state.planFile)}`
    : "";
  throw new ToolError(
    `${tool.name} was refused: plan mode is on (goal: ${state.goal}), and it blocks ` +
      `${
        tool.annotations?.destructiveHint === true
          ? "destructive tools"
          : `writing files (${declaredWrites(tool, args).map((write) => write.arg).join(", ")})`
      }. Keep ` +
      "investigating with read-only tools, finish the plan " +
      `(plan_mode with action "write"${fileTools}), then call plan_mode with action "exit" to ` +
      "present it to the person; they decide whether it is carried out.",
  );
}

/** A gate: refused here, a call reaches no later phase (no check, no snapshot, no diagnostics). */
export const planGate = defineToolHook({
  name: "plan_gate",
  phase: "gate",
  before: refuseDestructiveInPlanMode,
});

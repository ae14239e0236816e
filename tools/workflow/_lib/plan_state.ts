/**
 * Plan mode as a project's plan.json holds it: on (with the goal, since when, and the plan's
 * markdown file, as a real path) or off. Kept on disk so that it survives a restart and binds
 * every server on the project. Under OAuth each subject has its own (plan-<tag>.json), so one
 * user can neither turn plan mode on or off for another nor read another's plan.
 */
import { stat } from "node:fs/promises";
import { isAbsolute, join } from "node:path";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { isMarkdown } from "./plan_file.ts";
import { readState } from "../../_lib/state.ts";
import { ownerTag } from "../../_lib/owner.ts";

export type PlanState =
  | { active: false }
  | { active: true; goal: string; since: string; planFile: string };

export const OFF: PlanState = { active: false };

/** The plan state of the session's subject (the machine's user's without OAuth). */
export function planStatePath(projectDir: string, session: { subject?: string }): string {
  const owner = ownerTag(session.subject);
  return join(projectDir, owner ? `plan-${owner}.json` : "plan.json");
}

/** Where plan mode keeps a plan when none is named: the subject's own, like its state. */
export function ownPlanPath(projectDir: string, session: { subject?: string }): string {
  const owner = ownerTag(session.subject);
  return join(projectDir, owner ? `plan-${owner}.md` : "plan.md");
}

export async function readPlanState(file: string): Promise<PlanState> {
  const state = await readState<PlanState>(file, OFF);
  const ok = typeof state === "object" && state !== null && (
    state.active === false ||
    (state.active === true && typeof state.goal === "string" &&
      typeof state.since === "string" && !Number.isNaN(Date.parse(state.since)) &&
      typeof state.planFile === "string" && isAbsolute(state.planFile) &&
      isMarkdown(state.planFile))
  );
  if (!ok) throw new ToolError(`${file} does not hold plan mode's state`);
  return state;
}

/** The last state read from each plan.json, and which version of the file it came from. */
const cache = new Map<string, { version: string; state: PlanState }>();

/**
 * The state in `file`, read again only when the file changed (another server may change it):
 * the check runs before every destructive call, so usually it costs one stat.
 */
export async function cachedPlanState(file: string): Promise<PlanState> {
  let info;
  try {
    info = await stat(file);
  } catch (error) {
    // Only a missing file means plan mode is off: any other failure must not open the gate.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return OFF;
    throw error;
  }
  // Every write replaces the file (a new inode) and sets its times.
  const version = `${info.ino}:${info.size}:${info.mtimeMs}:${info.ctimeMs}`;
  const known = cache.get(file);
  if (known?.version === version) return known.state;
  const state = await readPlanState(file);
  cache.set(file, { version, state });
  return state;
}

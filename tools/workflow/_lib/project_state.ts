/** The project a call works on, as far as saved state goes: keyed by its first root's real path. */
import type { SessionMemory, ToolContext } from "../../../mcp/tool/mod.ts";
import { ownerTag } from "../../_lib/owner.ts";
import { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStateDir } from "../../_lib/state.ts";

/** The call's sandbox and its project's state directory (created on first use). */
export async function projectOf(
  ctx: Pick<ToolContext, "roots" | "state">,
): Promise<{ sandbox: Sandbox; dir: string }> {
  const sandbox = await Sandbox.of(ctx);
  return { sandbox, dir: await projectStateDir(ctx.state.dir, sandbox.base) };
}

/**
 * The name of the task list's file in the project's state directory: the project's, shared by
 * every session of the machine's user (tasks.json); under OAuth each subject's own, so one never
 * sees or changes another's (tasks-<tag>.json).
 */
export function tasksFileName(session: SessionMemory): string {
  const owner = ownerTag(session.subject);
  return owner ? `tasks-${owner}.json` : "tasks.json";
}

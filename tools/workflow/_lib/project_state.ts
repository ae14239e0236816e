/** The project a call works on, as far as saved state goes: keyed by its first root's real path. */
import type { ToolContext } from "../../../mcp/tool/mod.ts";
import { Sandbox } from "../../_lib/sandbox/mod.ts";
import { projectStateDir } from "../../_lib/state.ts";

/** The call's sandbox and its project's state directory (created on first use). */
export async function projectOf(
  ctx: Pick<ToolContext, "roots" | "state">,
): Promise<{ sandbox: Sandbox; dir: string }> {
  const sandbox = await Sandbox.of(ctx);
  return { sandbox, dir: await projectStateDir(ctx.state.dir, sandbox.base) };
}

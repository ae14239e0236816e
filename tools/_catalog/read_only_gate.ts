/**
 * What read-only means for calls: with `--read-only` or the read-only profile only tools
 * annotated read-only are offered, and this gate refuses any call of theirs whose arguments
 * declare a write (mcp/tool/writes.ts; fetch_url's `save_to`). Decided from the declaration, so a
 * read-only tool that learns to write when asked is covered without naming it.
 */
import {
  defineToolHook,
  mayWrite,
  plannedWrites,
  type Tool,
  type ToolContext,
  ToolError,
} from "../../mcp/tool/mod.ts";

function refuseWritesWhenReadOnly(
  tool: Tool,
  ctx: ToolContext,
  args: Record<string, unknown>,
): void {
  const why = ctx.config.readOnly
    ? "toolhost runs read-only (--read-only)"
    : ctx.config.toolsProfile === "read-only"
    ? "toolhost offers the read-only profile"
    : undefined;
  if (!why || !mayWrite(tool.writes, args)) return;
  const named = plannedWrites(tool.writes, args).map((write) => write.arg);
  throw new ToolError(
    `${tool.name} was refused: ${named.length ? named.join(", ") : "this call"} writes files, ` +
      `and ${why}, so nothing was done. Call it without ${
        named.length ? named.join(", ") : "what writes"
      } to read instead.`,
  );
}

/**
 * @example
 * ```ts
 * await readOnlyGate.before!(fetchUrl, ctx, { url, save_to: "page.html" }); // throws read-only
 * ```
 */
export const readOnlyGate = defineToolHook({
  name: "read_only_gate",
  phase: "gate",
  before: refuseWritesWhenReadOnly,
});

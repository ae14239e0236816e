/**
 * A hand-off between the journal and the tools that run commands (two families, so it lives
 * here). The journal observes the roots around a call of a tool that declares `writes.observed`
 * (mcp/tool/writes.ts): a snapshot before, one after, the difference is the call's change. A command
 * that goes on after its call returns (bash_background) says so here, and the journal takes the
 * second snapshot when the command ends instead, journaling its change then. Passed through the
 * call's `ctx.writes`, never a module global.
 *
 * @example bash_background, once its process is started
 * ```ts
 * continuesUntil(ctx, proc.ended.then(() => (proc.exitCode === 0 ? "ok" : "error")));
 * ```
 */
import { Handoff, type ToolContext } from "../../mcp/tool/mod.ts";

/** How a command that outlived its call ended, as the journal records outcomes. */
export type CommandOutcome = "ok" | "error" | "cancelled";

/** The journal's watch over one call's command. */
export interface CommandWatch {
  /** The command goes on after the call: its change is journaled once `ended` settles. */
  continuesUntil(ended: Promise<CommandOutcome>, label: string): void;
}

export const commandWatch = new Handoff<CommandWatch>(
  "the journal's watch over a command that may outlive its call",
);

/** For a tool whose command outlives the call: the journal waits for `ended` to record it. */
export function continuesUntil(
  ctx: ToolContext,
  ended: Promise<CommandOutcome>,
  label: string,
): void {
  ctx.writes.take(commandWatch)?.continuesUntil(ended, label);
}

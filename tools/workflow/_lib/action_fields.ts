/** Tools with an `action`: each action takes some of the other fields, and only those. */
import { ToolError } from "../../../mcp/tool/mod.ts";

/**
 * Refuses the fields `action` does not take (`takes` lists each action's): ignoring them would
 * let the model believe they did something.
 */
export function refuseOtherFields(
  args: { action: string },
  takes: Record<string, readonly string[]>,
): void {
  const fields = takes[args.action] ?? [];
  const extra = Object.keys(args).filter((key) => key !== "action" && !fields.includes(key));
  if (extra.length === 0) return;
  throw new ToolError(
    `action ${args.action} takes no ${extra.join(" or ")}` +
      (fields.length ? `; it takes ${fields.join(", ")}` : ""),
  );
}

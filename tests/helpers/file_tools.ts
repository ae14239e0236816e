/** Calling one file tool in-process inside a scratch root, the way the server would. */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tool } from "../../mcp/tool/mod.ts";
import { harness } from "./in_process.ts";
import { callTool, type ToolReply } from "./tool_calls.ts";

/** A fresh directory, as its real path (macOS's /tmp is a symlink). */
export function scratchDir(prefix = "toolhost-files-", parent = tmpdir()): string {
  return realpathSync(mkdtempSync(join(parent, prefix)));
}

/**
 * Calls `tool` with `args` in a connection of its own whose allowed roots are `roots`, the way the
 * server would (output schemas are checked).
 */
export function callInRoots(
  tool: Tool,
  roots: string[],
  args: Record<string, unknown>,
): Promise<ToolReply> {
  return callTool(harness([tool], undefined, { fixed: roots, fallback: roots }), tool.name, args);
}

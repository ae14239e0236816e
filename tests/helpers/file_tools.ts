/** Calling one file tool in-process inside a scratch root, the way the server would. */
import { mkdtempSync, realpathSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tool } from "../../mcp/tool/mod.ts";
import { harness } from "./in_process.ts";
import { callTool, type ToolReply } from "./tool_calls.ts";

/** The scratch directories this test file made: removed when it exits. */
const made: string[] = [];

/**
 * A fresh directory, as its real path (macOS's /tmp is a symlink), removed with everything in it
 * when the test file is done (thousands of them were left in /tmp).
 */
export function scratchDir(prefix = "toolhost-files-", parent = tmpdir()): string {
  const dir = realpathSync(mkdtempSync(join(parent, prefix)));
  // Deno's test runner fires `unload` when the file's tests are done (not node's `exit`).
  if (made.length === 0) globalThis.addEventListener("unload", removeScratch);
  made.push(dir);
  return dir;
}

function removeScratch(): void {
  for (const dir of made.splice(0)) {
    try {
      rmSync(dir, { recursive: true, force: true });
    } catch {
      // one a test made unremovable (a read-only tree as another user) is left
    }
  }
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

/** Calling one file tool in-process inside a scratch root, the way the server would. */
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Tool } from "../../mcp/tool/mod.ts";
import { harness } from "./in_process.ts";
import { modern } from "./raw_client.ts";

export interface ToolResult {
  content: { type: string; text?: string; data?: string; mimeType?: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

/** A fresh directory, as its real path (macOS's /tmp is a symlink). */
export function scratchDir(prefix = "toolhost-files-", parent = tmpdir()): string {
  return realpathSync(mkdtempSync(join(parent, prefix)));
}

let nextId = 1;

/** Calls `tool` with `args` in a server whose allowed roots are `roots`; output schemas are checked. */
export async function callTool(
  tool: Tool,
  roots: string[],
  args: Record<string, unknown>,
): Promise<{ result: ToolResult; text: string; data: Record<string, unknown> }> {
  const h = harness([tool], undefined, { fixed: roots, fallback: roots });
  const reply = await h.request(
    nextId++,
    "tools/call",
    modern({ name: tool.name, arguments: args }),
  );
  if (!reply.result) throw new Error(`${tool.name} failed: ${JSON.stringify(reply.error)}`);
  const result = reply.result as unknown as ToolResult;
  return { result, text: result.content[0]?.text ?? "", data: result.structuredContent ?? {} };
}

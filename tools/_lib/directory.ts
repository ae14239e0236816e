/** Resolving and checking the directory a command runs in. */
import { stat } from "node:fs/promises";
import { resolve } from "node:path";
import process from "node:process";
import { ToolError } from "../../mcp/tool.ts";

/** `cwd` resolved against the server's working directory; a ToolError unless it is a directory. */
export async function workingDirectory(cwd: string | undefined): Promise<string> {
  const path = resolve(cwd ?? process.cwd());
  const info = await stat(path).catch(() => null);
  if (!info?.isDirectory()) {
    throw new ToolError(`cwd ${JSON.stringify(path)} is not an existing directory`);
  }
  return path;
}

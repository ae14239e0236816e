/** mkdir -p for the file tools, with a refusal that names what is in the way. */
import { lstat, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { ToolError } from "../../mcp/tool.ts";
import { describeEntry } from "./entries.ts";
import type { Sandbox } from "./sandbox.ts";

/**
 * Creates `dir` (a real path inside the sandbox) and its missing parents. Returns the first
 * directory it created, or undefined when `dir` already was one.
 */
export async function makeDirectories(sandbox: Sandbox, dir: string): Promise<string | undefined> {
  try {
    return await mkdir(dir, { recursive: true });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTDIR" && code !== "EEXIST") {
      throw new ToolError(
        `cannot create the directory ${sandbox.display(dir)}: ${(error as Error).message}`,
      );
    }
    // Something other than a directory sits at `dir` or at one of its parents.
    for (let at = dir;; at = dirname(at)) {
      const info = await lstat(at).catch(() => undefined);
      if (info && !info.isDirectory()) {
        throw new ToolError(
          `cannot create the directory ${sandbox.display(dir)}: ${sandbox.display(at)} is a ${
            describeEntry(info)
          }, not a directory. Choose another path, or move it away with move_file first.`,
        );
      }
      if (at === dirname(at)) throw error;
    }
  }
}

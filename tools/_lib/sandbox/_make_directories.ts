/** mkdir -p for the file tools, with a refusal that names what is in the way. */
import { ToolError } from "../../../mcp/tool/mod.ts";
import { NotADirectory } from "./_beneath.ts";
import { describeEntry } from "./_entries.ts";
import type { Sandbox } from "./_sandbox.ts";

/**
 * Creates `dir` (a real path inside the sandbox) and its missing parents, each one made in its
 * parent opened beneath the root (Sandbox.directory), so none can be made outside the roots.
 * Returns the first directory it created, or undefined when `dir` already was one.
 */
export async function makeDirectories(sandbox: Sandbox, dir: string): Promise<string | undefined> {
  try {
    const made = await sandbox.directory(dir, true);
    await made.dir.close();
    return made.created;
  } catch (error) {
    if (error instanceof ToolError) throw error;
    if (error instanceof NotADirectory && error.info) {
      // Something other than a directory sits at `dir` or at one of its parents.
      throw new ToolError(
        `cannot create the directory ${sandbox.display(dir)}: ${sandbox.display(error.path)} is a ${
          describeEntry(error.info)
        }, not a directory. Choose another path, or move it away with move_file first.`,
      );
    }
    throw new ToolError(
      `cannot create the directory ${sandbox.display(dir)}: ${(error as Error).message}`,
    );
  }
}

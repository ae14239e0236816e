/**
 * What edit_file and notebook_edit check around an edit: the file they read whole is a regular
 * file of bounded size, and it has not changed between the read and the write.
 */
import type { Stats } from "node:fs";
import { ToolError } from "../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";

/** Files larger than this are edited with other means (sed, a script). */
export const MAX_EDITED_BYTES = 20 * 1024 * 1024;

/**
 * The file at `real`, refused unless it exists, is a regular file and is at most
 * MAX_EDITED_BYTES. `tool` names the tool, `create` how to make a missing file, `instead` what
 * to use for a larger one.
 */
export async function editableFile(
  sandbox: Sandbox,
  { real, exists, shown }: { real: string; exists: boolean; shown: string },
  { tool, create, instead }: { tool: string; create: string; instead: string },
): Promise<Stats> {
  if (!exists) throw new ToolError(`${shown} does not exist; ${create}`);
  const info = await sandbox.info(real);
  if (!info.isFile()) throw new ToolError(`${shown} is not a regular file`);
  if (info.size > MAX_EDITED_BYTES) {
    throw new ToolError(
      `${shown} is ${info.size} bytes, over the ${MAX_EDITED_BYTES}-byte limit for ${tool}; ${instead}`,
    );
  }
  return info;
}

/** Refuses to write when the file at `real` is no longer the one read (`read`). */
export async function assertUnchanged(
  sandbox: Sandbox,
  real: string,
  shown: string,
  read: Stats,
): Promise<void> {
  const now = await sandbox.info(real);
  if (now.mtimeMs !== read.mtimeMs || now.size !== read.size || now.ino !== read.ino) {
    throw new ToolError(
      `${shown} changed while it was being edited (by another program); nothing was written. Read it again and redo the edit.`,
    );
  }
}

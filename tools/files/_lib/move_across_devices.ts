/**
 * A move between filesystems, where rename() fails with EXDEV: copy to a temporary name beside
 * the destination, rename that into place (same filesystem, so atomic), then remove the source.
 */
import { cp, rename, rm } from "node:fs/promises";
import { ToolError } from "../../../mcp/tool.ts";
import { temporaryPath } from "../../_lib/atomic_write.ts";

export async function moveAcrossDevices(
  source: string,
  destination: string,
  sourceShown: string,
  destinationShown: string,
): Promise<void> {
  const temporary = temporaryPath(destination);
  try {
    await cp(source, temporary, {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
    });
    await rename(temporary, destination);
  } catch (error) {
    await rm(temporary, { recursive: true, force: true }).catch(() => {});
    throw new ToolError(
      `could not copy ${sourceShown} to ${destinationShown} across filesystems: ${
        (error as Error).message
      }. Nothing was moved.`,
    );
  }
  try {
    await rm(source, { recursive: true });
  } catch (error) {
    throw new ToolError(
      `copied ${sourceShown} to ${destinationShown}, but could not remove the source: ${
        (error as Error).message
      }. Both now exist; remove the source yourself once you have checked the copy.`,
    );
  }
}

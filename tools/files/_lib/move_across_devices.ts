/**
 * A move between filesystems, where rename() fails with EXDEV: copy to a temporary name beside
 * the destination, rename that into place (same filesystem, so atomic), then remove the source.
 * Both ends are entries of directories opened beneath their root (Sandbox.parent); what the copy
 * finds below the source is walked by path (node's cp).
 */
import { cp } from "node:fs/promises";
import { ToolError } from "../../../mcp/tool.ts";
import { temporaryName } from "../../_lib/atomic_write.ts";
import type { Dir } from "../../_lib/beneath.ts";

interface Entry {
  dir: Dir;
  name: string;
}

export async function moveAcrossDevices(
  source: Entry,
  destination: Entry,
  sourceShown: string,
  destinationShown: string,
): Promise<void> {
  const temporary = temporaryName();
  try {
    await cp(source.dir.at(source.name), destination.dir.at(temporary), {
      recursive: true,
      preserveTimestamps: true,
      verbatimSymlinks: true,
    });
    await destination.dir.rename(temporary, destination.dir, destination.name);
  } catch (error) {
    await destination.dir.remove(temporary).catch(() => {});
    throw new ToolError(
      `could not copy ${sourceShown} to ${destinationShown} across filesystems: ${
        (error as Error).message
      }. Nothing was moved.`,
    );
  }
  try {
    await source.dir.remove(source.name, false);
  } catch (error) {
    throw new ToolError(
      `copied ${sourceShown} to ${destinationShown}, but could not remove the source: ${
        (error as Error).message
      }. Both now exist; remove the source yourself once you have checked the copy.`,
    );
  }
}

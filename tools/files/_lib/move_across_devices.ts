/**
 * A move between filesystems, where rename() fails with EXDEV: copy to a temporary name beside
 * the destination, put that in place (`put`: the edit transaction's rename, same filesystem, so
 * atomic), then remove the source.
 * Both ends are entries of directories opened beneath their root (Sandbox.parent), and the copy
 * and the removal walk the held tree (held_tree.ts) on both sides: every entry is read, created
 * or removed as an entry of a directory held open, a symbolic link is copied as a link and never
 * followed, so nothing outside the roots is read, written or removed whatever is renamed
 * meanwhile. Trees are bounded as copy_file's are; timestamps are kept on a moved file.
 */
import { ToolError } from "../../../mcp/tool/mod.ts";
import { type Dir, temporaryName } from "../../_lib/sandbox/mod.ts";
import {
  copyContents,
  copyFile,
  measure,
  newTally,
  removeContents,
  removeEntry,
} from "./held_tree.ts";

interface Entry {
  dir: Dir;
  name: string;
}

export async function moveAcrossDevices(
  source: Entry,
  destination: Entry,
  sourceShown: string,
  destinationShown: string,
  put: (temporary: string) => Promise<void>,
  signal?: AbortSignal,
): Promise<void> {
  const temporary = temporaryName();
  const opened: Dir[] = [];
  let made = false;
  let isDirectory = false;
  try {
    const info = await source.dir.lstat(source.name);
    const tally = newTally();
    if (info.isSymbolicLink()) {
      await destination.dir.symlink(await source.dir.readlink(source.name), temporary);
      made = true;
    } else if (info.isFile()) {
      made = true;
      await copyFile(source.dir, source.name, destination.dir, temporary, tally, signal);
      const copy = await destination.dir.openFile(temporary);
      try {
        await copy.utimes(info.atime, info.mtime);
      } finally {
        await copy.close();
      }
    } else if (info.isDirectory()) {
      isDirectory = true;
      const inner = (await source.dir.child(source.name)).dir;
      opened.push(inner);
      // Counted first: a tree over the bounds is refused before anything is copied.
      await measure(inner, sourceShown, "bash (mv)", signal);
      await destination.dir.mkdir(temporary);
      made = true;
      const copy = (await destination.dir.child(temporary)).dir;
      opened.push(copy);
      await copyContents(inner, copy, tally, (p) => p, signal);
      await copy.chmod(info.mode & 0o7777);
    } else {
      throw new ToolError(`${sourceShown} is not a file, directory or link; it cannot be copied`);
    }
    await put(temporary);
    made = false;
  } catch (error) {
    if (made) await removeEntry(destination.dir, temporary).catch(() => {});
    throw new ToolError(
      `could not copy ${sourceShown} to ${destinationShown} across filesystems: ${
        (error as Error).message
      }. Nothing was moved.`,
    );
  } finally {
    for (const dir of opened.reverse()) await dir.close();
  }
  try {
    if (isDirectory) {
      // Emptied through its own held descriptor, then removed from its held parent.
      const inner = (await source.dir.child(source.name)).dir;
      try {
        await removeContents(inner, newTally());
      } finally {
        await inner.close();
      }
      await source.dir.rmdir(source.name);
    } else {
      await source.dir.unlink(source.name);
    }
  } catch (error) {
    throw new ToolError(
      `copied ${sourceShown} to ${destinationShown}, but could not remove the source: ${
        (error as Error).message
      }. Both now exist; remove the source yourself once you have checked the copy.`,
    );
  }
}

/**
 * Replacing a file's content without ever leaving it half written: the new bytes go to a
 * temporary file in the same directory, reach the disk, and only then take the file's name.
 */
import { randomBytes } from "node:crypto";
import { access, constants, open, realpath, rename, rm, stat } from "node:fs/promises";
import { ToolError } from "../../mcp/tool.ts";
import { dirname, join } from "node:path";

/** A short name beside `path` for work in progress (short: long file names must still fit). */
export function temporaryPath(path: string): string {
  return join(dirname(path), `.toolhost-${randomBytes(6).toString("hex")}.tmp`);
}

interface Written {
  /** How many names the replaced file had: the others keep its old content. */
  hardLinks: number;
}

/**
 * Writes `bytes` to `path` (a real path: no symlinks in it) atomically, keeping the mode and, where
 * allowed, the owner of the file it replaces. Refuses if a directory on the way was replaced by a
 * symlink meanwhile, so the write cannot land elsewhere than where the sandbox checked.
 */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<Written> {
  const old = await stat(path).catch(() => null);
  const temporary = temporaryPath(path);
  try {
    const handle = await open(temporary, "wx");
    try {
      if (old) {
        // Exactly the old mode: open()'s mode argument would be narrowed by the umask.
        await handle.chmod(old.mode & 0o7777);
        // Only root may give a file away; for anyone else this keeps what they already own.
        await handle.chown(old.uid, old.gid).catch(() => {});
      }
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (await realpath(dirname(path)) !== dirname(path)) {
      throw new Error(`${dirname(path)} changed while writing (it now leads elsewhere)`);
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => {});
    throw error;
  }
  await syncDirectory(dirname(path));
  return { hardLinks: old?.nlink ?? 1 };
}

/** Makes a rename durable: the directory entry reaches the disk too (where the OS allows it). */
async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory, "r");
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Some systems cannot fsync a directory; the rename itself is still atomic.
  }
}

/**
 * Refuses to replace a file its owner made read-only. The rename would replace it anyway (it
 * needs only the directory's permission), but that is not what a read-only file means.
 */
export async function assertWritable(path: string, shown: string): Promise<void> {
  const ok = await access(path, constants.W_OK).then(() => true, () => false);
  if (!ok) {
    throw new ToolError(
      `${shown} is read-only for this user; make it writable first (chmod u+w) if you mean to change it.`,
    );
  }
}

/** What to add to a result when the replaced file had other names. */
export function hardLinkNote(hardLinks: number): string {
  return hardLinks > 1
    ? ` (it had ${hardLinks} hard links: only this name has the new content; the others keep the old)`
    : "";
}

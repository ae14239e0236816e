/**
 * Replacing a file's content without ever leaving it half written: the new bytes go to a
 * temporary file in the same directory, reach the disk, and only then take the file's name.
 */
import { randomBytes } from "node:crypto";
import { access, constants, stat } from "node:fs/promises";
import { ToolError } from "../../mcp/tool.ts";
import { basename, dirname } from "node:path";
import { Dir } from "./beneath.ts";
import type { Sandbox } from "./sandbox.ts";

/** A short name for work in progress (short: long file names must still fit). */
export function temporaryName(): string {
  return `.toolhost-${randomBytes(6).toString("hex")}.tmp`;
}

interface Written {
  /** How many names the replaced file had: the others keep its old content. */
  hardLinks: number;
}

/**
 * Writes `bytes` to `path` (a real path: no symlinks in it) atomically, keeping the mode and, where
 * allowed, the owner of the file it replaces. With a sandbox, `path`'s directory is opened beneath
 * its root (Sandbox.directory) and the temporary file is created and renamed in that open
 * directory, never through a symbolic link: the write cannot land outside the roots, whatever is
 * renamed meanwhile. Without one (toolhost's own state directory) it works by path.
 */
export async function writeFileAtomic(
  path: string,
  bytes: Uint8Array,
  sandbox?: Sandbox,
): Promise<Written> {
  const { dir, name } = sandbox
    ? await sandbox.parent(path)
    : { dir: Dir.named(dirname(path)), name: basename(path) };
  try {
    // By path, a link to a file is replaced as the old code did (the state directory's files).
    const old = sandbox
      ? await dir.lstat(name).catch(() => null)
      : await stat(path).catch(() => null);
    if (sandbox && old && !old.isFile()) {
      throw new Error(`${path} changed while writing (it is no longer a regular file)`);
    }
    const temporary = temporaryName();
    try {
      const handle = await dir.open(
        temporary,
        constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL,
        0o666,
      );
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
      await dir.rename(temporary, dir, name);
    } catch (error) {
      await dir.unlink(temporary).catch(() => {});
      throw error;
    }
    await dir.sync();
    return { hardLinks: old?.nlink ?? 1 };
  } finally {
    await dir.close();
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

/**
 * Replacing a file's content without ever leaving it half written: the new bytes go to a
 * temporary file in the same directory, reach the disk, and only then take the file's name.
 */
import { randomBytes } from "node:crypto";
import { open, rename, rm, stat } from "node:fs/promises";
import { basename, dirname, join } from "node:path";

/** Writes `bytes` to `path` atomically, keeping the mode of the file it replaces. */
export async function writeFileAtomic(path: string, bytes: Uint8Array): Promise<void> {
  const mode = (await stat(path).catch(() => null))?.mode;
  const temporary = join(
    dirname(path),
    `.${basename(path)}.toolhost-${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const handle = await open(temporary, "wx");
    try {
      // Exactly the old mode: open()'s mode argument would be narrowed by the umask.
      if (mode !== undefined) await handle.chmod(mode & 0o7777);
      await handle.writeFile(bytes);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  await syncDirectory(dirname(path));
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

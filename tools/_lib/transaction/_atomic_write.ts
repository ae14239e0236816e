/**
 * Replacing a file's content without ever leaving it half written: the new bytes go to a
 * temporary file in the same directory, reach the disk, and only then take the file's name.
 * Content may come in chunks (a large write never needs a second whole copy in memory), and its
 * digest can be taken on the way, for the journal (_written_digests.ts). Private to the edit
 * transaction: tools write through it (_transaction.ts), toolhost's own files through
 * _own_files.ts.
 */
import { createHash } from "node:crypto";
import { type FileHandle, stat } from "node:fs/promises";
import { basename, dirname } from "node:path";
import process from "node:process";
import { setImmediate } from "node:timers";
import { Dir, type Sandbox, temporaryName } from "../sandbox/mod.ts";
import { rememberWritten } from "./_written_digests.ts";

/**
 * What to write: bytes, or chunks of them in order. Bytes, or an array of pieces, are whole in
 * memory: written while they are digested. From any other source a chunk is written before the
 * one after next is asked for, so it may reuse two buffers in turn.
 */
export type Content = Uint8Array | Iterable<Uint8Array> | AsyncIterable<Uint8Array>;

export interface WriteOptions {
  /**
   * Take the SHA-256 of what is written, return it, and remember it for the file now at the
   * path (_written_digests.ts): the journal then knows the new content without reading it back.
   */
  digest?: boolean;
  /** Called with what was written before it takes the file's name; a throw leaves the file as it was. */
  check?(written: { size: number; sha?: string }): void;
  /** Work of the caller's to do while the disk takes the bytes (the thread is idle then). */
  meanwhile?(): void;
  /** Awaited just before the rename: what must happen before the old file is replaced. */
  beforeRename?(): Promise<void>;
}

export interface Written {
  /** How many names the replaced file had: the others keep its old content. */
  hardLinks: number;
  /** Bytes written. */
  size: number;
  /** Their SHA-256 (hex), with `digest`. */
  sha?: string;
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
  content: Content,
  sandbox?: Sandbox,
  options: WriteOptions = {},
): Promise<Written> {
  const { dir, name } = sandbox
    ? await sandbox.parent(path)
    : { dir: Dir.named(dirname(path)), name: basename(path) };
  let holding: Promise<FileHandle | undefined> | undefined;
  try {
    // By path, a link to a file is replaced as the old code did (the state directory's files).
    const old = sandbox
      ? await dir.lstat(name).catch(() => null)
      : await stat(path).catch(() => null);
    if (sandbox && old && !old.isFile()) {
      throw new Error(`${path} changed while writing (it is no longer a regular file)`);
    }
    const temporary = temporaryName();
    let written: { size: number; sha?: string };
    /** The new file as written, before its rename: what is found after must still be it. */
    let asWritten: { ino: number; size: number; mtimeMs: number } | undefined;
    // The replaced file, held open across the rename (opened while the new one is written).
    holding = old ? holdReplaced(dir, name) : undefined;
    try {
      const handle = await dir.createFile(temporary);
      // Exactly the old mode: open()'s mode argument would be narrowed by the umask. Only root
      // may give a file away; for anyone else chown keeps what they already own. Both go on
      // while the content is written, and are over before the descriptor is closed.
      const owned = old
        ? Promise.all([
          handle.chmod(old.mode & 0o7777),
          handle.chown(old.uid, old.gid).catch(() => {}),
        ])
        : undefined;
      owned?.catch(() => {}); // awaited below
      try {
        if (content instanceof Uint8Array || Array.isArray(content)) {
          const pieces = content instanceof Uint8Array ? [content] : content as Uint8Array[];
          written = await writeWhole(handle, pieces, options, owned);
        } else {
          await owned;
          written = await writeChunks(handle, content, options.digest);
          const syncing = handle.sync();
          try {
            options.meanwhile?.();
          } finally {
            await syncing;
          }
        }
        if (written.sha !== undefined) asWritten = await handle.stat();
      } finally {
        await owned?.catch(() => {});
        await handle.close();
      }
      options.check?.(written);
      await holding;
      await options.beforeRename?.();
      await dir.rename(temporary, dir, name);
    } catch (error) {
      await dir.unlink(temporary).catch(() => {});
      throw error;
    }
    await dir.sync();
    if (written.sha !== undefined) {
      // What is there now (the rename changed its ctime), to recognise it by.
      const now = await (sandbox ? dir.lstat(name) : stat(path)).catch(() => undefined);
      // Another program may have changed it between the rename and this lstat: then its
      // inode, size or modification time differ from the file as written (the stat above
      // made the kernel give the next change a fine-grained time, where it can).
      if (
        now && asWritten && now.ino === asWritten.ino && now.size === asWritten.size &&
        now.mtimeMs === asWritten.mtimeMs
      ) rememberWritten(path, now, written.sha);
    }
    return { hardLinks: old?.nlink ?? 1, ...written };
  } finally {
    // Its open is awaited (dir stays open until then); its close is not: freeing a large
    // replaced file's blocks is left to the I/O threads, after the directory's sync.
    void (await holding)?.close().catch(() => {});
    await dir.close();
  }
}

/**
 * The file about to be replaced, open for reading, where that helps: the rename then only drops
 * a name, and freeing the old content's blocks (about 1 ms per 5 MiB on ext4) happens when this
 * is closed, off the caller's path. Not on Windows, where an open file may block the rename.
 * Non-blocking, so a FIFO swapped in meanwhile cannot hang the write; undefined if it fails.
 */
function holdReplaced(dir: Dir, name: string): Promise<FileHandle | undefined> | undefined {
  if (process.platform === "win32") return undefined;
  return dir.openFile(name).catch(() => undefined);
}

/** Bytes hashed between two turns of the event loop while a whole buffer is written. */
const HASH_SLICE = 1 << 20;

/**
 * Writes content already whole in memory (one buffer, or a few pieces: an edit's old bytes
 * around its new ones), a call per piece, and forces it to disk, all on the I/O threads, while
 * this thread takes its digest and does the caller's `meanwhile`: in slices, each followed by a
 * turn of the event loop, so each write's completion starts the next step without waiting.
 */
async function writeWhole(
  handle: FileHandle,
  pieces: Uint8Array[],
  options: WriteOptions,
  owned?: Promise<unknown>,
): Promise<{ size: number; sha?: string }> {
  const durable = (async () => {
    for (const piece of pieces) await writeAll(handle, piece);
    // The mode and owner too are in what the fsync makes durable.
    await owned;
    await handle.sync();
  })();
  // Awaited below; this only keeps a failure meanwhile from counting as unhandled.
  durable.catch(() => {});
  let sha: string | undefined;
  let size = 0;
  try {
    const hash = options.digest ? createHash("sha256") : undefined;
    for (const piece of pieces) {
      size += piece.length;
      for (let at = 0; hash && at < piece.length; at += HASH_SLICE) {
        hash.update(piece.subarray(at, at + HASH_SLICE));
        await new Promise((next) => setImmediate(next));
      }
    }
    sha = hash?.digest("hex");
    options.meanwhile?.();
  } finally {
    await durable;
  }
  return { size, sha };
}

/**
 * Writes `content` at the handle's position, chunk after chunk, each hashed while it is being
 * written (the next one is asked for meanwhile: the one before is written by then).
 */
async function writeChunks(
  handle: FileHandle,
  content: Content,
  digest = false,
): Promise<{ size: number; sha?: string }> {
  const hash = digest ? createHash("sha256") : undefined;
  let size = 0;
  let writing: Promise<unknown> | undefined;
  const chunks = content instanceof Uint8Array ? [content] : content;
  for await (const chunk of chunks) {
    if (chunk.length === 0) continue;
    await writing;
    writing = writeAll(handle, chunk);
    // Awaited once the next chunk is here: a failure meanwhile is not unhandled.
    writing.catch(() => {});
    hash?.update(chunk);
    size += chunk.length;
  }
  await writing;
  return { size, sha: hash?.digest("hex") };
}

/** handle.write until all of `chunk` is written (a write may take less). */
async function writeAll(handle: FileHandle, chunk: Uint8Array): Promise<void> {
  for (let at = 0; at < chunk.length;) {
    const { bytesWritten } = await handle.write(chunk, at, chunk.length - at);
    if (bytesWritten === 0) throw new Error("the disk took no more bytes");
    at += bytesWritten;
  }
}

/**
 * Working beneath a directory held open, so that another process renaming things meanwhile cannot
 * redirect an operation out of the allowed roots. A name resolved earlier is never trusted: every
 * operation addresses one entry of a directory that was opened, and checked, without following a
 * symbolic link.
 *
 * On Linux an open directory is addressed through procfs: `/proc/self/fd/N/name` is entry `name`
 * of the directory open as descriptor N, whatever has been renamed since (the magic link leads to
 * the open directory itself, not to a path). Opening a subdirectory with O_NOFOLLOW, creating a
 * file with O_EXCL|O_NOFOLLOW, mkdir, rename, unlink, lstat and readdir through such addresses
 * act on exactly that directory's entries and never follow a link in the last component, so a
 * walk from a root's descriptor, one component at a time, cannot leave the root. Without /proc
 * (a Linux that has no procfs mounted) nothing is done: every operation fails closed.
 *
 * Elsewhere an entry is addressed by its path. On macOS, opening a file or a directory adds
 * O_NOFOLLOW_ANY, which refuses a path with a symbolic link in any component, so what is opened
 * and read is inside the roots; creating, renaming and listing by path stay check-then-use there.
 * On other systems (Windows) everything is by path: see docs/security.md.
 */
import {
  closeSync,
  constants,
  existsSync,
  fstat,
  lstatSync,
  openSync,
  readdirSync,
  readlinkSync,
  type Stats,
} from "node:fs";
import {
  chmod,
  type FileHandle,
  lstat,
  mkdir,
  open,
  readdir,
  readlink,
  rename,
  rmdir,
  symlink,
  unlink,
} from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import type { Dirent } from "node:fs";
import { listDirectory, nativeLookups, openDirectoryAt, openEntryAt } from "./_beneath_native.ts";

/** What a walk needs of each entry of a listing: a node Dirent, or beneath_native's own. */
export type ListedKind = Pick<Dirent, "name" | "isFile" | "isDirectory" | "isSymbolicLink">;

const DARWIN = process.platform === "darwin";
const LINUX = process.platform === "linux";
const WINDOWS = process.platform === "win32";

/** Numeric values where node's `fs.constants` lacks them, per platform. */
export const O_DIRECTORY = constants.O_DIRECTORY ?? (DARWIN ? 0x100000 : 0);
export const O_NOFOLLOW = constants.O_NOFOLLOW ?? (DARWIN ? 0x100 : LINUX ? 0o400000 : 0);
export const O_NONBLOCK = constants.O_NONBLOCK ?? 0;
/** macOS 11+: fail with ELOOP if any component of the path is a symbolic link. */
export const O_NOFOLLOW_ANY = DARWIN ? 0x20000000 : 0;

/** How entries beneath an open directory are addressed on this system. */
export type Addressing = "descriptor" | "path without links" | "path";

let procfs: boolean | undefined;

/** "descriptor" (Linux with /proc), "path without links" (macOS) or "path" (other systems). */
export function addressing(): Addressing {
  if (LINUX) return "descriptor";
  return DARWIN ? "path without links" : "path";
}

function procfsReady(): boolean {
  procfs ??= existsSync("/proc/self/fd");
  return procfs;
}

/**
 * A directory could not be entered: `info` says what is there instead (a symbolic link, a file),
 * or nothing is there (`info` undefined, code ENOENT).
 */
export class NotADirectory extends Error {
  constructor(readonly path: string, readonly info: Stats | undefined, readonly code: string) {
    super(code === "ENOENT" ? `${path} does not exist` : `${path} is not a directory`);
  }
}

/**
 * A directory held open was moved out of its root (or the root itself moved) while a call worked
 * in it: the call stops before changing anything more there.
 */
export class MovedOutOfRoots extends Error {
  constructor(readonly path: string) {
    super(`${path} was moved out of the allowed roots during the operation`);
  }
}

/** Turns descriptor addresses in an error's message back into paths. */
function plain<T>(dir: Dir, error: T): T {
  const e = error as NodeJS.ErrnoException & { dest?: string };
  if (dir.fd !== undefined && typeof e?.message === "string") {
    const address = `/proc/self/fd/${dir.fd}`;
    e.message = e.message.replaceAll(address, dir.path);
    if (e.path) e.path = e.path.replaceAll(address, dir.path);
    if (e.dest) e.dest = e.dest.replaceAll(address, dir.path);
  }
  return error;
}

/** What a Dir holds open: a FileHandle, or a descriptor opened synchronously (childSync). */
interface Held {
  readonly fd: number;
  close(): Promise<void>;
}

/** A directory, held open where the system allows it; its entries are addressed by `at(name)`. */
export class Dir {
  #handle: Held | undefined;
  #closed = false;
  /** Whether close() closes the descriptor (not for a held root's, which outlives the call). */
  #owned = true;
  /** Linux: the held root this directory was reached from, its real path and its descriptor. */
  #root: { path: string; fd: number } | undefined;

  private constructor(readonly path: string, handle?: Held) {
    this.#handle = handle;
  }

  /**
   * A held root (see _held_roots.ts): on Linux its descriptor, borrowed (close() leaves it open);
   * elsewhere its path, opened again (macOS: with no symbolic link in any component) and refused
   * unless it is still the directory `dev`/`ino` established.
   */
  static async root(
    path: string,
    handle: FileHandle | undefined,
    identity: { dev: number; ino: number },
  ): Promise<Dir> {
    if (handle) {
      if (!procfsReady()) {
        throw new Error(
          "/proc is not mounted: the file tools need it to work beneath the allowed roots safely",
        );
      }
      const dir = new Dir(path, handle);
      dir.#owned = false;
      dir.#root = { path, fd: handle.fd };
      return dir;
    }
    if (addressing() === "descriptor") {
      throw new Error(`${path} is not held open: the file tools refuse to work in it by name`);
    }
    let info: Stats;
    if (DARWIN) {
      const opened = await open(path, constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW_ANY);
      try {
        info = await opened.stat();
      } finally {
        await opened.close();
      }
    } else info = await lstat(path);
    if (!info.isDirectory() || info.dev !== identity.dev || info.ino !== identity.ino) {
      throw new NotADirectory(path, undefined, "ECHANGED");
    }
    return new Dir(path);
  }

  /** A directory addressed by its path, never held open (the state directory, outside the roots). */
  static named(path: string): Dir {
    return new Dir(path);
  }

  /** The descriptor entries are addressed through, if the directory is held open. */
  get fd(): number | undefined {
    return this.#handle?.fd;
  }

  /** The address of the directory itself: for readdir, opendir, fsync. */
  get self(): string {
    if (this.#closed) throw new Error(`${this.path} was used after it was closed`);
    return this.#handle ? `/proc/self/fd/${this.#handle.fd}` : this.path;
  }

  /** The address of entry `name` (one component: no "/", never "." or ".."). */
  at(name: string): string {
    // On Windows `\` separates too: a name holding one would be a path, not one entry.
    if (
      name === "" || name === "." || name === ".." || name.includes("/") ||
      (WINDOWS && name.includes("\\"))
    ) {
      throw new Error(`${JSON.stringify(name)} is not the name of one entry`);
    }
    return this.#handle ? `${this.self}/${name}` : join(this.path, name);
  }

  /** The path of entry `name`, for messages and results. */
  pathOf(name: string): string {
    return join(this.path, name);
  }

  /**
   * Opens subdirectory `name` without following a symbolic link there; with `create`, makes it
   * first when it is missing. Throws NotADirectory when something else (or nothing) is there.
   */
  async child(name: string, create = false): Promise<{ dir: Dir; created: boolean }> {
    const path = this.pathOf(name);
    let created = false;
    for (let attempt = 0;; attempt++) {
      try {
        const flags = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOFOLLOW_ANY;
        if (this.#handle) {
          const dir = new Dir(path, await open(this.at(name), flags));
          dir.#root = this.#root;
          return { dir, created };
        }
        if (DARWIN) await (await open(this.at(name), flags)).close();
        else if (!(await lstat(path)).isDirectory()) {
          throw Object.assign(new Error(), { code: "ENOTDIR" });
        }
        return { dir: new Dir(path), created };
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code ?? "EIO";
        if (code === "ENOENT" && create && attempt < 2) {
          try {
            this.assertBeneath();
            await mkdir(this.at(name));
            created = true;
          } catch (made) {
            if ((made as NodeJS.ErrnoException).code !== "EEXIST") throw plain(this, made);
          }
          continue;
        }
        if (code === "ENOENT" || code === "ENOTDIR" || code === "ELOOP") {
          const info = await lstat(this.at(name)).catch(() => undefined);
          throw new NotADirectory(path, info, info ? code : "ENOENT");
        }
        throw plain(this, error);
      }
    }
  }

  /**
   * childSync for walks: subdirectory `name` opened the same way without waiting on the event
   * loop (a few microseconds; where it can, straight from this directory's descriptor with
   * openat, _beneath_native.ts), or undefined when it is not a directory there (any more).
   */
  childSync(name: string): Dir | undefined {
    const path = this.pathOf(name);
    const flags = constants.O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_NOFOLLOW_ANY;
    try {
      if (this.#handle) {
        const at = this.at(name); // checks that `name` is one entry's name
        const fd = nativeLookups() ? openDirectoryAt(this.#handle.fd, name) : openSync(at, flags);
        if (fd === undefined) return undefined;
        const dir = new Dir(path, { fd, close: () => Promise.resolve(closeSync(fd)) });
        dir.#root = this.#root;
        return dir;
      }
      if (DARWIN) closeSync(openSync(this.at(name), flags));
      else if (!lstatSync(path).isDirectory()) return undefined;
      return new Dir(path);
    } catch {
      return undefined;
    }
  }

  /** entries() without waiting on the event loop, for walks: what each entry is called and is. */
  entriesSync(): ListedKind[] {
    try {
      // A descriptor of its own (not a held root's, which other calls share) is listed straight
      // from it where the system allows (_beneath_native.ts); else, or when that declines, node's.
      const self = this.self; // throws once closed: its number may belong to another file by now
      const fd = this.#owned && nativeLookups() ? this.#handle?.fd : undefined;
      return (fd !== undefined && listDirectory(fd)) || readdirSync(self, { withFileTypes: true });
    } catch (error) {
      throw plain(this, error);
    }
  }

  /** Opens entry `name` as a file; a symbolic link there is never followed. */
  async open(name: string, flags: number, mode?: number): Promise<FileHandle> {
    if (flags & (constants.O_CREAT | constants.O_WRONLY | constants.O_RDWR)) this.assertBeneath();
    try {
      return await open(this.at(name), flags | O_NOFOLLOW | O_NOFOLLOW_ANY, mode);
    } catch (error) {
      throw plain(this, error);
    }
  }

  /**
   * Opens entry `name` for reading: never through a link, and never blocking (a FIFO swapped in
   * for a file must not hang the caller). What was opened may be anything: check it is a file.
   */
  openFile(name: string): Promise<FileHandle> {
    return this.open(name, constants.O_RDONLY | O_NONBLOCK);
  }

  /**
   * openFile() for walks and searches that read thousands of files: a descriptor (close it with
   * closeSync), opened without waiting on the event loop (straight from this directory's
   * descriptor where it can, _beneath_native.ts). Throws as openSync does.
   */
  openFileSync(name: string): number {
    const flags = constants.O_RDONLY | O_NOFOLLOW | O_NOFOLLOW_ANY | O_NONBLOCK;
    const at = this.at(name); // checks that `name` is one entry's name
    if (this.#handle && nativeLookups()) {
      const fd = openEntryAt(this.#handle.fd, name, flags);
      if (fd >= 0) return fd;
      // Failed (rarely: gone, a link, no permission): again through /proc, for the error's code.
    }
    try {
      return openSync(at, flags);
    } catch (error) {
      throw plain(this, error);
    }
  }

  /** Creates entry `name` as a new file for writing (never over anything, never through a link). */
  createFile(name: string, mode = 0o666): Promise<FileHandle> {
    return this.open(name, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL, mode);
  }

  /**
   * Opens entry `name` to append to it, creating it when missing: never through a link, never
   * blocking. What was opened may be anything: check it is a file before writing.
   */
  openForAppend(name: string): Promise<FileHandle> {
    const flags = constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NONBLOCK;
    return this.open(name, flags, 0o666);
  }

  /** What the directory itself is: by its descriptor where held, else by its path. */
  async stat(): Promise<Stats> {
    const held = this.#handle;
    // Not held (Windows, macOS): looked at by its path, which the walk from the root checked.
    if (!held) return await lstat(this.self);
    if (this.#closed) throw new Error(`${this.path} was used after it was closed`);
    return await new Promise((resolve, reject) =>
      fstat(held.fd, (error, info) => (error ? reject(plain(this, error)) : resolve(info)))
    );
  }

  /** What entry `name` is (a link is described, not followed). */
  async lstat(name: string): Promise<Stats> {
    return await lstat(this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  /** lstat() without waiting on the event loop (one call of a few microseconds). */
  lstatSync(name: string): Stats {
    try {
      return lstatSync(this.at(name));
    } catch (error) {
      throw plain(this, error);
    }
  }

  async readlink(name: string): Promise<string> {
    return await readlink(this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  /**
   * Linux, a directory reached from a held root: throws MovedOutOfRoots unless the root is still
   * at its path and this directory still beneath it (readlink of their /proc/self/fd entries).
   * Called before every change made in the directory, so a directory moved out of the roots
   * during a walk gets at most the one change already under way.
   */
  assertBeneath(): void {
    const root = this.#root;
    if (!root || !this.#handle) return;
    let at: string, rootAt: string;
    try {
      at = readlinkSync(`/proc/self/fd/${this.#handle.fd}`);
      rootAt = readlinkSync(`/proc/self/fd/${root.fd}`);
    } catch {
      throw new MovedOutOfRoots(this.path);
    }
    const base = root.path.endsWith("/") ? root.path : `${root.path}/`;
    if (rootAt !== root.path || (at !== root.path && !at.startsWith(base))) {
      throw new MovedOutOfRoots(this.path);
    }
  }

  /**
   * Gives the directory itself the permissions `mode` (a copied or restored tree's, once its
   * content is in). Held: through its descriptor. Not held (macOS): opened by its path without
   * following a link, so one swapped in is refused rather than its target's mode changed.
   */
  async chmod(mode: number): Promise<void> {
    this.assertBeneath();
    // Windows cannot open a directory: by its path, which the walk from the root checked.
    if (WINDOWS) return await chmod(this.self, mode);
    const unheld = O_DIRECTORY | O_NOFOLLOW | O_NOFOLLOW_ANY;
    const handle = await open(this.self, constants.O_RDONLY | (this.fd === undefined ? unheld : 0));
    try {
      await handle.chmod(mode);
    } finally {
      await handle.close();
    }
  }

  async mkdir(name: string): Promise<void> {
    this.assertBeneath();
    await mkdir(this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  async unlink(name: string): Promise<void> {
    this.assertBeneath();
    await unlink(this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  /** Removes entry `name` if it is an empty directory (a link there fails with ENOTDIR). */
  async rmdir(name: string): Promise<void> {
    this.assertBeneath();
    await rmdir(this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  /** Makes entry `name` a symbolic link holding `target` (taken verbatim, never followed). */
  async symlink(target: string, name: string): Promise<void> {
    this.assertBeneath();
    await symlink(target, this.at(name)).catch((error) => Promise.reject(plain(this, error)));
  }

  async entries(): Promise<Dirent[]> {
    return await readdir(this.self, { withFileTypes: true }).catch((error) =>
      Promise.reject(plain(this, error))
    );
  }

  /** Renames entry `from` of this directory to entry `to` of `into`. */
  async rename(from: string, into: Dir, to: string): Promise<void> {
    this.assertBeneath();
    into.assertBeneath();
    try {
      await rename(this.at(from), into.at(to));
    } catch (error) {
      throw plain(into, plain(this, error));
    }
  }

  /** Makes a rename in it durable (where the system can fsync a directory). */
  async sync(): Promise<void> {
    try {
      const handle = await open(this.self, constants.O_RDONLY);
      try {
        await handle.sync();
      } finally {
        await handle.close();
      }
    } catch {
      // Some systems cannot fsync a directory; the rename itself is still atomic.
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#owned) await this.#handle?.close().catch(() => {});
  }
}

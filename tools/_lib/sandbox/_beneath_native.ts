/**
 * Work in an open directory done straight through libc (bun:ffi, which the compiled binary has),
 * for walks that do it thousands of times: `openat(fd, name, O_NOFOLLOW | O_DIRECTORY)` to enter
 * a subdirectory, `statx(fd, name, AT_SYMLINK_NOFOLLOW)` for an entry's modification time, and
 * `getdents64(fd)` to list it. Each works on the directory open as `fd` itself, as
 * `/proc/self/fd/N` does (_beneath.ts), without the detour through procfs (a third of the cost of
 * an open) and without building node's objects. Neither lookup follows a link in `name`.
 *
 * Linux under Bun only. Elsewhere (Deno from source, other systems, a libc without statx) nothing
 * loads and callers use the node:fs calls they used before; until loading is done too (it starts
 * when this module is imported).
 */
import { Buffer } from "node:buffer";
import { constants } from "node:fs";
import process from "node:process";

/** Linux's O_CLOEXEC on x86-64 and arm64 (node's constants lack it): no child inherits it. */
const O_CLOEXEC = 0o2000000;
const AT_SYMLINK_NOFOLLOW = 0x100;
const STATX_MTIME = 0x40;
/** struct statx: 256 bytes; stx_mtime (a 64-bit tv_sec, then a 32-bit tv_nsec) at 112. */
const STATX_SIZE = 256;
const MTIME_OFFSET = 112;

interface Libc {
  openat(dirfd: number, path: Uint8Array, flags: number, mode: number): number;
  statx(dirfd: number, path: Uint8Array, flags: number, mask: number, out: Uint8Array): number;
}

interface Listing {
  getdents64(fd: number, out: Uint8Array, size: number): number | bigint;
  lseek(fd: number, offset: number, whence: number): number | bigint;
}

let libc: Libc | null = null;
/** Loaded apart: a libc without getdents64 (older musl) still has the lookups. */
let listing: Listing | null = null;

async function load(): Promise<Libc | null> {
  if (process.platform !== "linux" || !("Bun" in globalThis)) return null;
  // Off: to compare both ways, and a way out should it misbehave somewhere.
  if (process.env.TOOLHOST_FFI === "off") return null;
  try {
    const specifier = "bun:ffi"; // not a literal: Deno's type check has no such module
    const ffi = await import(specifier);
    const symbols = {
      openat: { args: ["i32", "ptr", "i32", "i32"], returns: "i32" },
      statx: { args: ["i32", "ptr", "i32", "u32", "ptr"], returns: "i32" },
    };
    // glibc's name, then musl's (Alpine ships only the arch-named link without its -dev package).
    const arch = process.arch === "arm64" ? "aarch64" : "x86_64";
    for (const name of ["libc.so.6", `libc.musl-${arch}.so.1`, "libc.so"]) {
      let found: Libc;
      try {
        found = ffi.dlopen(name, symbols).symbols as Libc;
      } catch {
        continue; // not this one
      }
      try {
        listing = ffi.dlopen(name, {
          getdents64: { args: ["i32", "ptr", "usize"], returns: "isize" },
          lseek: { args: ["i32", "i64", "i32"], returns: "i64" },
        }).symbols as Listing;
      } catch {
        // listed through /proc instead
      }
      return found;
    }
  } catch {
    // no FFI here
  }
  return null;
}

const loaded = load().then((found) => (libc = found), () => null);

/** Whether the calls below work here, once loading is done (for callers that can wait for it). */
export async function nativeLookupsLoaded(): Promise<boolean> {
  await loaded;
  return libc !== null;
}

const encoder = new TextEncoder();
/** One entry's name, NUL-terminated (names are at most 255 bytes; 4 per UTF-16 unit at worst). */
const nameBuffer = new Uint8Array(1024);
const statBuffer = new Uint8Array(STATX_SIZE);
const statView = new DataView(statBuffer.buffer);

/** `name` into nameBuffer with its NUL, or false when it cannot be one entry's name. */
function putName(name: string): boolean {
  if (name.length > 255 || name.includes("\0")) return false;
  const { written } = encoder.encodeInto(name, nameBuffer);
  nameBuffer[written] = 0;
  return true;
}

/** Whether the calls below work here (false before loading is done). */
export function nativeLookups(): boolean {
  return libc !== null;
}

/**
 * Opens subdirectory `name` of directory `dirfd` without following a link there: its descriptor,
 * or undefined when it is not a directory there (any more), or cannot be opened. `name` must be
 * one entry's name (_beneath.ts checks it); call only when nativeLookups() is true.
 */
export function openDirectoryAt(dirfd: number, name: string): number | undefined {
  if (!putName(name)) return undefined;
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | O_CLOEXEC;
  const fd = libc!.openat(dirfd, nameBuffer, flags, 0);
  return fd >= 0 ? fd : undefined;
}

/**
 * Opens entry `name` of directory `dirfd` with `flags` (O_CLOEXEC added; the caller gives
 * O_NOFOLLOW): its descriptor, or -1. `name` must be one entry's name; call only when
 * nativeLookups() is true.
 */
export function openEntryAt(dirfd: number, name: string, flags: number): number {
  if (!putName(name)) return -1;
  return libc!.openat(dirfd, nameBuffer, flags | O_CLOEXEC, 0);
}

/**
 * The modification time of entry `name` of directory `dirfd` (a link's own), in milliseconds as
 * node's `mtimeMs` gives it; undefined when the call fails (gone, or a kernel without statx).
 * Call only when nativeLookups() is true.
 */
export function modifiedAt(dirfd: number, name: string): number | undefined {
  if (!putName(name)) return undefined;
  if (libc!.statx(dirfd, nameBuffer, AT_SYMLINK_NOFOLLOW, STATX_MTIME, statBuffer) !== 0) {
    return undefined;
  }
  // stx_mask (at 0): a filesystem that could not give the time leaves it unset.
  if ((statView.getUint32(0, true) & STATX_MTIME) === 0) return undefined;
  const seconds = statView.getUint32(MTIME_OFFSET, true) +
    statView.getInt32(MTIME_OFFSET + 4, true) * 2 ** 32;
  return seconds * 1000 + statView.getUint32(MTIME_OFFSET + 8, true) / 1e6;
}

/** What lookAt() asks statx for: type and mode, inode, size, change and modification times. */
const STATX_LOOK = 0x1 | 0x2 | 0x100 | 0x200 | 0x40 | 0x80;
/** struct statx offsets: stx_mode (u16), stx_ino (u64), stx_size (u64), stx_ctime. */
const MODE_OFFSET = 28;
const INO_OFFSET = 32;
const SIZE_OFFSET = 40;
const CTIME_OFFSET = 96;

/** An entry's kind, mode and identity as lstat gives them (no node Stats object built). */
export interface EntryLook {
  /** st_mode: its type bits (S_IFMT) and permissions. */
  mode: number;
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}

function timeAt(offset: number): number {
  const seconds = statView.getUint32(offset, true) + statView.getInt32(offset + 4, true) * 2 ** 32;
  return seconds * 1000 + statView.getUint32(offset + 8, true) / 1e6;
}

/**
 * What entry `name` of directory `dirfd` is (a link's own, never followed), as lstat would say,
 * for walks that look at every entry; undefined when the call fails or the filesystem leaves a
 * field out. Call only when nativeLookups() is true.
 */
export function lookAt(dirfd: number, name: string): EntryLook | undefined {
  if (!putName(name)) return undefined;
  if (libc!.statx(dirfd, nameBuffer, AT_SYMLINK_NOFOLLOW, STATX_LOOK, statBuffer) !== 0) {
    return undefined;
  }
  if ((statView.getUint32(0, true) & STATX_LOOK) !== STATX_LOOK) return undefined;
  return {
    mode: statView.getUint16(MODE_OFFSET, true),
    ino: Number(statView.getBigUint64(INO_OFFSET, true)),
    size: Number(statView.getBigUint64(SIZE_OFFSET, true)),
    mtimeMs: timeAt(MTIME_OFFSET),
    ctimeMs: timeAt(CTIME_OFFSET),
  };
}

/** d_type values (dirent.h). */
const DT_FIFO = 1, DT_CHR = 2, DT_DIR = 4, DT_BLK = 6, DT_REG = 8, DT_LNK = 10, DT_SOCK = 12;

/** One entry of a listing, answering what node's Dirent answers about its kind. */
export class ListedEntry {
  constructor(readonly name: string, private readonly type: number) {}
  isFile(): boolean {
    return this.type === DT_REG;
  }
  isDirectory(): boolean {
    return this.type === DT_DIR;
  }
  isSymbolicLink(): boolean {
    return this.type === DT_LNK;
  }
  isFIFO(): boolean {
    return this.type === DT_FIFO;
  }
  isSocket(): boolean {
    return this.type === DT_SOCK;
  }
  isCharacterDevice(): boolean {
    return this.type === DT_CHR;
  }
  isBlockDevice(): boolean {
    return this.type === DT_BLK;
  }
}

/** getdents64's output; a directory larger than one buffer is read in several calls. */
const listBuffer = new Uint8Array(32_768);
const listView = new DataView(listBuffer.buffer);
const bytes = Buffer.from(listBuffer.buffer);

/**
 * The entries of the directory open as `fd`, read from its start (without "." and ".."), or
 * undefined where node's readdir must answer instead: no getdents64 here, a failed call, a name
 * that is not plain ASCII (node's decoding of other bytes stays the one authority), or an entry
 * whose kind the filesystem does not give. Moves the descriptor's offset: call only on a
 * descriptor nothing else lists.
 */
export function listDirectory(fd: number): ListedEntry[] | undefined {
  if (!listing || Number(listing.lseek(fd, 0, 0)) !== 0) return undefined;
  const entries: ListedEntry[] = [];
  for (;;) {
    const filled = Number(listing.getdents64(fd, listBuffer, listBuffer.length));
    if (filled < 0) return undefined;
    if (filled === 0) return entries;
    // One string, a character per byte, for all the names: each name (checked to be ASCII) is
    // then a slice of it.
    const text = bytes.toString("latin1", 0, filled);
    // struct linux_dirent64: u64 d_ino, s64 d_off, u16 d_reclen, u8 d_type, char d_name[].
    for (let at = 0; at < filled;) {
      const length = listView.getUint16(at + 16, true);
      const type = listBuffer[at + 18];
      const start = at + 19;
      let end = start;
      let byte;
      while ((byte = listBuffer[end]) !== 0) {
        if (byte >= 0x80) return undefined;
        end++;
      }
      if (type === 0) return undefined; // DT_UNKNOWN
      const name = text.slice(start, end);
      if (name !== "." && name !== "..") entries.push(new ListedEntry(name, type));
      at += length;
    }
  }
}

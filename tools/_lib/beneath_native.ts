/**
 * Two lookups in an open directory made straight through libc (bun:ffi, which the compiled binary
 * has), for walks that make thousands of them: `openat(fd, name, O_NOFOLLOW | O_DIRECTORY)` to
 * enter a subdirectory and `statx(fd, name, AT_SYMLINK_NOFOLLOW)` for an entry's modification
 * time. Each looks up the one entry `name` of directory `fd`, as `/proc/self/fd/N/name` does
 * (beneath.ts), without the detour through procfs (a third of the cost) and, for the time, without
 * building a Stats object. Neither follows a link in `name`.
 *
 * Linux under Bun only. Elsewhere (Deno from source, other systems, a libc without statx) nothing
 * loads and callers use the node:fs calls they used before; until loading is done too (it starts
 * when this module is imported).
 */
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

let libc: Libc | null = null;

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
    // glibc's name, then musl's.
    for (const name of ["libc.so.6", "libc.so"]) {
      try {
        return ffi.dlopen(name, symbols).symbols as Libc;
      } catch {
        // not this one
      }
    }
  } catch {
    // no FFI here
  }
  return null;
}

load().then((found) => (libc = found), () => {});

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
 * one entry's name (beneath.ts checks it); call only when nativeLookups() is true.
 */
export function openDirectoryAt(dirfd: number, name: string): number | undefined {
  if (!putName(name)) return undefined;
  const flags = constants.O_RDONLY | constants.O_DIRECTORY | constants.O_NOFOLLOW | O_CLOEXEC;
  const fd = libc!.openat(dirfd, nameBuffer, flags, 0);
  return fd >= 0 ? fd : undefined;
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
  const seconds = statView.getUint32(MTIME_OFFSET, true) +
    statView.getInt32(MTIME_OFFSET + 4, true) * 2 ** 32;
  return seconds * 1000 + statView.getUint32(MTIME_OFFSET + 8, true) / 1e6;
}

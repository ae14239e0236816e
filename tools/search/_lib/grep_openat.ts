/**
 * openat(2) through bun:ffi (which the compiled binary has), for reading rg's files again beneath
 * the held directory: an entry opened relative to a directory descriptor, where the alternative,
 * a path through /proc/self/fd/N, costs two to three times as much in the kernel (for thousands
 * of files a search). Linux only; without such FFI (Deno, other systems) it is undefined and
 * grep_held.ts uses /proc paths.
 */
import process from "node:process";

/** A descriptor for `name` in the directory `dirFd` (O_CLOEXEC added), or -1. */
export type OpenAt = (dirFd: number, name: string, flags: number) => number;

/** Never inherited by the commands toolhost runs (Linux's value on every architecture it has). */
const O_CLOEXEC = 0o2000000;
const LIBRARIES = ["libc.so.6", "libc.so", "libc.musl-x86_64.so.1", "libc.musl-aarch64.so.1"];

let openAt: Promise<OpenAt | undefined> | undefined;

/** openat, loaded once; undefined where it cannot be. */
export function loadOpenAt(): Promise<OpenAt | undefined> {
  openAt ??= load();
  return openAt;
}

async function load(): Promise<OpenAt | undefined> {
  if (process.platform !== "linux" || !("Bun" in globalThis)) return undefined;
  let ffi;
  try {
    const specifier = "bun:ffi"; // not a literal: Deno's type check has no such module
    ffi = await import(specifier);
  } catch {
    return undefined;
  }
  for (const library of LIBRARIES) {
    try {
      const { symbols } = ffi.dlopen(library, {
        openat: { args: ["i32", "ptr", "i32"], returns: "i32" },
      });
      const encoder = new TextEncoder();
      return (dirFd, name, flags) => {
        // A name with a NUL byte would name another entry: never opened.
        if (name.includes("\0")) return -1;
        return symbols.openat(dirFd, encoder.encode(`${name}\0`), flags | O_CLOEXEC);
      };
    } catch {
      // not this library
    }
  }
  return undefined;
}

/**
 * toolhost-confine, the small program that confines a process on Linux (linux/confine.c). The
 * compiled binary carries it as an embedded file (scripts/build.ts); from source it is the one
 * `deno task build` left in dist/. Either way it is run from toolhost's state directory, under a
 * name with its digest, written there once (a 0700 directory, a 0500 file) and checked against
 * that digest before each server uses it: the state directory is never writable by a confined
 * command, and a file changed there by anything else is replaced.
 */
import { createHash } from "node:crypto";
import {
  chmodSync,
  closeSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  unlinkSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";

interface EmbeddedFile extends Blob {
  name: string;
}

/** Bun names an embedded file after its own, perhaps with a hash: toolhost-confine-265qx59j. */
const EMBEDDED_NAME = /^toolhost-confine(-[a-z0-9]+)?\.?$/;

/** The helper's bytes, and where they came from (for messages); a reason when there are none. */
async function helperBytes(): Promise<{ bytes: Uint8Array } | { unavailable: string }> {
  const bun = (globalThis as { Bun?: { embeddedFiles?: EmbeddedFile[] } }).Bun;
  const files = bun?.embeddedFiles ?? [];
  const embedded = files.find((file) => EMBEDDED_NAME.test(file.name));
  if (embedded) return { bytes: new Uint8Array(await embedded.arrayBuffer()) };
  if (files.length > 0) {
    return { unavailable: "this toolhost was built without its sandbox helper (toolhost-confine)" };
  }
  const built = fileURLToPath(new URL("../../../dist/toolhost-confine", import.meta.url));
  try {
    return { bytes: readFileSync(built) };
  } catch {
    return {
      unavailable: `the sandbox helper is not built (${built}); run \`deno task build\` first`,
    };
  }
}

function digestOf(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}

/** The directory for it, made 0700 and required to be a directory of ours. */
function binDirectory(stateDir: string): string {
  const dir = join(stateDir, "bin");
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const info = lstatSync(dir);
  const uid = process.getuid?.();
  if (!info.isDirectory() || (uid !== undefined && info.uid !== uid)) {
    throw new Error(`${dir} is not a directory of this user's`);
  }
  if ((info.mode & 0o077) !== 0) chmodSync(dir, 0o700);
  return dir;
}

/** Whether `path` is a regular file whose content has `digest`. */
function holds(path: string, digest: string): boolean {
  try {
    if (!lstatSync(path).isFile()) return false;
    return digestOf(readFileSync(path)) === digest;
  } catch {
    return false;
  }
}

/** Writes `bytes` to `path` through a file of its own, renamed into place. */
function install(path: string, bytes: Uint8Array): void {
  const temporary = `${path}.${process.pid}.tmp`;
  const fd = openSync(temporary, "wx", 0o500);
  try {
    writeSync(fd, bytes);
  } finally {
    closeSync(fd);
  }
  try {
    renameSync(temporary, path);
  } catch (error) {
    unlinkSync(temporary);
    throw error;
  }
}

let found: Promise<{ path: string } | { unavailable: string }> | undefined;

/** The helper's path in the state directory, ready to run, or why there is none. Once a server. */
export function helperPath(stateDir: string): Promise<{ path: string } | { unavailable: string }> {
  found ??= (async () => {
    const source = await helperBytes();
    if ("unavailable" in source) return source;
    const digest = digestOf(source.bytes);
    try {
      const path = join(binDirectory(stateDir), `toolhost-confine-${digest.slice(0, 16)}`);
      if (!holds(path, digest)) {
        try {
          unlinkSync(path);
        } catch {
          // not there
        }
        install(path, source.bytes);
      }
      return { path };
    } catch (error) {
      return {
        unavailable: `the sandbox helper could not be put in ${stateDir}: ${
          (error as Error).message
        }`,
      };
    }
  })();
  return found;
}

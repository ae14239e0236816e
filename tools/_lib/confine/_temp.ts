/**
 * Private temporary directories: one per MCP session for its commands (TMPDIR points there; /tmp
 * itself is not writable under the sandbox), and one for the language servers of this toolhost.
 * They live in `<os tmpdir>/toolhost-<uid>/`, which must be ours and closed to others; each is
 * named after the process that made it, so one left by a toolhost that was killed is removed by
 * the next.
 */
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmdirSync,
  rmSync,
  unlinkSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { SessionKey } from "../../../mcp/tool/mod.ts";

/**
 * `<os tmpdir>/toolhost-<uid>`, made 0700 (in /tmp when TMPDIR names no usable directory);
 * refused when someone else could have made it.
 */
function parent(): string {
  const uid = process.getuid?.() ?? 0;
  let dir = join(tmpdir(), `toolhost-${uid}`);
  try {
    mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT" && process.platform !== "win32") {
      dir = join("/tmp", `toolhost-${uid}`);
      try {
        mkdirSync(dir, { mode: 0o700 });
      } catch (again) {
        if ((again as NodeJS.ErrnoException).code !== "EEXIST") throw again;
      }
    } else if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
  }
  const info = lstatSync(dir);
  if (!info.isDirectory() || info.uid !== uid || (info.mode & 0o077) !== 0) {
    throw new Error(
      `${dir} is not a directory of this user's closed to others (mode 0700); remove it, or set ` +
        "TMPDIR to a private directory",
    );
  }
  return dir;
}

let swept = false;

/** Removes what toolhosts no longer running left (their pid ended; a live pid's is kept). */
function sweep(dir: string): void {
  if (swept) return;
  swept = true;
  for (const name of readdirSync(dir)) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!pid || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ESRCH") removeTree(join(dir, name));
    }
  }
}

/** A new private directory `<parent>/<pid>-<label>-<random>`. */
export function makeTemp(label: string): string {
  const dir = parent();
  sweep(dir);
  return mkdtempSync(join(dir, `${process.pid}-${label}-`));
}

/**
 * Removes a tree a command wrote, whatever modes it left: a directory without write permission
 * (Go's module cache makes them 0555) is opened up first. Never follows a link.
 */
export function removeTree(path: string): void {
  try {
    rmSync(path, { recursive: true, force: true });
    return;
  } catch {
    // a directory it cannot write into: open them up, then again
  }
  const walk = (dir: string) => {
    try {
      chmodSync(dir, 0o700);
      for (const name of readdirSync(dir)) {
        const child = join(dir, name);
        if (lstatSync(child).isDirectory()) walk(child);
        else unlinkSync(child);
      }
      rmdirSync(dir);
    } catch {
      // gone meanwhile, or not ours: what is left stays until the next sweep
    }
  };
  walk(path);
}

/** The session's temporary directory, made at its first command and removed when it ends. */
export const SESSION_TEMP = new SessionKey(
  "the session's temporary directory",
  () => makeTemp("session"),
  (dir) => removeTree(dir),
);

let serverTemp: string | undefined;

/** One temporary directory for the language servers of this toolhost, removed at exit. */
export function serverTempDir(): string {
  if (serverTemp) return serverTemp;
  const dir = makeTemp("servers");
  serverTemp = dir;
  process.once("exit", () => removeTree(dir));
  return dir;
}

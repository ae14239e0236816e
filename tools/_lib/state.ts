/**
 * What must outlive a server (task lists, plan mode): kept per user in the state directory
 * (`ctx.state.dir`), per project (keyed by the first root), written atomically, and changed under a lock
 * file so that two servers on one project never interleave their read-modify-write.
 */
import { createHash, randomBytes } from "node:crypto";
import { mkdir, open, readFile, realpath, rm } from "node:fs/promises";
import { basename, join } from "node:path";
import process from "node:process";
import { ToolError } from "../../mcp/tool/mod.ts";
import { openByPath, UNFOLLOWED_READ } from "./sandbox/mod.ts";
import { replaceOwnFile } from "./transaction/mod.ts";

/** How much of the root's name a project directory's name keeps: file names have a limit. */
const MAX_NAME_CHARS = 64;

/**
 * The state directory of the project whose first root is `root`: readable (the root's name)
 * and unique (a digest of its full path). Not created: for checks that must leave no trace.
 */
export function projectStatePath(stateDir: string, root: string): string {
  const digest = createHash("sha256").update(root).digest("hex").slice(0, 12);
  const name = basename(root).replace(/[^\w.-]/g, "_").slice(0, MAX_NAME_CHARS) || "root";
  return join(stateDir, "projects", `${name}-${digest}`);
}

/**
 * The project's state directory (see projectStatePath), created on first use, as its real path:
 * atomic writes refuse a directory whose path leads elsewhere, as a symlinked state root does.
 */
export async function projectStateDir(stateDir: string, root: string): Promise<string> {
  const dir = projectStatePath(stateDir, root);
  await mkdir(dir, { recursive: true });
  return await realpath(dir);
}

/** A lock file with no pid in it is left by a holder that died before writing one, once this old. */
const UNWRITTEN_STALE_MS = 5_000;
const WAIT_MS = 10_000;

/** A lock file as read: what it says (`<pid> <token>`), and which file it was. */
interface LockFile {
  text: string;
  pid?: number;
  ino: number;
  mtimeMs: number;
}

/**
 * A lock file is read never through a link, never blocking (a FIFO put in a lock's place would
 * hold the reader for ever; read, it gives no pid and ages like an unwritten lock).
 */
async function readLock(path: string): Promise<LockFile | undefined> {
  let handle;
  try {
    handle = await openByPath(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return undefined;
    // A link in the lock's place: a lock nobody holds (its own age decides when it is broken).
    if (code === "ELOOP") return { text: "", ino: -1, mtimeMs: 0 };
    throw error;
  }
  try {
    // One handle: the text and the inode belong to the same file.
    const info = await handle.stat();
    const text = info.isFile() ? await handle.readFile("utf8") : "";
    const pid = Number(/^\d+/.exec(text)?.[0]);
    return {
      text,
      pid: Number.isSafeInteger(pid) && pid > 0 ? pid : undefined,
      ino: info.ino,
      mtimeMs: info.mtimeMs,
    };
  } finally {
    await handle.close();
  }
}

/**
 * Whether a lock's holder is gone. Only a dead pid says so: a live holder may be slow, and
 * breaking its lock would let two writers in.
 */
function abandoned(lock: LockFile): boolean {
  if (lock.pid === undefined) return Date.now() - lock.mtimeMs > UNWRITTEN_STALE_MS;
  try {
    process.kill(lock.pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Creates `path` holding `token`; false when it already exists. */
async function create(path: string, token: string): Promise<boolean> {
  let handle;
  try {
    handle = await open(path, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EEXIST") return false;
    throw error;
  }
  try {
    await handle.writeFile(token);
  } catch (error) {
    await handle.close();
    await rm(path, { force: true });
    throw error;
  }
  await handle.close();
  return true;
}

/** Removes `path` only while it holds `token`: a lock that is no longer ours is its holder's. */
async function removeIfOurs(path: string, token: string): Promise<void> {
  // Its text alone, in one call: every journal append ends here.
  const text = await readFile(path, { encoding: "utf8", flag: UNFOLLOWED_READ }).catch(() =>
    undefined
  );
  if (text === token) {
    await rm(path, { force: true });
  }
}

/**
 * Removes `lock`, which was `seen` abandoned, and says whether it did. Breakers take turns
 * through `<lock>.break` and remove the lock only if it is still the one they saw: otherwise two
 * waiters could both judge one dead lock stale, and the second would remove the lock the first
 * had just taken.
 */
async function breakAbandoned(lock: string, seen: LockFile, token: string): Promise<boolean> {
  const breaker = `${lock}.break`;
  if (!(await create(breaker, token))) {
    // A breaker that died in its moment of breaking would stop every later one.
    const other = await readLock(breaker);
    if (other && abandoned(other)) await rm(breaker, { force: true });
    return false;
  }
  try {
    const now = await readLock(lock);
    if (!now || now.ino !== seen.ino || now.text !== seen.text || !abandoned(now)) return false;
    await rm(lock, { force: true });
    return true;
  } finally {
    await removeIfOurs(breaker, token);
  }
}

/** Runs `work` holding `<path>.lock`, shared by every toolhost process on this machine. */
export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  // This process, and which of its calls: one server runs many calls at once.
  const token = `${process.pid} ${randomBytes(8).toString("hex")}\n`;
  const deadline = Date.now() + WAIT_MS;
  while (!(await create(lock, token))) {
    const holder = await readLock(lock);
    if (!holder) continue; // released meanwhile
    if (abandoned(holder) && (await breakAbandoned(lock, holder, token))) continue;
    if (Date.now() > deadline) {
      const who = holder.pid === undefined ? "another toolhost" : `process ${holder.pid}`;
      throw new ToolError(
        `${path} stayed locked by ${who} for ${WAIT_MS / 1000} s; try again (if no toolhost ` +
          `is running, remove ${lock})`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
  }
  try {
    return await work();
  } finally {
    await removeIfOurs(lock, token);
  }
}

/** Reads a JSON state file; `fallback` when there is none yet. */
export async function readState<T>(path: string, fallback: T): Promise<T> {
  let text: string;
  try {
    text = await readFile(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return fallback;
    throw error;
  }
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new ToolError(
      `${path} is not valid JSON; fix or remove it (it holds toolhost's saved state)`,
    );
  }
}

export async function writeState(path: string, value: unknown): Promise<void> {
  await replaceOwnFile(path, new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n"));
}

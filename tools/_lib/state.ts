/**
 * What must outlive a server (task lists, plan mode): kept per user in the platform's state
 * directory, per project (keyed by the first root), written atomically, and changed under a lock
 * file so that two servers on one project never interleave their read-modify-write.
 */
import { createHash } from "node:crypto";
import { mkdir, open, readFile, rm, stat } from "node:fs/promises";
import { homedir } from "node:os";
import { basename, join } from "node:path";
import process from "node:process";
import { ToolError } from "../../mcp/tool.ts";
import { writeFileAtomic } from "./atomic_write.ts";

/** The user's toolhost state directory; TOOLHOST_STATE_DIR overrides it. */
export function stateRoot(): string {
  const override = process.env.TOOLHOST_STATE_DIR;
  if (override) return override;
  const home = homedir();
  switch (process.platform) {
    case "darwin":
      return join(home, "Library", "Application Support", "toolhost");
    case "win32":
      return join(process.env.LOCALAPPDATA ?? join(home, "AppData", "Local"), "toolhost");
    default:
      return join(process.env.XDG_STATE_HOME || join(home, ".local", "state"), "toolhost");
  }
}

/**
 * The state directory of the project whose first root is `root`: readable (the root's name)
 * and unique (a digest of its full path). Not created: for checks that must leave no trace.
 */
export function projectStatePath(root: string): string {
  const digest = createHash("sha256").update(root).digest("hex").slice(0, 12);
  const name = basename(root).replace(/[^\w.-]/g, "_") || "root";
  return join(stateRoot(), "projects", `${name}-${digest}`);
}

/** The project's state directory (see projectStatePath), created on first use. */
export async function projectStateDir(root: string): Promise<string> {
  const dir = projectStatePath(root);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** A lock older than this is left over from a process that died holding it. */
const STALE_MS = 30_000;
const WAIT_MS = 10_000;

/** Whether a lock's holder is gone: its process has died, or it has held it far too long. */
async function isStale(lock: string): Promise<boolean> {
  const info = await stat(lock).catch(() => null);
  if (!info) return false; // released meanwhile: just try again
  if (Date.now() - info.mtimeMs > STALE_MS) return true;
  // Empty while its holder is still writing the pid: not stale.
  const pid = Number((await readFile(lock, "utf8").catch(() => "")).trim());
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}

/** Runs `work` holding `<path>.lock`, shared by every toolhost process on this machine. */
export async function withLock<T>(path: string, work: () => Promise<T>): Promise<T> {
  const lock = `${path}.lock`;
  const deadline = Date.now() + WAIT_MS;
  for (;;) {
    try {
      const handle = await open(lock, "wx");
      await handle.writeFile(String(process.pid));
      await handle.close();
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
      if (await isStale(lock)) {
        await rm(lock, { force: true });
        continue;
      }
      if (Date.now() > deadline) {
        throw new ToolError(
          `${path} stayed locked by another toolhost for ${WAIT_MS / 1000} s; try again`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 10 + Math.random() * 40));
    }
  }
  try {
    return await work();
  } finally {
    await rm(lock, { force: true });
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
  await writeFileAtomic(path, new TextEncoder().encode(JSON.stringify(value, null, 2) + "\n"));
}

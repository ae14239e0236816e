/**
 * Child processes in their own process groups, so a timeout, a cancel or shutdown reaches every
 * process a command started (pipelines, subshells, grandchildren), not just the shell.
 * Every group started here is remembered until it is empty, so shutdown can kill what is left.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import process from "node:process";

const liveGroups = new Set<number>();

/** Spawns `file` as the leader of a new process group (and session: no controlling terminal). */
export function spawnInGroup(file: string, args: string[], options: SpawnOptions): ChildProcess {
  const child = spawn(file, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) {
    liveGroups.add(pgid);
    child.once("exit", () => {
      if (!groupAlive(pgid)) liveGroups.delete(pgid);
    });
  }
  return child;
}

export function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** SIGTERM to the group, then SIGKILL if anything in it is still alive after `graceMs`. */
export async function terminateGroup(pgid: number, graceMs: number): Promise<void> {
  signalGroup(pgid, "SIGTERM");
  const deadline = Date.now() + graceMs;
  while (groupAlive(pgid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
  liveGroups.delete(pgid);
}

/** Kills every group this process started that may still have members. Used at exit. */
export function killAllGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

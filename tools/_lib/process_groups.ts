/**
 * Child processes in their own process groups, so a timeout, a cancel or shutdown reaches every
 * process a command started (pipelines, subshells, grandchildren), not just the shell.
 * Every group started here is remembered until it is empty, so shutdown can kill what is left.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

const liveGroups = new Set<number>();

/** Spawns `file` as the leader of a new process group (and session: no controlling terminal). */
export function spawnInGroup(file: string, args: string[], options: SpawnOptions): ChildProcess {
  // Forget groups that have ended, so a recycled pgid is never signalled at exit.
  for (const pgid of liveGroups) if (!groupAlive(pgid)) liveGroups.delete(pgid);
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

/**
 * Whether any process in the group is still running. Zombies do not count: where PID 1 does not
 * reap orphans (many containers), a finished group can linger as zombies indefinitely.
 */
export function groupAlive(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
  return process.platform === "linux" ? hasRunningMember(pgid) : true;
}

/** Scans /proc for a member of the group that is not a zombie. */
function hasRunningMember(pgid: number): boolean {
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
  }
  return false;
}

/**
 * Sends `first` (SIGTERM unless told otherwise) to the group, then SIGKILL if anything in it is
 * still alive after `graceMs`.
 */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  first: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  signalGroup(pgid, first);
  const deadline = Date.now() + (first === "SIGKILL" ? 0 : graceMs);
  while (groupAlive(pgid) && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
  liveGroups.delete(pgid);
}

/** Kills every group this process started that may still have members. Used at exit. */
export function killAllGroups(): void {
  for (const pgid of liveGroups) signalGroup(pgid, "SIGKILL");
  liveGroups.clear();
}

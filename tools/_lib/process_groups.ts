/**
 * Child processes in their own process groups, so a timeout, a cancel or shutdown reaches every
 * process a command started (pipelines, subshells, grandchildren), not just the shell.
 * Every group started here is remembered until it is empty, so shutdown can kill what is left.
 */
import { type ChildProcess, spawn, type SpawnOptions } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** Groups we started, and whether their leader (the process we spawned) has exited. */
const groups = new Map<number, { leaderExited: boolean }>();
let lastPrune = 0;

/** Spawns `file` as the leader of a new process group (and session: no controlling terminal). */
export function spawnInGroup(file: string, args: string[], options: SpawnOptions): ChildProcess {
  pruneEndedGroups();
  const child = spawn(file, args, { ...options, detached: true });
  const pgid = child.pid;
  if (pgid !== undefined) {
    const entry = { leaderExited: false };
    groups.set(pgid, entry);
    child.once("exit", () => {
      entry.leaderExited = true;
      if (!signalGroup(pgid, 0)) groups.delete(pgid);
    });
  }
  return child;
}

/** Sends `signal` to the group; false when the group no longer exists. */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EPERM") return true;
  }
  // Just after spawn the child may not have made its group yet: then it is the whole group.
  if (groups.get(pgid)?.leaderExited !== false) return false;
  try {
    process.kill(pgid, signal);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Whether any process in the group is still running. Zombies do not count: where PID 1 does not
 * reap orphans (many containers), a finished group can linger as zombies indefinitely.
 */
export function groupAlive(pgid: number): boolean {
  if (!signalGroup(pgid, 0)) return false;
  if (groups.get(pgid)?.leaderExited === false) return true;
  return process.platform === "linux" ? runningGroups().has(pgid) : true;
}

let snapshot: { at: number; groups: Set<number> } | undefined;

/**
 * Process groups with a member that is not a zombie, from one scan of /proc shared by every
 * caller within 50 ms: many commands ending at once must not mean one scan each.
 */
function runningGroups(): Set<number> {
  const now = Date.now();
  if (snapshot && now - snapshot.at < 50) return snapshot.groups;
  const running = new Set<number>();
  for (const entry of readdirSync("/proc")) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    // "pid (comm) state ppid pgrp ...": comm may contain spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3);
    if (fields[0] !== "Z" && fields[0] !== "X") running.add(Number(fields[2]));
  }
  snapshot = { at: now, groups: running };
  return running;
}

/** Forgets groups that have ended, at most once a second, so a recycled pgid is never signalled. */
function pruneEndedGroups(): void {
  const now = Date.now();
  if (now - lastPrune < 1000) return;
  lastPrune = now;
  for (const [pgid, entry] of groups) {
    if (entry.leaderExited && !groupAlive(pgid)) groups.delete(pgid);
  }
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
  groups.delete(pgid);
}

/** Kills every group this process started that may still have members. Used at exit. */
export function killAllGroups(): void {
  for (const pgid of groups.keys()) signalGroup(pgid, "SIGKILL");
  groups.clear();
}

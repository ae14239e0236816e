/**
 * Child processes in their own process groups, so a timeout, a cancel or shutdown reaches every
 * process a command started (pipelines, subshells, grandchildren), not just the shell.
 * Every group started here is remembered until it is empty, so shutdown can kill what is left.
 *
 * A process that leaves the group (`setsid`, a daemon's double fork) is still found: every
 * process started here carries TOOLHOST_RUN=<server token>.<run number> in its environment, which
 * its descendants inherit, and on Linux the kills below also reach every process whose
 * /proc/<pid>/environ holds the mark. If the server is killed outright (SIGKILL, a crash), a
 * watchdog does the same: a small shell in its own session that reads a pipe from the server
 * and, at end-of-file, kills the groups it was told of and every process carrying the token.
 */
import { type ChildProcess, spawn, type SpawnOptions, spawnSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { Buffer } from "node:buffer";
import { Watchdog } from "./_watchdog.ts";
import { treeKillOutcome, treeKillPlan } from "./_windows_tree_kill.ts";
import { endJob, jobFor, type JobHandle } from "./_windows_job.ts";

/**
 * Windows has no process groups: a "group" is the tree under the process we started, ended with
 * taskkill /T /F (_windows_tree_kill.ts); no marks are found and no watchdog runs.
 */
const WINDOWS = process.platform === "win32";

/** The environment variable that marks every process we start and its descendants. */
export const RUN_VARIABLE = "TOOLHOST_RUN";

/** Groups we started, and whether their leader (the process we spawned) has exited. */
const groups = new Map<number, { leaderExited: boolean }>();
let lastPrune = 0;

/** This server's random token, made at the first spawn; then the number of the last run. */
let token: string | undefined;
let runs = 0;
/**
 * The mark of the run each group leader started, `TOOLHOST_RUN=<token>.<n>`, kept after the
 * leader exits (bash_kill may come later for what it left); keyed by pid, so bounded.
 */
const marks = new Map<number, Buffer>();
/** Windows: the job each command's tree is in, by the pid of the process we started. */
const jobs = new Map<number, JobHandle>();

/** What a process is started as: its program, arguments, environment and argv[0]. */
export interface Launch {
  file: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  argv0?: string;
  /** Descriptors from 3 on that the process is given (stdio entries past stderr). */
  keep?: number[];
  /**
   * Its process group is made by the confining helper, in toolhost's session and without its
   * terminal (GroupOptions.sameSession); a wrapper that cannot leaves it unset in what it returns.
   */
  ownGroup?: boolean;
}

/**
 * How a process is confined: a wrapper made by the sandbox (tools/_lib/confine), which turns the
 * launch into the confining helper's, or a sentence saying why it runs unconfined. Required by
 * spawnInGroup, so no call site can start a process without deciding.
 */
export type Confinement =
  | {
    readonly wrap: (launch: Launch) => Launch;
    /** Told of the process once it runs (its network ends when it exits). */
    readonly started?: (child: ChildProcess) => void;
    readonly unconfined?: undefined;
  }
  | { readonly unconfined: string; readonly wrap?: undefined; readonly started?: undefined };

export interface GroupOptions {
  /** How the process is confined; see Confinement. */
  confinement: Confinement;
  /**
   * Started to outlive the server (a dev server the user wants kept): no mark, and not killed
   * at shutdown or by the watchdog. Stopping it explicitly still stops its group.
   */
  outliveServer?: boolean;
  /**
   * Whose run it is (a session's name, letters and digits): the mark then names it, so
   * endRunsOf(owner) finds what the owner's commands left running, `setsid` and daemons included.
   */
  owner?: string;
  /**
   * A process group of its own inside toolhost's session rather than a session of its own, where
   * the confining helper can make it (Linux): still without the controlling terminal. A session
   * is also a scheduling group (Linux autogroups): under load, a language server's every request
   * and answer waited for its group's turn (2-31% of typescript-language-server's warm answers on
   * a busy 2-core machine). Commands keep a session of their own.
   */
  sameSession?: boolean;
}

/**
 * Spawns `file` as the leader of a new process group, and of a new session (no controlling
 * terminal) unless `sameSession` and its helper makes the group.
 */
export function spawnInGroup(
  file: string,
  args: string[],
  options: SpawnOptions,
  { confinement, outliveServer = false, owner, sameSession = false }: GroupOptions,
): ChildProcess {
  pruneEndedGroups();
  const env = { ...(options.env ?? process.env) };
  let mark: string | undefined;
  if (outliveServer) delete env[RUN_VARIABLE];
  else env[RUN_VARIABLE] = mark = `${serverToken()}.${owner ? `${owner}.` : ""}${++runs}`;
  // The mark is in the environment before the wrapper sees it: the helper execs the program
  // with it, so the process we track is the program itself.
  const extra = Array.isArray(options.stdio) ? options.stdio.length - 3 : 0;
  const keep = Array.from({ length: Math.max(0, extra) }, (_, i) => i + 3);
  const launch: Launch = confinement.wrap
    ? confinement.wrap({ file, args, env, argv0: options.argv0, keep, ownGroup: sameSession })
    : { file, args, env, argv0: options.argv0 };
  // Windows: detached would give it a console of its own and let it outlive us; only when asked.
  const child = spawn(launch.file, launch.args, {
    ...options,
    env: launch.env,
    argv0: launch.argv0,
    detached: WINDOWS ? outliveServer : !launch.ownGroup,
    windowsHide: true,
  });
  confinement.started?.(child);
  const pgid = child.pid;
  // Windows: a kill-on-close job holds the tree (_windows_job.ts); its handle is never closed
  // by us, so Windows ends what is left in it when toolhost ends, however it ends.
  if (WINDOWS && pgid !== undefined && !outliveServer) {
    const job = jobFor(pgid);
    if (job !== undefined) jobs.set(pgid, job);
  }
  if (pgid !== undefined && mark !== undefined) {
    const entry = { leaderExited: false };
    groups.set(pgid, entry);
    marks.set(pgid, Buffer.from(`${RUN_VARIABLE}=${mark}`));
    watchdog.add(pgid);
    child.once("exit", () => {
      entry.leaderExited = true;
      if (!signalGroup(pgid, 0)) forget(pgid);
      else schedulePrune();
    });
  }
  return child;
}

function serverToken(): string {
  if (token) return token;
  const bytes = crypto.getRandomValues(new Uint8Array(8));
  token = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
  return token;
}

/** Stops remembering a group that has ended (so its recycled pgid is never signalled). */
function forget(pgid: number): void {
  if (groups.delete(pgid)) watchdog.remove(pgid);
  jobs.delete(pgid); // its handle stays open: Windows ends what is left in it when we end
}

/**
 * Sends `signal` to the group; false when the group no longer exists (or, on Linux, when nothing
 * in it is ours). On Linux a group we marked is signalled only as far as it is still ours
 * (`signalOwned`): its pgid may have been recycled for someone else's group.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  if (WINDOWS) return signalTree(pgid, signal);
  const mark = marks.get(pgid);
  if (signal !== 0 && mark && process.platform === "linux") {
    return signalOwned(new Map([[pgid, mark]]), signal) > 0;
  }
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

/** Windows: 0 asks whether the process lives; any signal ends it and its tree, forcibly. */
function signalTree(pid: number, signal: NodeJS.Signals | 0): boolean {
  if (signal !== 0) {
    // The job ends what taskkill cannot find (a process whose parent exited); taskkill then
    // ends what started before the job held the tree.
    const job = jobs.get(pid);
    const jobEnded = job !== undefined && endJob(job);
    jobs.delete(pid); // ended once; its handle stays open (closing it would end nothing more)
    const plan = treeKillPlan(pid, process.env);
    const result = spawnSync(plan.file, plan.args, { stdio: "ignore", windowsHide: true });
    const outcome = treeKillOutcome(result.status);
    if (outcome === "killed") return true;
    if (outcome === "gone" || jobEnded) return jobEnded;
  }
  try {
    process.kill(pid, signal === 0 ? 0 : "SIGKILL"); // taskkill failed: at least the process
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

/**
 * Forgets groups that have ended (and tells the watchdog), at most once a second unless `now`,
 * so a recycled pgid is not remembered as ours.
 */
function pruneEndedGroups(now = false): void {
  if (!now && Date.now() - lastPrune < 1000) return;
  lastPrune = Date.now();
  for (const [pgid, entry] of groups) {
    if (entry.leaderExited && !groupAlive(pgid)) forget(pgid);
  }
}

let pruneTimer: ReturnType<typeof setInterval> | undefined;

/**
 * While a group whose leader exited is remembered (something it left in the background still
 * runs), prunes every second, not only at the next spawn: a server that starts nothing more must
 * not remember, and have the watchdog remember, a pgid that ended and may be recycled. Unref'd.
 */
function schedulePrune(): void {
  if (pruneTimer) return;
  pruneTimer = setInterval(() => {
    pruneEndedGroups(true);
    if (![...groups.values()].some((entry) => entry.leaderExited)) {
      clearInterval(pruneTimer);
      pruneTimer = undefined;
    }
  }, 1000);
  (pruneTimer as { unref?: () => void }).unref?.();
}

/**
 * Linux: signals what is still ours of each group in `targets` (pgid → the mark of the run that
 * started it), from one scan of /proc, and returns how many signals were sent. A group whose
 * leader (the process whose pid is the pgid) still lives, leads the group and carries the run's
 * mark is ours for certain (a pgid is not reused while its group has a member), so the whole group
 * is signalled, members without the mark included. Otherwise only the group's members that carry
 * the mark are signalled, each by pid: a recycled pgid, now someone else's group, gets nothing.
 * The cost: once the leader has exited, a member that dropped the mark is not reached.
 */
export function signalOwned(
  targets: Map<number, Uint8Array>,
  signal: NodeJS.Signals,
  proc = "/proc",
): number {
  const leaders = new Set<number>();
  const members = new Map<number, number[]>();
  let entries: string[];
  try {
    entries = readdirSync(proc);
  } catch {
    return 0;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    const pid = Number(entry);
    let stat: string;
    try {
      stat = readFileSync(`${proc}/${entry}/stat`, "utf8");
    } catch {
      continue;
    }
    const pgrp = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ", 3)[2]);
    const mark = targets.get(pgrp) ?? targets.get(pid);
    if (!mark || pid === process.pid) continue;
    let environ: Buffer;
    try {
      environ = readFileSync(`${proc}/${entry}/environ`);
    } catch {
      continue;
    }
    if (!holds(environ, mark, true)) continue;
    if (targets.has(pgrp)) {
      if (pid === pgrp) leaders.add(pgrp);
      members.set(pgrp, [...members.get(pgrp) ?? [], pid]);
    } else members.set(-pid, [pid]); // its leader, not yet (or no longer) in the group
  }
  let sent = 0;
  const send = (target: number) => {
    try {
      process.kill(target, signal);
      sent++;
    } catch {
      // ended meanwhile
    }
  };
  for (const [pgrp, pids] of members) {
    if (leaders.has(pgrp)) send(-pgrp);
    else for (const pid of pids) send(pid);
  }
  return sent;
}

/**
 * Whether anything the group's leader started still runs: the group, or (Linux) a process that
 * left it but carries the run's mark.
 */
export function runAlive(pgid: number): boolean {
  const mark = marks.get(pgid);
  return groupAlive(pgid) || (mark !== undefined && markedProcesses(mark, true).length > 0);
}

/**
 * Sends `first` (SIGTERM unless told otherwise) to the group and to the processes that left it
 * carrying the run's mark, then SIGKILL to whatever of them is still alive after `graceMs`.
 */
export async function terminateGroup(
  pgid: number,
  graceMs: number,
  first: NodeJS.Signals = "SIGTERM",
): Promise<void> {
  const mark = marks.get(pgid);
  signalGroup(pgid, first);
  if (mark && first !== "SIGKILL") signalMarked(mark, true, first, false);
  const deadline = Date.now() + (first === "SIGKILL" ? 0 : graceMs);
  while (Date.now() < deadline && runAlive(pgid)) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  if (groupAlive(pgid)) signalGroup(pgid, "SIGKILL");
  if (mark) signalMarked(mark, true, "SIGKILL", true);
  forget(pgid);
  marks.delete(pgid);
}

/**
 * Ends what one owner's runs left running (a session that ends): their groups, and (Linux) every
 * process carrying an owner's mark, which is how one that left its group (`setsid`, a daemon's
 * double fork) is found. SIGTERM first, SIGKILL to what is left after `graceMs`.
 *
 * @example A session's commands end with it
 * ```ts
 * spawnInGroup("/bin/sh", ["-c", "setsid sleep 600 &"], {}, { confinement, owner: "s1a2" });
 * await endRunsOf("s1a2", 2_000); // the sleep is gone
 * ```
 */
export async function endRunsOf(owner: string, graceMs: number): Promise<void> {
  if (!token) return; // nothing was ever started
  const prefix = Buffer.from(`${RUN_VARIABLE}=${token}.${owner}.`);
  const owned = [...groups.keys()].filter((pgid) => {
    const mark = marks.get(pgid);
    return mark !== undefined && mark.subarray(0, prefix.length).equals(prefix);
  });
  const groupsEnded = Promise.all(owned.map((pgid) => terminateGroup(pgid, graceMs)));
  signalMarked(prefix, false, "SIGTERM", false);
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && markedProcesses(prefix, false).length > 0) {
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  signalMarked(prefix, false, "SIGKILL", true);
  await groupsEnded;
}

/**
 * Kills every group this process started that may still have members, and every process that
 * carries this server's token. Used at exit. While the watchdog runs, the sweep for the token is
 * left to it: it makes the same sweep the moment we have exited, and our exit does not wait.
 */
export function killAllGroups(): void {
  const targets = new Map<number, Uint8Array>();
  for (const pgid of groups.keys()) {
    const mark = marks.get(pgid);
    if (mark && process.platform === "linux") targets.set(pgid, mark);
    else signalGroup(pgid, "SIGKILL");
  }
  if (targets.size > 0) signalOwned(targets, "SIGKILL");
  groups.clear();
  marks.clear();
  if (token && !watchdog.running) {
    signalMarked(Buffer.from(`${RUN_VARIABLE}=${token}.`), false, "SIGKILL", true);
  }
}

/**
 * Signals the processes carrying `mark` in their environment (Linux; elsewhere none are found).
 * With `untilNone`, scans again after each round until a scan finds no process not yet signalled:
 * a child forked before its parent was killed shows up in the next scan, and a killed process
 * can fork no more. Bounded, for a fork bomb.
 */
function signalMarked(
  mark: Buffer,
  exact: boolean,
  signal: NodeJS.Signals,
  untilNone: boolean,
): void {
  const signalled = new Set<number>();
  for (let round = 0; round < (untilNone ? 50 : 1); round++) {
    const fresh = markedProcesses(mark, exact).filter((pid) => !signalled.has(pid));
    if (fresh.length === 0) return;
    for (const pid of fresh) {
      signalled.add(pid);
      try {
        process.kill(pid, signal);
      } catch {
        // ended meanwhile
      }
    }
  }
}

/**
 * Processes whose environment holds `mark` as a whole variable (`exact`) or as the start of one.
 * Only our user's processes are readable, which are the only ones we could signal anyway; a
 * process that made itself undumpable (ssh-agent) or rewrote its environment is not found.
 */
function markedProcesses(mark: Buffer, exact: boolean): number[] {
  if (process.platform !== "linux") return [];
  const found: number[] = [];
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return found;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue; // not a pid
    let environ: Buffer;
    try {
      environ = readFileSync(`/proc/${entry}/environ`);
    } catch {
      continue;
    }
    if (holds(environ, mark, exact)) found.push(Number(entry));
  }
  return found.filter((pid) => pid !== process.pid);
}

/** Whether the NUL-separated `environ` has a variable that is, or starts with, `mark`. */
export function holds(environ: Uint8Array, mark: Uint8Array, exact: boolean): boolean {
  const haystack = Buffer.from(environ.buffer, environ.byteOffset, environ.byteLength);
  for (let at = haystack.indexOf(mark); at >= 0; at = haystack.indexOf(mark, at + 1)) {
    if (at > 0 && haystack[at - 1] !== 0) continue;
    const end = at + mark.length;
    if (!exact || end === haystack.length || haystack[end] === 0) return true;
  }
  return false;
}

const watchdog = new Watchdog({
  variable: RUN_VARIABLE,
  token: () => token,
  groups: () => groups.keys(),
});

/**
 * Lets a watchdog process kill what we started if this server dies without its orderly exit
 * (SIGKILL, a crash). The server's entry point calls it; library code and tests do not.
 */
export function enableWatchdog(): void {
  watchdog.enabled = !WINDOWS; // a /bin/sh script: POSIX only
}

/**
 * The watchdog: a small /bin/sh process in its own session that reads a pipe from the server and,
 * at end-of-file (the server exited, however it exited), kills the groups it was told of and every
 * process carrying the server's token. What it guards is _process_groups.ts's.
 *
 * The commands it guards run as the same user and can see it. It ignores the signals a process
 * can catch; killed outright (SIGKILL), it is replaced by the server as soon as the server sees
 * its exit, and the new one is told of every group.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { delimiter, isAbsolute } from "node:path";
import process from "node:process";

/** Where the watchdog's cat, grep and sleep are looked for first: the system's own. */
const SYSTEM_DIRS = ["/usr/bin", "/bin", "/usr/sbin", "/sbin"];

/**
 * The watchdog's PATH: the system's directories first, then the absolute entries of toolhost's
 * (where a system keeps its tools elsewhere, as NixOS does). The watchdog runs outside the command
 * sandbox, and a relative entry (`node_modules/.bin`, taken from its working directory, a root) or
 * one in a root (an activated `.venv/bin`) would have it run a `grep` a command wrote there.
 *
 * @example
 * watchdogPath("node_modules/.bin:/work/app/.venv/bin:/usr/bin"); // "/usr/bin:/bin:…:/work/app/.venv/bin"
 */
export function watchdogPath(path: string | undefined): string {
  const rest = (path ?? "").split(delimiter).filter((dir) =>
    isAbsolute(dir) && !SYSTEM_DIRS.includes(dir)
  );
  return [...SYSTEM_DIRS, ...rest].join(delimiter);
}

/**
 * The watchdog's script. $1 is the server's token. Lines on stdin name the groups to kill
 * (`+ pgid`) and those that ended (`- pgid`); at end-of-file, which comes when the server exits
 * however it exits, it kills those groups, then (with /proc) every process carrying the token,
 * scanning again until none is left. It carries no mark itself, so no sweep kills it first.
 * With /proc a group is killed only while its leader lives, leads it and carries the token (so
 * the group is ours, not a recycled pgid); the token sweep reaches the rest of what is ours.
 */
function watchdogScript(variable: string): string {
  return `t=$1
trap '' HUP INT QUIT TERM USR1 USR2 ALRM
groups=
while read -r op pgid; do
  case $op in
  +) groups="$groups $pgid" ;;
  -) kept=
     for g in $groups; do [ "$g" = "$pgid" ] || kept="$kept $g"; done
     groups=$kept ;;
  esac
done
for g in $groups; do
  if [ -d /proc/self ]; then
    s=$(cat "/proc/$g/stat" 2>/dev/null) || continue
    set -- \${s##*") "}
    [ "$3" = "$g" ] || continue
    grep -qsaF -e "${variable}=$t." "/proc/$g/environ" || continue
  fi
  kill -s KILL -- "-$g" 2>/dev/null
done
[ -d /proc/self ] || exit 0
n=0
while [ $n -lt 50 ]; do
  found=$(grep -lsaF -e "${variable}=$t." /proc/[0-9]*/environ 2>/dev/null)
  [ -n "$found" ] || exit 0
  for f in $found; do p=\${f#/proc/}; kill -s KILL "\${p%/environ}" 2>/dev/null; done
  n=$((n + 1))
  sleep 0.02 2>/dev/null || sleep 1
done`;
}

/**
 * How long group starts and ends are collected before they are sent to the watchdog. On Linux the
 * token finds nearly everything, and the list matters only for a process that dropped the mark
 * but stayed in its group; elsewhere the list is all the watchdog has.
 */
const BATCH_MS = process.platform === "linux" ? 200 : 0;

/**
 * Started at the first spawn after `enableWatchdog()`, just after it (a microtask: the command is
 * already running, and no event is handled in between). Killed by a signal (a command can kill
 * it: it runs as the same user), it is started again as soon as its exit is seen, however often;
 * ended on its own (it could not start, or lost its pipe), again at the next spawn, a few times at
 * most. Its own session, so a signal to the server's group does not reach it; its stdout and
 * stderr go nowhere, so it never holds the server's stdout open.
 */
export class Watchdog {
  enabled = false;
  #child: ChildProcess | undefined;
  #starting = false;
  #starts = 0;
  /** Groups to tell it of (true) or that ended (false), sent together a moment later. */
  #pending = new Map<number, boolean>();
  #flush: ReturnType<typeof setTimeout> | undefined;

  /** `variable` is the marking variable; `token` this server's, once made; `groups` ours now. */
  constructor(
    private readonly server: {
      variable: string;
      token(): string | undefined;
      groups(): Iterable<number>;
    },
  ) {}

  add(pgid: number): void {
    if (this.#child) this.#queue(pgid, true);
    else if (this.enabled && !this.#starting && this.#starts < 3) {
      this.#starting = true;
      queueMicrotask(() => this.#start());
    }
  }

  remove(pgid: number): void {
    if (this.#child) this.#queue(pgid, false);
  }

  get running(): boolean {
    return this.#child !== undefined && this.#child.exitCode === null &&
      this.#child.signalCode === null;
  }

  /**
   * The group list only matters for processes that dropped the mark but stayed in their group:
   * a quick command's start and end cancel out here, and cost the watchdog nothing.
   */
  #queue(pgid: number, started: boolean): void {
    if (!started && this.#pending.get(pgid) === true) this.#pending.delete(pgid);
    else this.#pending.set(pgid, started);
    if (this.#flush || this.#pending.size === 0) return;
    this.#flush = setTimeout(() => {
      this.#flush = undefined;
      const lines = [...this.#pending].map(([pgid, on]) => `${on ? "+" : "-"} ${pgid}\n`);
      this.#pending.clear();
      this.#send(lines.join(""));
    }, BATCH_MS);
    this.#flush.unref?.();
  }

  /** `replacing`: the one before was killed, which does not count against the starts allowed. */
  #start(replacing = false): void {
    this.#starting = false;
    const token = this.server.token();
    if (this.#child || !token) return;
    if (!replacing) this.#starts++;
    const env: NodeJS.ProcessEnv = { ...process.env, PATH: watchdogPath(process.env.PATH) };
    delete env[this.server.variable]; // an outer toolhost's mark: its sweep must not kill us first
    let child: ChildProcess;
    try {
      const script = watchdogScript(this.server.variable);
      child = spawn("/bin/sh", ["-c", script, "toolhost-watchdog", token], {
        env,
        stdio: ["pipe", "ignore", "ignore"],
        detached: true,
      });
    } catch {
      return;
    }
    child.on("error", () => {}); // not started: the exit below, or nothing, follows
    child.stdin?.on("error", () => {});
    child.once("exit", (_code, signal) => {
      if (this.#child !== child) return;
      this.#child = undefined;
      // Killed, by a command most likely: replace it now, not at the next spawn, which may not
      // come before the server itself is killed. The server's own exit ends it with an end of
      // file, not a signal, and leaves no event loop to get here.
      if (signal !== null && this.enabled) this.#start(true);
    });
    if (child.pid === undefined) return;
    child.unref();
    (child.stdin as { unref?: () => void } | null)?.unref?.();
    this.#child = child;
    this.#send([...this.server.groups()].map((pgid) => `+ ${pgid}\n`).join(""));
  }

  #send(lines: string): void {
    if (lines) this.#child?.stdin?.write(lines);
  }
}

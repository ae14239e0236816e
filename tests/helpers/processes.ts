/**
 * The process table, read from /proc (these tests run on Linux). Zombies count as gone: where
 * PID 1 does not reap orphans, a killed process can stay a zombie indefinitely.
 */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

function state(pid: string | number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return undefined;
  }
}

export function isRunning(pid: number): boolean {
  const s = state(pid);
  return s !== undefined && s !== "Z" && s !== "X";
}

/** Running processes whose command line contains `marker`, as "pid: command line". */
export function processesWith(marker: string): string[] {
  const found: string[] = [];
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (cmdline.includes(marker) && isRunning(Number(pid))) found.push(`${pid}: ${cmdline}`);
    } catch {
      // exited while we looked
    }
  }
  return found;
}

export async function waitUntil(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (check()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return check();
}

/** The inotify watches process `pid` holds, counted from /proc/<pid>/fdinfo (Linux). */
export function inotifyWatches(pid: number): number {
  let count = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    let target = "";
    try {
      target = readlinkSync(`/proc/${pid}/fd/${fd}`);
    } catch {
      continue; // closed while we looked
    }
    if (!target.includes("inotify")) continue;
    const info = readFileSync(`/proc/${pid}/fdinfo/${fd}`, "utf8");
    count += info.split("\n").filter((line) => line.startsWith("inotify wd:")).length;
  }
  return count;
}

/**
 * What a process group (a server and what it started) uses, read from /proc: its resident
 * memory (the ceiling) and its CPU time (whether a silent server is working or frozen).
 */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/**
 * Calls `each` with the /proc entry and the stat fields after the command's name (state first)
 * of every process in group `pgid`; false where there is no /proc to read.
 */
function forEachInGroup(pgid: number, each: (entry: string, fields: string[]) => void): boolean {
  if (process.platform !== "linux") return false;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return false;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue;
    try {
      const statLine = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = statLine.slice(statLine.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue; // the process group
      each(entry, fields);
    } catch {
      // ended meanwhile
    }
  }
  return true;
}

/** Resident MB of every process in group `pgid` (Linux), or undefined elsewhere. */
export function groupResidentMb(pgid: number | undefined): number | undefined {
  if (pgid === undefined) return undefined;
  let kb = 0;
  const read = forEachInGroup(pgid, (entry) => {
    const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "latin1"));
    if (rss) kb += Number(rss[1]);
  });
  return read ? kb / 1024 : undefined;
}

/**
 * The CPU time used by group `pgid` so far, in clock ticks (Linux: user and system time of
 * its processes and of their ended children), or undefined elsewhere.
 */
export function groupCpuTicks(pgid: number | undefined): number | undefined {
  if (pgid === undefined) return undefined;
  let ticks = 0;
  const read = forEachInGroup(pgid, (_entry, fields) => {
    // utime, stime, cutime, cstime: stat's fields 14-17, the 12th to 15th after the name.
    for (let i = 11; i <= 14; i++) ticks += Number(fields[i]) || 0;
  });
  return read ? ticks : undefined;
}

/** The resident memory of a process group (a server and what it started), read from /proc. */
import { readdirSync, readFileSync } from "node:fs";
import process from "node:process";

/** Resident MB of every process in group `pgid` (Linux), or undefined elsewhere. */
export function groupResidentMb(pgid: number | undefined): number | undefined {
  if (pgid === undefined || process.platform !== "linux") return undefined;
  let kb = 0;
  let entries: string[];
  try {
    entries = readdirSync("/proc");
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    if (entry.charCodeAt(0) > 57) continue;
    try {
      const statLine = readFileSync(`/proc/${entry}/stat`, "latin1");
      const fields = statLine.slice(statLine.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue; // the process group
      const rss = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${entry}/status`, "latin1"));
      if (rss) kb += Number(rss[1]);
    } catch {
      // ended meanwhile
    }
  }
  return kb / 1024;
}

/** Children of a process and where its standard streams lead, read from /proc (Linux). */
import { readdirSync, readFileSync, readlinkSync } from "node:fs";

export function childrenOf(pid: number): number[] {
  const children: number[] = [];
  for (const name of readdirSync("/proc").filter((entry) => /^\d+$/.test(entry))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      if (parent === pid) children.push(Number(name));
    } catch {
      // exited while we looked
    }
  }
  return children;
}

/** What fds 0, 1 and 2 of `pid` are, e.g. ["pipe:[123]", "pipe:[124]", "pipe:[125]"]. */
export function stdioOf(pid: number): string[] {
  return [0, 1, 2].map((fd) => readlinkSync(`/proc/${pid}/fd/${fd}`));
}

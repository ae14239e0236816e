/**
 * CPU milliseconds a process has used (Linux, /proc/<pid>/stat, in clock ticks of 10 ms): its
 * own, all threads, and that of its children it has waited for. Unlike wall time, hardly moved
 * by other load on the machine; summed over many runs, the ticks' coarseness averages out.
 */
import { readFileSync } from "node:fs";

const CLOCK_TICKS_PER_MS = 100 / 1000;

export function cpuMs(pid: number | "self"): { own: number; children: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ms = (a: number, b: number) => (Number(fields[a]) + Number(fields[b])) / CLOCK_TICKS_PER_MS;
  return { own: ms(11, 12), children: ms(13, 14) };
}

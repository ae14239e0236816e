/**
 * Stopping a whole process tree on Windows, where there are no process groups or signals to
 * send: `taskkill /PID <pid> /T /F` ends the process and every process whose parent chain leads
 * to it. Pure (the plan and the reading of its exit code), so it is unit-tested on Linux; the
 * spawning is done by _process_groups.ts.
 *
 * Beside it, each command's tree is held by a kill-on-close Job Object where bun:ffi exists
 * (_windows_job.ts): that ends what /T cannot find (a process whose parent has exited), and
 * everything left when toolhost itself ends, killed outright too. taskkill stays the fallback
 * (from source under Deno, or when a job could not be made). See docs/security.md.
 */
import { win32 } from "node:path";

export interface KillPlan {
  file: string;
  args: string[];
}

/** The taskkill command that ends `pid` and its descendants, forcibly (there is no SIGTERM). */
export function treeKillPlan(pid: number, env: Record<string, string | undefined>): KillPlan {
  if (!Number.isSafeInteger(pid) || pid <= 0) throw new RangeError(`not a process id: ${pid}`);
  const systemRoot = env.SystemRoot || env.SYSTEMROOT || "C:\\Windows";
  return {
    file: win32.join(systemRoot, "System32", "taskkill.exe"),
    args: ["/PID", String(pid), "/T", "/F"],
  };
}

/**
 * What taskkill's exit code means: 0 ended it, 128 no such process (already gone), anything
 * else a failure (access denied, or part of the tree could not be ended: 255).
 */
export function treeKillOutcome(code: number | null): "killed" | "gone" | "failed" {
  if (code === 0) return "killed";
  if (code === 128) return "gone";
  return "failed";
}

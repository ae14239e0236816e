/**
 * The guard against ignore files rg must not read (a FIFO, a link to /dev/zero, one out of the
 * roots, one over 1 MB). On Linux it runs beside rg rather than before it: rg (walking in path
 * order on one thread) and `find` then share the two cores, and rg's results are held until the
 * guard has spoken. rg then runs under a cap on its memory (RG_DATA_LIMIT_BYTES), and it is
 * killed as soon as the guard names such a file, so a FIFO cannot hold the call and /dev/zero
 * cannot take more than the cap (in practice what rg reads until find ends, a few MB).
 */
import { canRun } from "./ripgrep_path.ts";
import type { FileHandle } from "node:fs/promises";
import { delimiter, join } from "node:path";
import process from "node:process";
import { type Confinement, signalGroup, spawnInGroup } from "../../../../_lib/processes/mod.ts";
import {
  IgnoreFileReader,
  MAX_IGNORE_FILE_BYTES,
  type SkippedIgnoreFile,
} from "../../../../_lib/sandbox/mod.ts";

/**
 * rg's data segment (heap) while it runs beside the guard. rg's own peak for the densest file
 * grep searches (10 MB of one-character matches, with --json) is about 520 MB: twice that leaves
 * room, and still bounds a link to /dev/zero read before the guard ends.
 */
export const RG_DATA_LIMIT_BYTES = 1024 * 1024 * 1024;

let beside: boolean | undefined;

/**
 * Whether the guard may run beside rg (looked at once per process): on Linux, where rg can be
 * started under a memory cap (/bin/sh's `ulimit -d`, which Linux honours) and killed with its
 * group, and with a `find` on PATH. Without find the guard finds nothing, and rg must then keep
 * --max-filesize from the start.
 */
export function guardBesideRg(): boolean {
  beside ??= process.platform === "linux" && canRun("/bin/sh") &&
    (process.env.PATH ?? "").split(delimiter).some((dir) => dir && canRun(join(dir, "find")));
  return beside;
}

/** What the guard found under the searched directory. */
export interface GuardFindings {
  /** Ignore files rg would read although the built-in search would not, in path order. */
  odd: SkippedIgnoreFile[];
  /**
   * Whether there may be files over grep's size limit (find saw one, or could not look): rg then
   * needs --max-filesize to keep out of them. (Without it rg reports the same files, since a
   * file it reports is read again and dropped when too large; but it would spend its time on
   * them.) Only asked for with `withLargeFiles`.
   */
  largeFiles: boolean;
}

/**
 * The ignore files under `dir` that rg would read although the built-in search would not: rg opens
 * every .gitignore and .rgignore it meets (--no-ignore-dot does not stop .rgignore) and reads it
 * whole, so a FIFO there blocks it until the time limit, a link to /dev/zero never ends, and a link
 * out of the roots or a file over 1 MB brings rules the built-in search does not apply. `find`
 * (which reads no file) names the candidates: links, anything not a regular file, and files over
 * the limit; IgnoreFileReader judges them as the built-in walk will. Cheap: only names are
 * compared. None when find is unavailable (then rg runs as before). With `withLargeFiles`, find
 * also looks for regular files over `largeFileBytes` (a stat of every file, which rg then need
 * not make).
 */
export async function guardFindings(
  dir: string,
  contains: (real: string) => boolean,
  inside: (real: string) => Promise<FileHandle>,
  deadline: number,
  signal: AbortSignal,
  confinement: Confinement,
  largeFileBytes?: number,
): Promise<GuardFindings> {
  const unknown = { odd: [], largeFiles: largeFileBytes !== undefined };
  if (process.platform === "win32" || signal.aborted) return unknown;
  const args = [
    dir,
    ...["(", "-name", ".git", "-o", "-name", "node_modules", ")", "-prune", "-o"],
    ...["(", "-name", ".gitignore", "-o", "-name", ".rgignore", ")"],
    ...["(", "-type", "l", "-o", "!", "-type", "f"],
    ...["-o", "-size", `+${MAX_IGNORE_FILE_BYTES / 1024}k`, ")", "-print0"],
  ];
  // Any other regular file over the limit (POSIX: the size in bytes, c).
  if (largeFileBytes !== undefined) {
    args.push("-o", "-type", "f", "-size", `+${largeFileBytes}c`, "-print0");
  }
  let child;
  try {
    child = spawnInGroup("find", args, { stdio: ["ignore", "pipe", "ignore"] }, { confinement });
  } catch {
    return unknown;
  }
  const found: string[] = [];
  let largeFiles = false;
  let pending = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (text: string) => {
    const parts = (pending + text).split("\0");
    pending = parts.pop()!;
    for (const path of parts) {
      // A tree with this many odd ignore files is judged by the first ones: one is enough.
      if (/(^|\/)\.(git|rg)ignore$/.test(path)) {
        if (found.length < 1000) found.push(path);
      } else largeFiles = true;
    }
  });
  let running = true;
  let complete = false;
  const stop = () => {
    if (running && child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
    if (running) child.kill("SIGKILL"); // as in ripgrepBatches: mid-exec it may be passed over
  };
  const timer = setTimeout(stop, Math.max(0, deadline - Date.now()));
  signal.addEventListener("abort", stop);
  try {
    await new Promise<void>((done) => {
      child.once("error", () => done()); // no find: nothing found
      // Killed, find has not looked everywhere. (An unreadable directory, its exit code 1, is
      // one rg cannot read either.)
      child.once("close", (_code, by) => {
        complete = by === null;
        done();
      });
    });
  } finally {
    running = false;
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  }
  const reader = new IgnoreFileReader(contains, inside);
  // In path order, as the built-in search will report them.
  for (const path of found.sort()) await reader.read(path);
  return { odd: reader.skipped, largeFiles: largeFiles || (!complete && unknown.largeFiles) };
}

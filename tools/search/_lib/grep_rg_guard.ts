/**
 * The guard against ignore files rg must not read (a FIFO, a link to /dev/zero, one out of the
 * roots, one over 1 MB). On Linux it runs beside rg rather than before it: rg (walking in path
 * order on one thread) and `find` then share the two cores, and rg's results are held until the
 * guard has spoken. Meanwhile rg runs under a cap on its memory (RG_DATA_LIMIT_BYTES), and it is
 * killed as soon as the guard names such a file, so a FIFO cannot hold the call and /dev/zero
 * cannot take more than the cap (in practice what rg reads until find ends, a few MB).
 */
import type { FileHandle } from "node:fs/promises";
import process from "node:process";
import { signalGroup, spawnInGroup } from "../../_lib/process_groups.ts";
import {
  IgnoreFileReader,
  MAX_IGNORE_FILE_BYTES,
  type SkippedIgnoreFile,
} from "../../_lib/gitignore_read.ts";

/**
 * rg's data segment (heap) while it runs beside the guard. rg's own peak for the densest file
 * grep searches (10 MB of one-character matches, with --json) is about 520 MB: twice that leaves
 * room, and still bounds a link to /dev/zero read before the guard ends.
 */
export const RG_DATA_LIMIT_BYTES = 1024 * 1024 * 1024;

/**
 * Whether the guard may run beside rg: where rg can be started under a memory cap (a POSIX shell's
 * `ulimit -d` is honoured by Linux) and killed with its group.
 */
export const GUARD_BESIDE_RG = process.platform === "linux";

/**
 * The ignore files under `dir` that rg would read although the built-in search would not: rg opens
 * every .gitignore and .rgignore it meets (--no-ignore-dot does not stop .rgignore) and reads it
 * whole, so a FIFO there blocks it until the time limit, a link to /dev/zero never ends, and a link
 * out of the roots or a file over 1 MB brings rules the built-in search does not apply. `find`
 * (which reads no file) names the candidates: links, anything not a regular file, and files over
 * the limit; IgnoreFileReader judges them as the built-in walk will. Cheap: only names are
 * compared. Empty when find is unavailable (then rg runs as before).
 */
export async function ignoreFilesRgCannotRead(
  dir: string,
  contains: (real: string) => boolean,
  inside: (real: string) => Promise<FileHandle>,
  deadline: number,
  signal: AbortSignal,
): Promise<SkippedIgnoreFile[]> {
  if (process.platform === "win32" || signal.aborted) return [];
  const args = [
    dir,
    ...["(", "-name", ".git", "-o", "-name", "node_modules", ")", "-prune", "-o"],
    ...["(", "-name", ".gitignore", "-o", "-name", ".rgignore", ")"],
    ...["(", "-type", "l", "-o", "!", "-type", "f"],
    ...["-o", "-size", `+${MAX_IGNORE_FILE_BYTES / 1024}k`, ")", "-print0"],
  ];
  let child;
  try {
    child = spawnInGroup("find", args, { stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return [];
  }
  const found: string[] = [];
  let pending = "";
  child.stdout!.setEncoding("utf8");
  child.stdout!.on("data", (text: string) => {
    const parts = (pending + text).split("\0");
    pending = parts.pop()!;
    // A tree with this many odd ignore files is judged by the first ones: one is enough.
    if (found.length < 1000) found.push(...parts);
  });
  let running = true;
  const stop = () => {
    if (running && child.pid !== undefined) signalGroup(child.pid, "SIGKILL");
  };
  const timer = setTimeout(stop, Math.max(0, deadline - Date.now()));
  signal.addEventListener("abort", stop);
  try {
    await new Promise<void>((done) => {
      child.once("error", () => done()); // no find: nothing found
      child.once("close", () => done());
    });
  } finally {
    running = false;
    clearTimeout(timer);
    signal.removeEventListener("abort", stop);
  }
  const reader = new IgnoreFileReader(contains, inside);
  // In path order, as the built-in search will report them.
  for (const path of found.slice(0, 1000).sort()) await reader.read(path);
  return reader.skipped;
}

/**
 * The files a skill bundles (scripts, references, templates): listed, never followed out of the
 * skill's directory, and bounded so a skill holding a whole project stays readable.
 */
import { realpath, stat } from "node:fs/promises";
import { isWithin } from "../../_lib/sandbox/mod.ts";
import { Walk } from "../../_lib/walk/walk.ts";

export interface BundledFiles {
  /** Paths relative to the skill's directory, "/"-separated, in walk order. */
  files: string[];
  /** Files past the listing limit. */
  more: number;
  /** Symbolic links leading out of the skill's directory (or nowhere), left out. */
  linksOut: number;
  /** Whether the walk stopped early (entry or time limit, or the call was cancelled). */
  incomplete: boolean;
}

const MAX_LISTED = 100;
const MAX_ENTRIES = 5_000;
const WALK_MS = 2_000;

export async function bundledFiles(dir: string, signal?: AbortSignal): Promise<BundledFiles> {
  const top = await realpath(dir);
  const inside = (real: string) => real !== top && isWithin(top, real);
  const walk = new Walk({
    respectIgnores: true,
    maxEntries: MAX_ENTRIES,
    deadline: Date.now() + WALK_MS,
    signal,
  });
  const found: BundledFiles = { files: [], more: 0, linksOut: 0, incomplete: false };
  for await (const entry of walk.entries(top)) {
    if (entry.rel === "SKILL.md" || entry.kind === "directory") continue;
    if (entry.kind === "symlink") {
      const target = await realpath(entry.path).catch(() => null);
      if (target === null || !inside(target)) {
        found.linksOut++;
        continue;
      }
      if (!(await stat(target).catch(() => null))?.isFile()) continue;
    } else if (entry.kind !== "file") {
      continue;
    }
    if (found.files.length < MAX_LISTED) found.files.push(entry.rel);
    else found.more++;
  }
  found.incomplete = walk.stopped !== undefined;
  return found;
}

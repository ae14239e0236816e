/**
 * Programs toolhost runs outside the command sandbox (the journal's git, the renderer's browser)
 * or lets a read-only language server look up, found on PATH only where no command can have put
 * one: an absolute directory whose path and real path lie in no root. Commands write the roots,
 * and a PATH entry inside one (an activated `.venv/bin`, direnv's `node_modules/.bin`) or a
 * relative one (taken from a working directory in a root) would run what they wrote.
 *
 * @example
 * ```ts
 * dirsOutside("node_modules/.bin:/work/app/.venv/bin:/usr/bin", ["/work/app"]); // ["/usr/bin"]
 * programOutside("git", process.env.PATH, ["/work/app"]); // "/usr/bin/git"
 * ```
 */
import { accessSync, constants, realpathSync, statSync } from "node:fs";
import { delimiter, isAbsolute, join } from "node:path";
import { isWithin } from "./sandbox/mod.ts";

/** PATH's directories (`path` as PATH is written) that are absolute and, really too, in no root. */
export function dirsOutside(path: string | undefined, roots: Iterable<string>): string[] {
  const avoid = [...roots];
  return (path ?? "").split(delimiter).filter((dir) =>
    isAbsolute(dir) && !inside(avoid, dir) && !inside(avoid, realOrSelf(dir))
  );
}

/**
 * The first `name` in those directories that is an executable file whose real path lies in no
 * root either (a link from outside to a program in a root), as found there; or undefined.
 */
export function programOutside(
  name: string,
  path: string | undefined,
  roots: Iterable<string>,
): string | undefined {
  const avoid = [...roots];
  for (const dir of dirsOutside(path, avoid)) {
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      const real = realpathSync(candidate);
      if (statSync(real).isFile() && !inside(avoid, real)) return candidate;
    } catch {
      // not there, or not a program
    }
  }
  return undefined;
}

function inside(roots: readonly string[], path: string): boolean {
  return roots.some((root) => isWithin(root, path));
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

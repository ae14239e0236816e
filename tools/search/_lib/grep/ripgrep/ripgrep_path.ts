/**
 * Which rg grep runs: the one on PATH first (the user's choice, possibly newer; relative entries
 * are passed over), else the one a release ships beside the toolhost executable (`rg` in the
 * archives and npm packages, `toolhost-rg` where install.sh puts it, so as not to shadow another
 * rg in a shared bin folder), else none (grep's built-in search answers).
 * Under `deno run` or `bun run` the running executable is the runtime itself, so the second place
 * finds an rg only if one happens to sit beside that runtime.
 */
import { accessSync, constants } from "node:fs";
import { delimiter as posixDelimiter, dirname, isAbsolute, join, win32 } from "node:path";
import process from "node:process";

export interface RipgrepPlaces {
  /** The PATH variable as it is (undefined when unset). */
  path: string | undefined;
  /** The running executable (`process.execPath`). */
  execPath: string;
  /** `process.platform`: on Windows the executable is rg.exe and PATH is ;-separated. */
  platform: string;
  /** Whether a file can be run; by default, an access(X_OK) check. */
  runnable?: (file: string) => boolean;
}

/** Whether `file` can be run by this process (access X_OK). */
export function canRun(file: string): boolean {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where rg is, in the order above, or undefined. Looks only at the places it is given. */
export function locateRipgrep(places: RipgrepPlaces): string | undefined {
  const windows = places.platform === "win32";
  const name = windows ? "rg.exe" : "rg";
  const joined = windows ? win32.join : join;
  const runnable = places.runnable ?? canRun;
  const delimiter = windows ? ";" : posixDelimiter;
  const absolute = windows ? win32.isAbsolute : isAbsolute;
  // A relative entry (`node_modules/.bin`, `.`) names a place in toolhost's working directory, a
  // root: an rg a repository ships there would run for every search, under --read-only too.
  for (const dir of (places.path ?? "").split(delimiter).filter(absolute)) {
    const candidate = joined(dir, name);
    if (runnable(candidate)) return candidate;
  }
  const home = (windows ? win32.dirname : dirname)(places.execPath);
  for (const beside of [name, `toolhost-${name}`]) {
    const candidate = joined(home, beside);
    if (runnable(candidate)) return candidate;
  }
  return undefined;
}

let ripgrep: { path: string | undefined } | undefined;

/** The rg grep runs (see locateRipgrep), looked for once per process. */
export function findRipgrep(): string | undefined {
  ripgrep ??= {
    path: locateRipgrep({
      path: process.env.PATH,
      execPath: process.execPath,
      platform: process.platform,
    }),
  };
  return ripgrep.path;
}

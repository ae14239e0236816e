/**
 * Where a server's program is: in the project's node_modules/.bin (from its root up to the
 * allowed root) or on PATH, never downloaded; and what a program is (TypeScript 7's `tsc`, the
 * tsserver that belongs beside typescript-language-server).
 */
import { existsSync, readFileSync, realpathSync, statSync } from "node:fs";
import { delimiter, dirname, join, sep } from "node:path";
import process from "node:process";
import { dirsOutside } from "../../../_lib/programs_outside.ts";
import { isWithin } from "../../../_lib/sandbox/mod.ts";

/**
 * An executable named `command`: in a node_modules/.bin from `root` up to `top`, else on PATH.
 * Without `projectPrograms` (read-only), only PATH counts, and not a PATH entry whose program
 * lies inside `top`: a program the project brings never runs then.
 *
 * @example
 * findProgram("clangd", "/p", "/p"); // "/usr/bin/clangd", or undefined
 */
export function findProgram(
  command: string,
  root: string,
  top: string,
  projectPrograms = true,
): string | undefined {
  const inProject = (path: string) => {
    const real = realOrSelf(path);
    return isWithin(top, real);
  };
  if (command.includes("/")) {
    return isExecutable(command) && (projectPrograms || !inProject(command)) ? command : undefined;
  }
  if (projectPrograms) {
    for (let at = root;; at = dirname(at)) {
      const local = join(at, "node_modules", ".bin", command);
      if (isExecutable(local)) return local;
      if (at === top || dirname(at) === at || !isWithin(top, at)) break;
    }
  }
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    if (isExecutable(candidate) && (projectPrograms || !inProject(candidate))) return candidate;
  }
  return undefined;
}

/**
 * PATH for a server under read-only: without the entries a program of the project could be found
 * through, those inside `top` and relative ones (`node_modules/.bin`, `.`: taken from the server's
 * working directory, the project). The server looks up the programs it runs there itself
 * (pyright's `python`, gopls' `go`, rust-analyzer's `cargo`), where findProgram is not asked.
 *
 * @example
 * pathOutside("/p"); // PATH "node_modules/.bin:/p/bin:/usr/bin" gives "/usr/bin"
 */
export function pathOutside(top: string): string {
  return dirsOutside(process.env.PATH, [top]).join(delimiter);
}

function isExecutable(path: string): boolean {
  try {
    const info = statSync(path);
    return info.isFile() && (info.mode & 0o111) !== 0;
  } catch {
    return false;
  }
}

function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/** The package.json nearest above `file` (a program's real path), with its directory. */
function packageAbove(file: string): { dir: string; name?: string; version?: string } | undefined {
  for (let dir = dirname(file), n = 0; n < 6 && dirname(dir) !== dir; dir = dirname(dir), n++) {
    const manifest = join(dir, "package.json");
    if (!existsSync(manifest)) continue;
    try {
      const { name, version } = JSON.parse(readFileSync(manifest, "utf8"));
      return { dir, name, version };
    } catch {
      return { dir };
    }
  }
  return undefined;
}

/** Whether `bin` is the `tsc` of TypeScript 7 or later (the native compiler, with --lsp). */
export function isTypeScript7(bin: string): boolean {
  const found = packageAbove(realOrSelf(bin));
  return found?.name === "typescript" && Number(found.version?.split(".")[0]) >= 7;
}

/**
 * The tsserver.js that typescript-language-server at `bin` would find from where it is
 * installed (its own node_modules, or the one it lies in), not from the project.
 */
export function tsserverBeside(bin: string): string | undefined {
  const own = packageAbove(realOrSelf(bin));
  if (!own) return undefined;
  for (let dir = own.dir; dirname(dir) !== dir; dir = dirname(dir)) {
    const candidates = [
      join(dir, "node_modules", "typescript", "lib", "tsserver.js"),
      ...(dir.endsWith(`${sep}node_modules`)
        ? [join(dir, "typescript", "lib", "tsserver.js")]
        : []),
    ];
    for (const candidate of candidates) if (existsSync(candidate)) return candidate;
  }
  return undefined;
}

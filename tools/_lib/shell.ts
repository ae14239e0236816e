/** Which shell runs commands: bash when it is installed, else sh. Looked up once, on first use. */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";

let shell: string | undefined;

export function findShell(): string {
  shell ??= lookup();
  return shell;
}

function lookup(): string {
  const dirs = (process.env.PATH ?? "").split(delimiter).filter(Boolean);
  for (const dir of [...dirs, "/bin", "/usr/bin"]) {
    const candidate = join(dir, "bash");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return "/bin/sh";
}

/**
 * Arguments that run `command` with stderr joined to stdout in the order it was written.
 * The redirection shares the command's first line, so error messages keep their line numbers.
 */
export function shellArgs(command: string): string[] {
  return ["-c", `exec 2>&1; ${command}`];
}

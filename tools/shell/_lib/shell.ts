/**
 * Running a command line with the user's shell: bash when it is installed, else sh, in a process
 * group of its own, with stderr joined to stdout in the order it was written.
 */
import type { ChildProcess } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import process from "node:process";
import { spawnInGroup } from "../../_lib/process_groups.ts";

/** The `command` input of the tools that run a command line with the shell. */
export const COMMAND_PROPERTY = {
  type: "string",
  minLength: 1,
  description: "The command line to run.",
} as const;

let shell: string | undefined;

/** The configured shell (the `shell` setting), else bash on PATH, else sh. */
export function findShell(configured: string): string {
  if (configured) return configured;
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

/** Linux refuses a single argument over 128 KiB (E2BIG); longer commands travel through fd 3. */
const ARGUMENT_LIMIT_BYTES = 100_000;

/**
 * Starts `command` in its own process group. The `exec 2>&1` shares the command's first line, so
 * the shell's error messages keep their line numbers. A command too long for an argument (a big
 * heredoc) is read from fd 3 and evaluated, which leaves no variable or open fd behind.
 */
export function spawnShell(
  command: string,
  where: { cwd: string; env: NodeJS.ProcessEnv; shell: string; outliveServer?: boolean },
  stdin: "ignore" | "pipe",
): ChildProcess {
  const { cwd, env } = where;
  const group = { outliveServer: where.outliveServer };
  const shell = findShell(where.shell);
  const long = command.length > ARGUMENT_LIMIT_BYTES / 3 &&
    new TextEncoder().encode(command).length > ARGUMENT_LIMIT_BYTES;
  if (!long) {
    return spawnInGroup(shell, ["-c", `exec 2>&1; ${command}`], {
      cwd,
      env,
      stdio: [stdin, "pipe", "pipe"],
    }, group);
  }
  const child = spawnInGroup(
    shell,
    [
      "-c",
      'exec 2>&1; __toolhost_command=$(cat <&3); exec 3<&-; eval "unset __toolhost_command\n$__toolhost_command"',
    ],
    { cwd, env, stdio: [stdin, "pipe", "pipe", "pipe"] },
    group,
  );
  const channel = child.stdio[3] as NodeJS.WritableStream | null;
  channel?.on("error", () => {}); // the shell may exit before reading it all; its exit says why
  channel?.end(command);
  return child;
}

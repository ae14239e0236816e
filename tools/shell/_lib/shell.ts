/**
 * Running a command line with the user's shell: bash when it is installed, else sh, in a process
 * group of its own, with stderr joined to stdout in the order it was written.
 */
import type { ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { accessSync, constants, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import process from "node:process";
import { type Confinement, spawnInGroup } from "../../_lib/processes/mod.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";
import {
  chooseWindowsShell,
  shellLabel,
  type WindowsShell,
  windowsShellInvocation,
} from "./windows_shell.ts";

const WINDOWS = process.platform === "win32";

/** The `command` input of the tools that run a command line with the shell (its name says it). */
export const COMMAND_PROPERTY = { type: "string", minLength: 1 } as const;

let shell: string | undefined;

/** The configured shell (the `shell` setting), else bash on PATH, else sh. */
export function findShell(configured: string): string {
  if (WINDOWS) return windowsShell(configured).path;
  if (configured) return configured;
  shell ??= lookup();
  return shell;
}

const windowsShells = new Map<string, WindowsShell>();

/** Windows: the configured shell, else pwsh, else Windows PowerShell, else cmd (windows_shell.ts). */
export function windowsShell(configured: string): WindowsShell {
  let found = windowsShells.get(configured);
  if (!found) {
    found = chooseWindowsShell(configured, process.env, isFile);
    windowsShells.set(configured, found);
  }
  return found;
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** What `bash` and `bash_background` say of the shell on Windows, so the model writes its syntax. */
export function windowsShellNote(configured: string): string {
  const { kind } = windowsShell(configured);
  const syntax = kind === "cmd"
    ? "cmd syntax"
    : kind === "posix"
    ? "POSIX shell syntax"
    : "PowerShell syntax, not bash";
  return `On this Windows machine the shell is ${shellLabel(kind)}: write ${syntax}.`;
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
  where: {
    cwd: string;
    env: NodeJS.ProcessEnv;
    shell: string;
    confinement: Confinement;
    outliveServer?: boolean;
    /** Whose command it is (a session's runOwner): ended with that session. */
    owner?: string;
  },
  stdin: "ignore" | "pipe",
): ChildProcess {
  const { cwd, env } = where;
  const { confinement, outliveServer, owner } = where;
  const group = { confinement, outliveServer, owner };
  if (WINDOWS) {
    let call;
    try {
      call = windowsShellInvocation(
        command,
        windowsShell(where.shell),
        () => join(tmpdir(), `toolhost-${randomUUID()}.ps1`),
      );
    } catch (error) {
      throw new ToolError(`not started: ${(error as Error).message}`);
    }
    // A PowerShell command too long for the command line runs from a script file of its own.
    const script = call.scriptFile;
    if (script) writeFileSync(script.path, script.text, { flag: "wx" });
    const removeScript = () => script && rmSync(script.path, { force: true });
    // stdin "ignore" is NUL: a read gets end-of-file. stderr is a pipe of its own (joined in
    // arrival order by the reader), except for a POSIX shell, which joins it itself.
    let child: ChildProcess;
    try {
      child = spawnInGroup(call.file, call.args, {
        cwd,
        env,
        stdio: [stdin, "pipe", "pipe"],
        windowsVerbatimArguments: call.windowsVerbatimArguments,
      }, group);
    } catch (error) {
      removeScript();
      throw error;
    }
    if (script) child.once("close", removeScript).once("error", removeScript);
    return child;
  }
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

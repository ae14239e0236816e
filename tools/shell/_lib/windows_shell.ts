/**
 * The shell `bash` and `bash_background` run on Windows, and the command line that hands it a
 * command verbatim. Pure: the environment and the file test are parameters, so every rule here
 * is unit-tested on Linux (tests/shell/windows_shell_test.ts).
 *
 * The shell: the configured `shell` setting when set (cmd.exe, Git Bash's bash.exe, a
 * PowerShell), else PowerShell 7 (pwsh) on PATH, else Windows PowerShell, else cmd.exe.
 *
 * The command arrives without a second round of quoting:
 * - PowerShell: `-EncodedCommand`, base64 of UTF-16LE, which no quoting rule touches; a prefix
 *   makes the console output UTF-8 (no BOM) and a suffix passes a failed native program's exit
 *   code on (PowerShell would report it as 1).
 * - cmd: `/d /s /c "chcp 65001>nul & <command>"` with windowsVerbatimArguments: /s strips
 *   exactly the outer quotes and runs the rest as typed. `&` binds loosest in cmd, so the
 *   command's own `&&`, `||` and `|` keep their meaning and its exit code is the call's; chcp
 *   makes cmd's built-ins (dir, echo, type) and programs that follow the console write UTF-8.
 * - bash.exe (or any other POSIX shell): `-c`, with stderr joined to stdout as on POSIX; the
 *   argument is quoted by the MSVC rules, which MSYS's command-line parser follows.
 */
import { win32 } from "node:path";

export type WindowsShellKind = "pwsh" | "powershell" | "cmd" | "posix";

export interface WindowsShell {
  path: string;
  kind: WindowsShellKind;
}

type Env = Record<string, string | undefined>;

/** Windows environment names are case-insensitive (`Path`, `PATH`); a copied object is not. */
export function envValue(env: Env, name: string): string | undefined {
  if (env[name] !== undefined) return env[name];
  const upper = name.toUpperCase();
  for (const [key, value] of Object.entries(env)) {
    if (key.toUpperCase() === upper) return value;
  }
  return undefined;
}

/**
 * `base` with `extra`'s variables set, as Windows would: a name set in any case replaces the
 * variable of that name in every case (`PATH` replaces `Path`), so that no block holds both.
 */
export function windowsEnvWith(base: Env, extra: Env): Env {
  const env = { ...base };
  for (const name of Object.keys(extra)) {
    const upper = name.toUpperCase();
    for (const key of Object.keys(env)) if (key.toUpperCase() === upper) delete env[key];
    env[name] = extra[name];
  }
  return env;
}

/** What kind of shell a path names, by its file name. */
export function shellKind(path: string): WindowsShellKind {
  const name = win32.basename(path).toLowerCase().replace(/\.(exe|com)$/, "");
  if (name === "pwsh") return "pwsh";
  if (name === "powershell") return "powershell";
  if (name === "cmd") return "cmd";
  return "posix";
}

/**
 * `name` looked up as Windows does: a name with a directory is taken as it is (with PATHEXT's
 * extensions tried when it has none); a bare name is tried in each PATH directory with each
 * extension. Undefined when not found.
 */
export function whichWindows(
  name: string,
  env: Env,
  exists: (path: string) => boolean,
): string | undefined {
  const extensions = (envValue(env, "PATHEXT") || ".COM;.EXE;.BAT;.CMD")
    .split(";").filter(Boolean).map((ext) => ext.toLowerCase());
  const hasExtension = win32.extname(name) !== "";
  const candidates = (base: string) => hasExtension ? [base] : extensions.map((ext) => base + ext);
  if (name.includes("\\") || name.includes("/")) {
    return candidates(name).find(exists);
  }
  const dirs = (envValue(env, "PATH") ?? "").split(";").map((dir) => dir.replace(/^"|"$/g, ""))
    .filter(Boolean);
  for (const dir of dirs) {
    const found = candidates(win32.join(dir, name)).find(exists);
    if (found) return found;
  }
  return undefined;
}

/** The configured shell, else pwsh, else Windows PowerShell, else cmd.exe. */
export function chooseWindowsShell(
  configured: string,
  env: Env,
  exists: (path: string) => boolean,
): WindowsShell {
  if (configured) {
    const path = whichWindows(configured, env, exists) ?? configured;
    return { path, kind: shellKind(path) };
  }
  const pwsh = whichWindows("pwsh", env, exists);
  if (pwsh) return { path: pwsh, kind: "pwsh" };
  const systemRoot = envValue(env, "SystemRoot") || "C:\\Windows";
  const powershell = whichWindows("powershell", env, exists) ??
    [win32.join(systemRoot, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")]
      .find(exists);
  if (powershell) return { path: powershell, kind: "powershell" };
  return {
    path: envValue(env, "ComSpec") || win32.join(systemRoot, "System32", "cmd.exe"),
    kind: "cmd",
  };
}

/** Set before the command: console output in UTF-8 without a byte-order mark. */
export const POWERSHELL_PREFIX =
  "[Console]::OutputEncoding=[Text.UTF8Encoding]::new($false);$OutputEncoding=[Console]::OutputEncoding;";
/** After it, on a line of its own (so a trailing comment cannot swallow it). */
export const POWERSHELL_SUFFIX = "\nif (-not $? -and $LASTEXITCODE) { exit $LASTEXITCODE }";

/** Before a cmd command: the console's output code page becomes UTF-8 (cmd's built-ins follow it). */
export const CMD_PREFIX = "chcp 65001>nul & ";

/** CreateProcess's limit on a whole command line, in UTF-16 units. */
export const COMMAND_LINE_LIMIT = 32_767;
/** cmd.exe's own limit on the command it runs, in characters. */
export const CMD_COMMAND_LIMIT = 8_191;

export interface ShellInvocation {
  file: string;
  args: string[];
  /** Node must not quote the arguments again (cmd's). */
  windowsVerbatimArguments: boolean;
  /**
   * PowerShell, a command too long for `-EncodedCommand`: the script to write (UTF-8 with a
   * byte-order mark, which Windows PowerShell needs to read it as UTF-8) at `path`, run with
   * `-File`, and removed when the shell has exited.
   */
  scriptFile?: { path: string; text: string };
}

const POWERSHELL_OPTIONS = [
  "-NoLogo",
  "-NoProfile",
  "-NonInteractive",
  "-ExecutionPolicy",
  "Bypass",
];

/**
 * The argv that runs `command` verbatim with `shell`. A PowerShell command too long for the
 * command line goes through a script file at `scriptPath()` when one is given. Throws a
 * RangeError (with a message for the model) when the command cannot fit otherwise.
 */
export function windowsShellInvocation(
  command: string,
  shell: WindowsShell,
  scriptPath?: () => string,
): ShellInvocation {
  let invocation: ShellInvocation;
  let limit = COMMAND_LINE_LIMIT;
  switch (shell.kind) {
    case "pwsh":
    case "powershell": {
      const script = POWERSHELL_PREFIX + command + POWERSHELL_SUFFIX;
      invocation = {
        file: shell.path,
        args: [...POWERSHELL_OPTIONS, "-EncodedCommand", encodePowerShell(script)],
        windowsVerbatimArguments: false,
      };
      if (scriptPath && tooLong(invocation, limit)) {
        const path = scriptPath();
        return {
          file: shell.path,
          args: [...POWERSHELL_OPTIONS, "-File", path],
          windowsVerbatimArguments: false,
          scriptFile: { path, text: "\uFEFF" + script },
        };
      }
      break;
    }
    case "cmd":
      invocation = {
        file: shell.path,
        args: ["/d", "/s", "/c", `"${CMD_PREFIX}${command}"`],
        windowsVerbatimArguments: true,
      };
      limit = CMD_COMMAND_LIMIT;
      break;
    default:
      invocation = {
        file: shell.path,
        args: ["-c", `exec 2>&1; ${command}`],
        windowsVerbatimArguments: false,
      };
  }
  if (tooLong(invocation, limit)) {
    throw new RangeError(
      `the command is too long for a Windows command line (${
        commandLineLength(invocation)
      } characters with ${shell.kind}'s encoding; the limit is ${limit}): ` +
        "write it to a script file and run the file",
    );
  }
  return invocation;
}

/** Whether the command line Node builds is over `limit` (a quick bound first). */
function tooLong(invocation: ShellInvocation, limit: number): boolean {
  const bound = invocation.file.length + 3 +
    invocation.args.reduce((sum, arg) => sum + arg.length * 2 + 3, 0);
  return bound > limit && commandLineLength(invocation) > limit;
}

/** Base64 of UTF-16LE, what `-EncodedCommand` takes. */
export function encodePowerShell(script: string): string {
  const bytes = new Uint8Array(script.length * 2);
  for (let i = 0; i < script.length; i++) {
    const unit = script.charCodeAt(i);
    bytes[i * 2] = unit & 0xff;
    bytes[i * 2 + 1] = unit >> 8;
  }
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) {
    binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  }
  return btoa(binary);
}

/** The length of the command line Node builds (MSVC quoting unless verbatim). */
export function commandLineLength(invocation: ShellInvocation): number {
  const quote = (arg: string) => {
    if (invocation.windowsVerbatimArguments) return arg;
    if (arg !== "" && !/[\s"]/.test(arg)) return arg;
    return `"${arg.replace(/(\\*)"/g, '$1$1\\"').replace(/(\\*)$/, "$1$1")}"`;
  };
  return [quote(invocation.file), ...invocation.args.map(quote)].join(" ").length;
}

/** The shell's name, as the tool descriptions and messages give it. */
export function shellLabel(kind: WindowsShellKind): string {
  switch (kind) {
    case "pwsh":
      return "PowerShell 7 (pwsh)";
    case "powershell":
      return "Windows PowerShell";
    case "cmd":
      return "cmd.exe";
    default:
      return "a POSIX shell (bash.exe)";
  }
}

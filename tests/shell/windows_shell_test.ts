/** The Windows shell choice and command lines, with the environment and the filesystem injected. */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import {
  chooseWindowsShell,
  commandLineLength,
  encodePowerShell,
  envValue,
  POWERSHELL_PREFIX,
  POWERSHELL_SUFFIX,
  shellKind,
  whichWindows,
  windowsEnvWith,
  windowsShellInvocation,
} from "../../tools/shell/_lib/windows_shell.ts";

const files = (...paths: string[]) => {
  const set = new Set(paths.map((p) => p.toLowerCase()));
  return (path: string) => set.has(path.toLowerCase());
};

const ENV = {
  Path: 'C:\\Program Files\\PowerShell\\7;C:\\Windows\\System32;"C:\\Quoted Dir"',
  PATHEXT: ".COM;.EXE;.BAT;.CMD",
  SystemRoot: "C:\\Windows",
  ComSpec: "C:\\Windows\\System32\\cmd.exe",
};

test("pwsh on PATH first, found with PATHEXT and a Path of any case", () => {
  const exists = files(
    "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
  );
  assert.deepEqual(chooseWindowsShell("", ENV, exists), {
    path: "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    kind: "pwsh",
  });
});

test("without pwsh, Windows PowerShell at its fixed place; without either, ComSpec", () => {
  const exists = files("C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe");
  assert.deepEqual(chooseWindowsShell("", ENV, exists), {
    path: "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe",
    kind: "powershell",
  });
  assert.deepEqual(chooseWindowsShell("", ENV, files()), {
    path: "C:\\Windows\\System32\\cmd.exe",
    kind: "cmd",
  });
  assert.deepEqual(chooseWindowsShell("", {}, files()), {
    path: "C:\\Windows\\System32\\cmd.exe",
    kind: "cmd",
  });
});

test("the configured shell wins: cmd, Git Bash's bash.exe, by name or by path", () => {
  const exists = files(
    "C:\\Program Files\\PowerShell\\7\\pwsh.exe",
    "C:\\Windows\\System32\\cmd.exe",
    "C:\\Program Files\\Git\\bin\\bash.exe",
  );
  assert.deepEqual(chooseWindowsShell("cmd", ENV, exists), {
    path: "C:\\Windows\\System32\\cmd.exe",
    kind: "cmd",
  });
  assert.deepEqual(chooseWindowsShell("C:\\Program Files\\Git\\bin\\bash", ENV, exists), {
    path: "C:\\Program Files\\Git\\bin\\bash.exe",
    kind: "posix",
  });
  // Not found: kept as given (the spawn error names it).
  assert.deepEqual(chooseWindowsShell("D:\\tools\\nu.exe", ENV, exists), {
    path: "D:\\tools\\nu.exe",
    kind: "posix",
  });
  assert.equal(shellKind("C:\\x\\PowerShell.EXE"), "powershell");
  assert.equal(shellKind("pwsh"), "pwsh");
});

test("PATH lookup: quoted directories, an extension given, PATHEXT order", () => {
  const exists = files("C:\\Quoted Dir\\tool.cmd", "C:\\Quoted Dir\\tool.bat");
  assert.equal(whichWindows("tool", ENV, exists), "C:\\Quoted Dir\\tool.bat");
  assert.equal(whichWindows("tool.cmd", ENV, exists), "C:\\Quoted Dir\\tool.cmd");
  assert.equal(whichWindows("missing", ENV, exists), undefined);
});

const decode = (base64: string) => Buffer.from(base64, "base64").toString("utf16le");

test("PowerShell gets the command verbatim through -EncodedCommand, UTF-8 output set first", () => {
  const command = `Write-Output "$env:USERNAME \\"quoted\\" ü 😀" | % { $_ } # comment`;
  const call = windowsShellInvocation(command, { path: "pwsh.exe", kind: "pwsh" });
  assert.deepEqual(call.args.slice(0, 6), [
    "-NoLogo",
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-EncodedCommand",
  ]);
  assert.equal(call.windowsVerbatimArguments, false);
  assert.equal(decode(call.args[6]), POWERSHELL_PREFIX + command + POWERSHELL_SUFFIX);
  // base64 has no character any quoting rule changes.
  assert.match(call.args[6], /^[A-Za-z0-9+/=]+$/);
  assert.equal(encodePowerShell("A"), "QQA=");
});

test("cmd: /d /s /c with the command in one pair of quotes, not quoted again", () => {
  const command = 'echo "a b" & set X=%PATH% ^| more';
  const call = windowsShellInvocation(command, {
    path: "C:\\Windows\\System32\\cmd.exe",
    kind: "cmd",
  });
  assert.deepEqual(call.args, ["/d", "/s", "/c", `"chcp 65001>nul & ${command}"`]);
  assert.equal(call.windowsVerbatimArguments, true);
});

test("bash.exe: -c with stderr joined, as on POSIX", () => {
  const call = windowsShellInvocation('echo "$HOME"', { path: "bash.exe", kind: "posix" });
  assert.deepEqual(call.args, ["-c", 'exec 2>&1; echo "$HOME"']);
});

test("a command too long for a Windows command line is refused with what to do instead", () => {
  const long = "x".repeat(20_000); // base64 of UTF-16 is 8/3 as long
  assert.throws(
    () => windowsShellInvocation(long, { path: "pwsh.exe", kind: "pwsh" }),
    /too long for a Windows command line.*limit is 32767.*script file/,
  );
  // cmd.exe has a limit of its own, 8,191 characters.
  const fits = windowsShellInvocation("x".repeat(8_000), { path: "cmd.exe", kind: "cmd" });
  assert.ok(commandLineLength(fits) <= 8_191);
  assert.throws(
    () => windowsShellInvocation("x".repeat(8_200), { path: "cmd.exe", kind: "cmd" }),
    /limit is 8191/,
  );
});

test("a PowerShell command too long for the command line runs from a script file, verbatim", () => {
  const command = `Write-Output "$x \"q\" é"\n` + "# pad\n".repeat(4_000);
  const call = windowsShellInvocation(
    command,
    { path: "C:\\pwsh\\pwsh.exe", kind: "pwsh" },
    () => "C:\\Temp\\toolhost-1.ps1",
  );
  assert.deepEqual(call.args, [
    "-NoLogo",
    "-NoProfile",
    "-NonInteractive",
    "-ExecutionPolicy",
    "Bypass",
    "-File",
    "C:\\Temp\\toolhost-1.ps1",
  ]);
  assert.deepEqual(call.scriptFile, {
    path: "C:\\Temp\\toolhost-1.ps1",
    text: "\uFEFF" + POWERSHELL_PREFIX + command + POWERSHELL_SUFFIX,
  });
  // A short one stays on the command line: no file is asked for.
  const asked: string[] = [];
  const short = windowsShellInvocation("echo hi", { path: "pwsh.exe", kind: "pwsh" }, () => {
    asked.push("file");
    return "unused";
  });
  assert.equal(short.scriptFile, undefined);
  assert.deepEqual(asked, []);
});

test("a variable set in any case replaces the one Windows has in another case (PATH over Path)", () => {
  const base = { Path: "C:\\Windows", SystemRoot: "C:\\Windows", Other: "x" };
  assert.deepEqual(windowsEnvWith(base, { PATH: "C:\\tools", NEW: "1" }), {
    SystemRoot: "C:\\Windows",
    Other: "x",
    PATH: "C:\\tools",
    NEW: "1",
  });
  assert.deepEqual(base.Path, "C:\\Windows", "the base is left alone");
  assert.equal(envValue(windowsEnvWith(base, { path: "D:\\" }), "PATH"), "D:\\");
});

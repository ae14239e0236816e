/**
 * The shells a Windows user has, through the binary, on Windows only (the Windows job in
 * .github/workflows/windows.yml; elsewhere these skip): PowerShell 7, Windows PowerShell and
 * cmd.exe get the command verbatim (no `$` or `"` mangling), write UTF-8, pass the exit code on,
 * read end-of-file from stdin, and a timeout ends the whole process tree. The command lines
 * themselves are unit-tested everywhere (tests/shell/windows_shell_test.ts).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import process from "node:process";
import { afterEach, test } from "node:test";
import { modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { waitUntil } from "../helpers/processes.ts";

const skip = process.platform !== "win32" && "Windows only: runs PowerShell and cmd.exe";

let client: RawClient | undefined;
afterEach(async () => {
  await client?.close();
  client = undefined;
});

async function run(shell: string, command: string, extra: Record<string, unknown> = {}) {
  client ??= new RawClient(PRODUCT_BINARY, [], undefined, { TOOLHOST_SHELL: shell });
  const reply = await callTool(client, "bash", { command, ...extra });
  return { text: reply.text, exitCode: reply.data.exitCode as number | null | undefined };
}

/** Processes whose command line holds `marker`, from Windows' own process list. */
function processesWith(marker: string): number {
  const out = execFileSync("powershell.exe", [
    "-NoProfile",
    "-Command",
    `@(Get-CimInstance Win32_Process | Where-Object { $_.CommandLine -like '*${marker}*' -and $_.ProcessId -ne $PID }).Count`,
  ], { encoding: "utf8" });
  return Number(out.trim());
}

for (const shell of ["pwsh", "powershell"]) {
  test(`${shell}: $ and quotes arrive verbatim, output is UTF-8, a native exit code is passed on`, {
    skip,
  }, async () => {
    const quoted = await run(
      shell,
      `Write-Output ('{0}|{1}|{2}' -f '$notAVariable', "in""ner", 'héllo €')`,
    );
    assert.match(quoted.text, /^\$notAVariable\|in"ner\|héllo €\r?\n/);
    const failed = await run(shell, "cmd.exe /c exit 7");
    assert.equal(failed.exitCode, 7);
    const list = await client!.request("tools/list", modern());
    const bash = (list.result?.tools as { name: string; description: string }[])
      .find((t) => t.name === "bash");
    assert.match(bash?.description ?? "", /PowerShell syntax, not bash/);
  });
}

test(
  "pwsh: a command too long for the command line runs from a script file",
  { skip },
  async () => {
    const command = `$text = @'\n${"a line of the here-string\n".repeat(1_000)}'@\n` +
      "Write-Output ($text.Length)";
    const result = await run("pwsh", command);
    // 1,000 lines of 26 characters, less the newline before the closing '@.
    assert.match(result.text, /^25999\r?\n/);
    assert.equal(result.exitCode, 0);
  },
);

test(
  "cmd: the command runs as typed (%VAR%, ^&, quotes), UTF-8 and its exit code",
  { skip },
  async () => {
    const typed = await run("cmd", 'echo %OS% "a b" ^& c é & exit /b 3');
    assert.match(typed.text, /^Windows_NT "a b" & c é\s*\r?\n/);
    assert.equal(typed.exitCode, 3);
    const stdin = await run("cmd", "set /p LINE= & echo read-nothing");
    assert.match(stdin.text, /read-nothing/);
  },
);

test(
  "a timeout ends the whole tree: a grandchild started by the shell is gone too",
  { skip },
  async () => {
    const marker = `toolhost-tree-${process.pid}-${Date.now()}`;
    const call = run(
      "cmd",
      `powershell.exe -NoProfile -Command "Start-Sleep 120 # ${marker}"`,
      { timeout_ms: 15_000 },
    );
    // The shell and its grandchild both carry the marker in their command lines.
    assert.ok(await waitUntil(() => processesWith(marker) >= 2, 14_000), "the grandchild started");
    const result = await call;
    assert.match(result.text, /Timed out after 15000 ms: the process tree was ended/);
    assert.ok(
      await waitUntil(() => processesWith(marker) === 0, 20_000),
      `still running: ${processesWith(marker)} process(es) with ${marker}`,
    );
  },
);

test(
  "when the server ends, a process the command left behind ends too (the job is killed on close)",
  {
    skip,
  },
  async () => {
    const marker = `toolhost-orphan-${process.pid}-${Date.now()}`;
    const started = await run(
      "cmd",
      `start "" /b powershell.exe -NoProfile -Command "Start-Sleep 120 # ${marker}"`,
    );
    assert.equal(started.exitCode, 0, started.text);
    assert.ok(await waitUntil(() => processesWith(marker) >= 1, 20_000), "the orphan started");
    await client!.close();
    client = undefined;
    assert.ok(
      await waitUntil(() => processesWith(marker) === 0, 20_000),
      `still running after the server ended: ${processesWith(marker)} with ${marker}`,
    );
  },
);

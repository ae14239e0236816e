/**
 * Tries the Windows binary under Wine, here on Linux (issue #19): builds toolhost.exe for
 * windows-x64, gives Wine 8 the bcryptprimitives.dll it lacks (scripts/wine/), starts the server
 * over HTTP (stdin from a Unix pipe fails under Wine 8) with cmd.exe as its shell, and checks
 * what Wine can show: cmd's verbatim command line and exit code, the sandbox's Windows path
 * rules, and the Job Objects (a timed-out grandchild ends; a background tree ends when the
 * server is killed with SIGKILL). Wine's PowerShell is a stub and its taskkill lacks /T, so those
 * only run on Windows (tests/e2e/windows_shell_test.ts). Needs `wine` and
 * `x86_64-w64-mingw32-gcc` (Debian: wine, gcc-mingw-w64-x86-64); the first start makes a Wine
 * prefix, which takes a minute.
 *
 *   ./node_modules/.bin/deno run --allow-all scripts/wine_smoke.ts
 */
import { type ChildProcess, execFileSync, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { compileArguments } from "./build.ts";
import { runtimeExecutable } from "./release/runtimes.ts";
import { TARGETS } from "./release/targets.ts";
import { BUN } from "./toolchain.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const PORT = 18_000 + (process.pid % 1000);

function need(program: string, hint: string): void {
  if (spawnSync("sh", ["-c", `command -v ${program}`]).status !== 0) {
    console.error(`wine_smoke: ${program} is missing (${hint})`);
    process.exit(2);
  }
}

/** The Wine processes (Windows ones show their command line in /proc) holding `marker`. */
function running(marker: string): number {
  let count = 0;
  for (const pid of readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const line = readFileSync(`/proc/${pid}/cmdline`, "utf8").replaceAll("\0", " ");
      if (line.includes(marker) && !line.includes("cmd.exe")) count++;
    } catch {
      // gone meanwhile
    }
  }
  return count;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until(check: () => boolean, ms: number): Promise<boolean> {
  for (const end = Date.now() + ms; Date.now() < end; await sleep(200)) if (check()) return true;
  return check();
}

/** A legacy session over HTTP: initialize once, then one tools/call per call. */
class Session {
  #id = "";
  #next = 1;
  async post(body: Record<string, unknown>): Promise<Record<string, unknown> | undefined> {
    const reply = await fetch(`http://127.0.0.1:${PORT}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2025-11-25",
        ...(this.#id ? { "mcp-session-id": this.#id } : {}),
      },
      body: JSON.stringify({ jsonrpc: "2.0", ...body }),
    });
    this.#id ||= reply.headers.get("mcp-session-id") ?? "";
    const text = await reply.text();
    const data = text.split("\n").filter((l) => l.startsWith("data:")).at(-1)?.slice(5) ?? text;
    return data.trim() ? JSON.parse(data) : undefined;
  }
  async open(): Promise<void> {
    await this.post({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "wine-smoke", version: "0" },
      },
    });
    await this.post({ method: "notifications/initialized" });
  }
  async call(name: string, args: Record<string, unknown>) {
    const reply = await this.post({
      id: this.#next++,
      method: "tools/call",
      params: { name, arguments: args },
    });
    const result = reply?.result as {
      content: { text: string }[];
      structuredContent?: { exitCode?: number };
    };
    return { text: result.content[0].text, exitCode: result.structuredContent?.exitCode };
  }
}

async function main() {
  need("wine", "apt-get install wine");
  need("x86_64-w64-mingw32-gcc", "apt-get install gcc-mingw-w64-x86-64");
  const work = mkdtempSync(join(tmpdir(), "toolhost-wine-"));
  execFileSync("x86_64-w64-mingw32-gcc", [
    "-shared",
    "-O2",
    "-o",
    join(work, "bcryptprimitives.dll"),
    join(ROOT, "scripts/wine/bcryptprimitives.c"),
    "-ladvapi32",
  ]);
  const target = TARGETS.find((t) => t.name === "windows-x64")!;
  const runtime = await runtimeExecutable(target);
  const exe = join(work, "toolhost.exe");
  execFileSync(
    BUN,
    compileArguments("main.ts", exe, "wine-smoke", [
      `--target=${target.bunTarget}`,
      `--compile-executable-path=${runtime}`,
    ]),
    { cwd: ROOT, stdio: ["ignore", "ignore", "inherit"] },
  );

  const root = join(work, "root");
  mkdirSync(join(root, "sub"), { recursive: true });
  writeFileSync(join(root, "sub", "a.txt"), "inside\n");
  mkdirSync(join(work, "root-b"));
  writeFileSync(join(work, "root-b", "s.txt"), "secret\n");
  const winRoot = `Z:${root.replaceAll("/", "\\")}`;
  const env = {
    ...process.env,
    WINEPREFIX: join(work, "prefix"),
    WINEDEBUG: "-all",
    TOOLHOST_SHELL: "cmd",
  };
  let stderr = "";
  const server: ChildProcess = spawn(
    "wine",
    [exe, "--root", winRoot, "--http", `127.0.0.1:${PORT}`],
    { env, stdio: ["ignore", "ignore", "pipe"] },
  );
  server.stderr!.on("data", (chunk) => (stderr += chunk));
  if (!(await until(() => stderr.includes("serving MCP at"), 180_000))) {
    throw new Error(`the server did not start under Wine:\n${stderr}`);
  }
  const s = new Session();
  await s.open();
  const rows: [string, boolean, string][] = [];
  const check = (what: string, ok: boolean, seen: string) => rows.push([what, ok, seen]);

  const typed = await s.call("bash", { command: 'echo %OS% "a $b" ^& c & exit /b 3' });
  check(
    "cmd: verbatim, exit code",
    /Windows_NT "a \$b" & c/.test(typed.text) &&
      typed.exitCode === 3,
    typed.text,
  );
  const refusals: [string, RegExp][] = [
    ["..\\root-b\\s.txt", /outside the allowed roots/],
    [`${winRoot}-b\\s.txt`, /outside the allowed roots/],
    ["sub\\NUL.txt", /Windows device/],
    ["sub\\a.txt:hidden", /alternate data stream/],
    ["\\\\.\\C:\\x", /device namespace/],
  ];
  for (const [path, why] of refusals) {
    const read = await s.call("read_file", { path });
    check(`refused: ${path}`, why.test(read.text), read.text);
  }
  for (const path of [`${winRoot.toUpperCase()}\\SUB\\A.TXT`, `\\\\?\\${winRoot}\\sub\\a.txt`]) {
    const read = await s.call("read_file", { path });
    check(`read: ${path}`, /inside/.test(read.text), read.text);
  }
  const timedOut = await s.call("bash", {
    command: "echo before & ping -n 61 127.0.0.1 >nul",
    timeout_ms: 3000,
  });
  const grandchildGone = await until(() => running("ping -n 61") === 0, 10_000);
  check("timeout: the grandchild ends (Job Object)", grandchildGone, timedOut.text);
  await s.call("bash_background", { command: "ping -n 62 127.0.0.1" });
  const started = await until(() => running("ping -n 62") === 1, 10_000);
  server.kill("SIGKILL");
  const orphanGone = await until(() => running("ping -n 62") === 0, 10_000);
  check("SIGKILL of the server ends its tree (kill on close)", started && orphanGone, "");

  console.log("| check | result | seen |\n| --- | --- | --- |");
  for (const [what, ok, seen] of rows) {
    console.log(`| ${what} | ${ok ? "ok" : "FAILED"} | ${JSON.stringify(seen.slice(0, 80))} |`);
  }
  // This prefix's wineserver (and whatever Wine left in it), then the prefix itself.
  spawnSync("wineserver", ["-k"], { env });
  rmSync(work, { recursive: true, force: true });
  process.exit(rows.every(([, ok]) => ok) ? 0 : 1);
}

if (import.meta.main) await main();

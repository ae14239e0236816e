/**
 * A session's network through the real helper, from first command to the session's end, as one
 * scenario whose observations come back as data: the network tests run it in their own process
 * (as root) and, with `deno run` under setpriv, as uid 65534 (`deno run … scenario.ts HELPER`
 * prints the result as JSON).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { defaultSettings } from "../../config/settings.ts";
import { SessionMemory, type ToolContext } from "../../mcp/tool/mod.ts";
import { type CallNetwork, networkForCall } from "../../tools/_lib/confine/_network.ts";

export interface Ran {
  status: number | null;
  output: string;
}

/** Runs `command` with sh in the network `network` gives, writable only in `dir`. */
export function runConfined(
  helper: string,
  network: CallNetwork,
  dir: string,
  command: string,
  env: Record<string, string | undefined> = {},
  options: string[] = [],
): Promise<Ran> {
  const base = { PATH: process.env.PATH, HOME: dir, TMPDIR: dir, ...env };
  const child = spawn(
    helper,
    ["run", ...options, "-n", network.helperArgument, "-w", dir, "--", "/bin/sh", "-c", command],
    { env: network.env(base), stdio: ["ignore", "pipe", "pipe"] },
  );
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (output += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (output += text));
  return new Promise((resolve) => child.on("close", (status) => resolve({ status, output })));
}

export interface ScenarioResult {
  uid: number;
  helperArgument: string;
  listed: Ran;
  tunnel: Ran;
  unlisted: Ran;
  refusals: string[];
  /** To the listed port at 127.0.0.1 without the proxy: brought into the namespace. */
  directListed: Ran;
  /** To another of the machine's loopback ports, not listed, without the proxy. */
  direct: Ran;
  /** Paths the machine's server was asked for. */
  seen: string[];
  loopbackInside: Ran;
  notice?: string;
  afterRestart: Ran;
  holderPids: number[];
  /** Holders whose process is still there after the session ended. */
  leftAfterEnd: number[];
}

/** The holder processes (`toolhost-confine hold`) of this user that live now. */
export function holderProcesses(helper: string): number[] {
  const found: number[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    try {
      const argv = Deno.readTextFileSync(`/proc/${entry.name}/cmdline`).split("\0");
      if (argv[0] === helper && argv[1] === "hold") found.push(Number(entry.name));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

export async function scenario(helper: string): Promise<ScenarioResult> {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url!);
    const body = `machine says ${req.url}`;
    res.writeHead(200, { "content-length": String(body.length) });
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const other = createServer((_req, res) => res.end("the unlisted port says hi"));
  await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve));
  const otherPort = (other.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), "toolhost-net-scenario-"));
  const session = new SessionMemory();
  const config = {
    ...defaultSettings(),
    sandbox: { ...defaultSettings().sandbox, allowNetwork: [`localhost:${port}`] },
  };
  const ctx = {
    config,
    session,
    canElicitMidCall: false,
    signal: new AbortController().signal,
    log: () => {},
  } as unknown as ToolContext;
  const options = { helper, namespaces: true };
  try {
    const network = await networkForCall(ctx, options, "curl");
    const holderPids = holderProcesses(helper);
    // localhost is the namespace's own for programs that honour NO_PROXY: --noproxy '' sends it
    // through the proxy, which reaches the machine's, as the setting names it.
    const listed = await runConfined(
      helper,
      network,
      dir,
      `curl -sS --noproxy '' http://localhost:${port}/listed`,
    );
    const tunnel = await runConfined(
      helper,
      network,
      dir,
      `curl -sS --noproxy '' -p http://localhost:${port}/tunnel`,
    );
    const unlisted = await runConfined(helper, network, dir, "curl -sS http://unlisted.example/");
    const directListed = await runConfined(
      helper,
      network,
      dir,
      `curl -sS --noproxy '*' --max-time 20 http://127.0.0.1:${port}/direct`,
    );
    const direct = await runConfined(
      helper,
      network,
      dir,
      `curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${otherPort}/direct`,
    );
    const loopbackInside = await runConfined(
      helper,
      network,
      dir,
      "/usr/bin/python3 -c '\n" +
        "import http.server, threading, urllib.request\n" +
        "class H(http.server.BaseHTTPRequestHandler):\n" +
        "    def do_GET(self):\n" +
        '        self.send_response(200); self.end_headers(); self.wfile.write(b"namespace says hi")\n' +
        "    def log_message(self, *a): pass\n" +
        's = http.server.HTTPServer(("127.0.0.1", 0), H)\n' +
        "threading.Thread(target=s.serve_forever, daemon=True).start()\n" +
        'print(urllib.request.urlopen("http://127.0.0.1:%d/" % s.server_port).read().decode())\n\'',
    );
    const refusals = network.refusals().map((refusal) => refusal.line);
    network.end();
    // The holder dies (killed from outside): the next call makes the network again and says so.
    for (const pid of holderPids) process.kill(pid, "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const again = await networkForCall(ctx, options, "curl");
    const afterRestart = await runConfined(
      helper,
      again,
      dir,
      `curl -sS --noproxy '' http://localhost:${port}/again`,
    );
    holderPids.push(...holderProcesses(helper).filter((pid) => !holderPids.includes(pid)));
    again.end();
    await session.dispose();
    const leftAfterEnd = holderProcesses(helper).filter((pid) => holderPids.includes(pid));
    return {
      uid: process.getuid!(),
      helperArgument: network.helperArgument,
      listed,
      tunnel,
      unlisted,
      refusals,
      directListed,
      direct,
      seen,
      loopbackInside,
      notice: again.notice,
      afterRestart,
      holderPids,
      leftAfterEnd,
    };
  } finally {
    await session.dispose();
    server.close();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  console.log(JSON.stringify(await scenario(Deno.args[0])));
}

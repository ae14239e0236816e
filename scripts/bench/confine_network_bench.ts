/**
 * What the sandbox's network costs (issue 37): dist/toolhost-test's `net_run` fixture runs a
 * command in the session's network through the real helper (toolhost-confine, built from
 * tools/_lib/confine/linux with the C compiler found, or $TOOLHOST_CONFINE_HELPER).
 *
 * 1. Starting a session's network: the first command of a fresh server (the proxy made, the
 *    holder started, then the command) against its second (the network already there), after
 *    a `bash` call has warmed the server (its first call, its first child process); each round
 *    a new server, medians of the call's wall time.
 * 2. A proxied connection against a direct one, alternating in one process inside the namespace:
 *    connect, one byte there and back, close: directly to an echo server on the namespace's own
 *    loopback, and through HTTPS_PROXY (CONNECT via the holder and the proxy) to the same echo
 *    server on the machine's loopback, listed in sandbox.allow_network.
 *
 * Runs alone: `./node_modules/.bin/deno run --allow-all scripts/build.ts --test` then
 * `./node_modules/.bin/deno run --allow-all scripts/bench/confine_network_bench.ts`
 */
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { type AddressInfo, createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, ms, times, us } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ROUNDS = 15;
const CONNECTIONS = 400;

/** The helper: $TOOLHOST_CONFINE_HELPER, or built from its sources into a scratch directory. */
function helper(scratch: string): string | { skip: string } {
  if (process.env.TOOLHOST_CONFINE_HELPER) return process.env.TOOLHOST_CONFINE_HELPER;
  const dir = join(ROOT, "tools/_lib/confine/linux");
  const sources = readdirSync(dir).filter((name) => name.endsWith(".c")).map((n) => join(dir, n));
  const out = join(scratch, "toolhost-confine");
  for (const compiler of ["musl-gcc", "gcc", "cc"]) {
    if (spawnSync(compiler, ["-Os", "-static", "-o", out, ...sources]).status === 0) return out;
  }
  return { skip: "no C compiler built toolhost-confine" };
}

/** Python run inside the namespace: alternating rounds of direct and proxied connections. */
const CLIENT = `
import base64, json, os, socket, socketserver, threading, time, urllib.parse
class Echo(socketserver.BaseRequestHandler):
    def handle(self):
        self.request.sendall(self.request.recv(1))
inside = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Echo)
threading.Thread(target=inside.serve_forever, daemon=True).start()
proxy = urllib.parse.urlsplit(os.environ["HTTPS_PROXY"])
auth = base64.b64encode(f"{proxy.username}:{proxy.password}".encode()).decode()
target = os.environ["TARGET"]
def direct():
    s = socket.create_connection(("127.0.0.1", inside.server_address[1]))
    s.sendall(b"x"); s.recv(1); s.close()
def proxied():
    s = socket.create_connection((proxy.hostname, proxy.port))
    s.sendall(f"CONNECT {target} HTTP/1.1\\r\\nHost: {target}\\r\\nProxy-Authorization: Basic {auth}\\r\\n\\r\\n".encode())
    head = b""
    while b"\\r\\n\\r\\n" not in head:
        head += s.recv(4096)
    assert head.startswith(b"HTTP/1.1 200"), head
    s.sendall(b"x"); s.recv(1); s.close()
rounds = {"direct": [], "proxied": []}
for r in range(int(os.environ["ROUNDS"])):
    for name, once in (("direct", direct), ("proxied", proxied)):
        start = time.perf_counter()
        for _ in range(int(os.environ["PER_ROUND"])):
            once()
        rounds[name].append((time.perf_counter() - start) / int(os.environ["PER_ROUND"]))
print(json.dumps(rounds))
`;

export async function confineNetworkReport(progress: (text: string) => void): Promise<string> {
  const title = "### The sandbox's network: a session's first command, and a proxied connection";
  if (process.platform !== "linux") return `${title}\n\nSkipped: Linux only.`;
  const scratch = mkdtempSync(join(tmpdir(), "toolhost-net-bench-"));
  chmodSync(scratch, 0o755);
  const built = helper(scratch);
  const probe = typeof built === "string"
    ? spawnSync(built, ["probe"], { encoding: "utf8" }).stdout
    : "";
  if (typeof built !== "string" || !/netns=1/.test(probe)) {
    rmSync(scratch, { recursive: true, force: true });
    return `${title}\n\nSkipped: ${
      typeof built === "string" ? "no network namespaces" : built.skip
    }.`;
  }
  const echo = createServer((socket) => {
    socket.once("data", (byte) => socket.end(byte));
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  const target = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
  const saved = { ...process.env };
  const home = join(scratch, "home");
  mkdirSync(home);
  Object.assign(process.env, {
    TOOLHOST_TEST_CONFINE_HELPER: built,
    TOOLHOST_SANDBOX_ALLOW_NETWORK: target,
    TOOLHOST_STATE_DIR: join(scratch, "state"),
    TOOLHOST_SKILL_DIRS: "",
    HOME: home,
    XDG_CONFIG_HOME: join(home, ".config"),
  });
  const binary = join(ROOT, "dist/toolhost-test");
  if (!existsSync(binary)) {
    throw new Error(`${binary} is missing: build it with scripts/build.ts --test`);
  }
  const first: number[] = [];
  const second: number[] = [];
  let server: ServerProcess | undefined;
  try {
    for (let r = 0; r < ROUNDS; r++) {
      progress(`confine network: first command, round ${r + 1} of ${ROUNDS}`);
      server = new ServerProcess(binary);
      await server.initialize();
      // The server's own first call and first child process (the journal opened, the runtime's
      // spawning warmed) are not the network's: a bash call first.
      await server.tool("bash", { command: "true" });
      first.push((await server.tool("net_run", { command: "true" })).ms);
      second.push((await server.tool("net_run", { command: "true" })).ms);
      if (r < ROUNDS - 1) await server.close();
    }
    progress("confine network: proxied against direct connections");
    const run = await server!.tool("net_run", {
      command: `TARGET=${target} ROUNDS=${ROUNDS} PER_ROUND=${CONNECTIONS} python3 -c '${
        CLIENT.replaceAll("'", "'\\''")
      }'`,
    });
    const text = run.reply.result!.content![0].text!;
    const measured = JSON.parse(text.slice(0, text.lastIndexOf("\n[exit"))) as Record<
      string,
      number[]
    >;
    const direct = median(measured.direct) * 1e6;
    const proxied = median(measured.proxied) * 1e6;
    return [
      `${title} (${ROUNDS} rounds; a new server each)`,
      "",
      markdownTable(["", "median wall time of the call"], [
        ["first net_run `true` (network made, then the command)", ms(median(first))],
        ["second net_run `true` (network there)", ms(median(second))],
        ["starting the session's network", ms(median(first) - median(second))],
      ]),
      "",
      `Connect, one byte there and back, close; ${ROUNDS} alternating rounds of ${CONNECTIONS}, ` +
      "from Python inside the namespace:",
      "",
      markdownTable(["connection", "median", "against direct"], [
        ["direct (the namespace's loopback)", us(direct), times(1)],
        ["CONNECT through the holder and the proxy", us(proxied), times(proxied / direct)],
      ]),
    ].join("\n");
  } finally {
    await server?.close();
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
    echo.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  process.stdout.write(
    await confineNetworkReport((text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

/**
 * The session's network through the real helper (tools/_lib/confine/linux, built for the test):
 * a command in the session's namespace reaches a listed host only through the proxy, an unlisted
 * one is refused and named, the machine's loopback is out of reach (but for the listed port,
 * brought in) while the namespace's own works, a holder that died is made again (and the call says so), and the session's end leaves
 * no holder behind. As root and as uid 65534.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { networkHelper } from "../helpers/confine_helper.ts";
import { runConfined, scenario, type ScenarioResult } from "../helpers/confine_network_scenario.ts";
import { defaultSettings } from "../../config/settings.ts";
import { SessionMemory, type ToolContext } from "../../mcp/tool/mod.ts";
import { networkForCall } from "../../tools/_lib/confine/_network.ts";

const network = networkHelper();
const helper = network.helper;
const skip = network.skip ||
  (spawnSync("curl", ["--version"]).status !== 0 ? "curl is not installed" : false);

function check(result: ScenarioResult) {
  assert.match(result.helperArgument, /^join:\d+:\d+$/);
  assert.equal(result.listed.output, "machine says /listed");
  assert.equal(result.tunnel.output, "machine says /tunnel", "curl -p: a CONNECT tunnel");
  assert.match(result.unlisted.output, /toolhost's sandbox refused this: unlisted\.example:80/);
  assert.deepEqual(result.refusals, [
    "sandbox: refused network to unlisted.example:80 (not in sandbox.allow_network)",
  ]);
  // The listed port of the machine's loopback is brought in: reached without the proxy too.
  assert.equal(result.directListed.output, "machine says /direct");
  // Any other port of the machine's 127.0.0.1 is not the namespace's: nothing listens there.
  assert.notEqual(result.direct.status, 0);
  assert.match(result.direct.output, /Couldn't connect|Failed to connect/);
  assert.deepEqual(result.seen, ["/listed", "/tunnel", "/direct", "/again"]);
  assert.equal(result.loopbackInside.output.trim(), "namespace says hi");
  assert.match(
    result.notice ?? "",
    /the session's network had ended \(signal SIGKILL\) and was made again/,
  );
  assert.equal(result.afterRestart.output, "machine says /again");
  assert.equal(result.holderPids.length, 2, "one holder, then the one made again");
  assert.deepEqual(result.leftAfterEnd, [], "no holder outlives its session");
}

test("a session's network as root: listed through the proxy, unlisted refused, loopback its own", {
  skip,
}, async () => {
  const result = await scenario(helper);
  assert.equal(result.uid, process.getuid!());
  check(result);
});

test("a session's network as uid 65534", {
  skip: skip || (process.getuid!() !== 0 ? "needs root to become uid 65534" : false),
}, () => {
  const deno = process.execPath;
  const script = fileURLToPath(new URL("../helpers/confine_network_scenario.ts", import.meta.url));
  const home = mkdtempSync(join(tmpdir(), "toolhost-net-nobody-"));
  execFileSync("chown", ["65534:65534", home]);
  try {
    const out = execFileSync(
      "setpriv",
      [
        "--reuid=65534",
        "--regid=65534",
        "--clear-groups",
        deno,
        "run",
        "--allow-all",
        "--no-check",
        script,
        helper,
      ],
      {
        env: { PATH: process.env.PATH, HOME: home, DENO_DIR: join(home, "deno"), TMPDIR: home },
        cwd: fileURLToPath(new URL("../..", import.meta.url)),
        encoding: "utf8",
        timeout: 120_000,
      },
    );
    const result = JSON.parse(out.trim().split("\n").at(-1)!) as ScenarioResult;
    assert.equal(result.uid, 65534);
    check(result);
  } finally {
    rmSync(home, { recursive: true, force: true });
  }
});

test("without namespaces: the proxy on TCP 127.0.0.1, the only port a process may connect to", {
  skip,
}, async () => {
  const seen: string[] = [];
  const server = createServer((req, res) => {
    seen.push(req.url!);
    res.end(`machine says ${req.url}`);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const dir = mkdtempSync(join(tmpdir(), "toolhost-net-fallback-"));
  const session = new SessionMemory();
  const ctx = {
    config: {
      ...defaultSettings(),
      sandbox: { ...defaultSettings().sandbox, allowNetwork: [`localhost:${port}`] },
    },
    session,
    canElicitMidCall: false,
    signal: new AbortController().signal,
    log: () => {},
  } as unknown as ToolContext;
  try {
    const network = await networkForCall(ctx, { helper, namespaces: false }, "curl");
    assert.match(network.helperArgument, /^proxy:\d+$/);
    // -N: Landlock alone, as where user namespaces are refused.
    const run = (command: string) => runConfined(helper, network, dir, command, {}, ["-N"]);
    assert.equal(
      (await run(`curl -sS http://localhost:${port}/proxied`)).output,
      "machine says /proxied",
    );
    const direct = await run(`curl -sS --noproxy '*' http://127.0.0.1:${port}/direct`);
    assert.notEqual(direct.status, 0);
    assert.match(
      await run("curl -sS http://unlisted.example/").then((r) => r.output),
      /refused this: unlisted\.example:80/,
    );
    assert.deepEqual(seen, ["/proxied"]);
    assert.deepEqual(network.refusals().map((r) => `${r.host}:${r.port}`), ["unlisted.example:80"]);
  } finally {
    await session.dispose();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

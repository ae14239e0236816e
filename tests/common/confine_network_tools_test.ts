/**
 * What common tools actually read: each runs in a session's namespace (the real helper and
 * holder) with only the environment the sandbox gives it, and asks a host the sandbox lists. The
 * host is reachable only through the proxy (there is no other route out, and its made-up name
 * resolves only in the proxy's table), so a request it sees is a tool that used the proxy.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { chmodSync, existsSync, mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before, test } from "node:test";
import { fileURLToPath } from "node:url";
import { defaultSettings } from "../../config/settings.ts";
import { SessionMemory, type ToolContext } from "../../mcp/tool/mod.ts";
import { SessionNetwork } from "../../tools/_lib/confine/_network_session.ts";
import { NAMESPACE_LOOPBACK, withProxyEnvironment } from "../../tools/_lib/confine/_proxy_env.ts";
import { networkHelper } from "../helpers/confine_helper.ts";
import { runConfined } from "../helpers/confine_network_scenario.ts";

const { helper, skip } = networkHelper();

const seen: string[] = [];
const origin = createServer((req, res) => {
  seen.push(req.url!);
  res.writeHead(404, { "content-length": "0" });
  res.end();
});
let registry = "";
let dir = "";
const network = new SessionNetwork({
  lookup: (host) =>
    host === "registry.test"
      ? Promise.resolve(["127.0.0.1"])
      : Promise.reject(new Error("ENOTFOUND")),
});

before(async () => {
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  registry = `http://registry.test:${(origin.address() as AddressInfo).port}`;
  dir = mkdtempSync(join(tmpdir(), "toolhost-net-tools-"));
  chmodSync(dir, 0o755);
});
after(async () => {
  await network.end();
  origin.close();
  rmSync(dir, { recursive: true, force: true });
});

const BUN = fileURLToPath(new URL("../../node_modules/.bin/bun", import.meta.url));

const has = (program: string, ...args: string[]) =>
  spawnSync(program, args.length ? args : ["--version"], { stdio: "ignore" }).status === 0;

/** Runs `command` in the session's namespace with the sandbox's environment; the paths it asked. */
async function asked(command: string, extra: Record<string, string> = {}): Promise<string[]> {
  const config = {
    ...defaultSettings(),
    sandbox: { ...defaultSettings().sandbox, allowNetwork: ["registry.test"] },
  };
  const ctx = {
    config,
    session: new SessionMemory(),
    canElicitMidCall: false,
    signal: new AbortController().signal,
    log: () => {},
  } as unknown as ToolContext;
  const { ready, record } = await network.forProcess(ctx, { helper, namespaces: true });
  const url = `http://toolhost:${record.token}@127.0.0.1:${ready.port}`;
  const before = seen.length;
  const ran = await runConfined(
    helper,
    {
      helperArgument: ready.helperArgument,
      env: (base) => withProxyEnvironment(base, url, NAMESPACE_LOOPBACK),
      refusals: () => [],
      end: () => {},
    },
    dir,
    command,
    extra,
  );
  record.end();
  const paths = seen.slice(before);
  assert.ok(
    paths.length > 0,
    `nothing reached the host; the command said: ${ran.output.slice(0, 500)}`,
  );
  return paths;
}

const tools: [string, () => string | false, () => string, string][] = [
  [
    "curl",
    () => !has("curl") && "curl is not installed",
    () => `curl -sS ${registry}/curl`,
    "/curl",
  ],
  [
    "wget",
    () => !has("wget") && "wget is not installed",
    () => `wget -q -O- ${registry}/wget`,
    "/wget",
  ],
  [
    "git",
    () => !has("git") && "git is not installed",
    () => `git ls-remote ${registry}/repo.git`,
    "/repo.git/info/refs?service=git-upload-pack",
  ],
  [
    "pip",
    () =>
      !has("/usr/bin/python3", "-m", "pip", "--version") &&
      "pip is not installed for /usr/bin/python3",
    () =>
      `/usr/bin/python3 -m pip download --no-deps --no-cache-dir --index-url ${registry}/simple/ --trusted-host registry.test -d ${dir}/pip left-pad`,
    "/simple/left-pad/",
  ],
  [
    "npm",
    () => !has("npm") && "npm is not installed",
    () =>
      `npm view left-pad --registry ${registry}/ --cache ${dir}/npm --fetch-retries 0 --update-notifier false`,
    "/left-pad",
  ],
  [
    "go",
    () => !has("go", "version") && "go is not installed",
    () =>
      `mkdir -p ${dir}/gomod && cd ${dir}/gomod && printf 'module m\\ngo 1.21\\n' > go.mod && ` +
      `GOPROXY=${registry}/goproxy GOSUMDB=off GOFLAGS=-mod=mod GOPATH=${dir}/go GOCACHE=${dir}/gocache ` +
      "go mod download example.com/x@v1.0.0",
    "/goproxy/example.com/x/@v/v1.0.0.info",
  ],
  [
    "cargo",
    () => !has("cargo") && "cargo is not installed",
    () =>
      `CARGO_HOME=${dir}/cargo CARGO_REGISTRIES_T_INDEX=sparse+${registry}/index/ cargo search --registry t left-pad`,
    "/index/config.json",
  ],
  [
    "bun",
    () => !existsSync(BUN) && "bun is not installed in node_modules",
    () => `${BUN} -e 'await fetch("${registry}/bun")'`,
    "/bun",
  ],
  [
    "deno",
    () => false,
    () => `DENO_DIR=${dir}/deno ${process.execPath} eval 'await fetch("${registry}/deno")'`,
    "/deno",
  ],
];

for (const [name, missing, command, path] of tools) {
  test(`${name} goes through the session's proxy with the environment it is given`, {
    skip: skip || missing(),
  }, async () => {
    const extra: Record<string, string> = {
      RUSTUP_HOME: process.env.RUSTUP_HOME ?? join(homedir(), ".rustup"),
    };
    assert.ok((await asked(command(), extra)).includes(path));
  });
}

test("node's fetch goes through it from Node 24 on (NODE_USE_ENV_PROXY)", {
  skip: skip ||
    (Number(
        spawnSync("node", ["-p", "process.versions.node.split('.')[0]"], { encoding: "utf8" })
          .stdout,
      ) < 24
      ? "Node before 24 ignores proxy variables in fetch (this machine's node is older)"
      : false),
}, async () => {
  assert.ok(
    (await asked(`node -e 'await fetch("${registry}/node")' --input-type=module`)).includes(
      "/node",
    ),
  );
});

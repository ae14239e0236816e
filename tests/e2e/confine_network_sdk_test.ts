/**
 * The session's network through the binary (dist/toolhost-test's net_run fixture runs a command
 * in it with the real helper) and the official clients: a host the setting does not list is put
 * to the person by the legacy SDK client's elicitation handler, answered "session", "always"
 * (written into the user file, comments kept) or "deny"; a 2026-07-28 client cannot be asked
 * mid-call and the host is refused, naming the setting. The holder ends with the session.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import process from "node:process";
import { after, before, test } from "node:test";
import { Client as ModernClient } from "@modelcontextprotocol/client";
import { StdioClientTransport as ModernTransport } from "@modelcontextprotocol/client/stdio";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { ElicitRequestSchema } from "@modelcontextprotocol/sdk/types.js";
import { parse } from "jsonc-parser";
import { networkHelper } from "../helpers/confine_helper.ts";
import { holderProcesses } from "../helpers/confine_network_scenario.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { type LocalProxy, startProxy } from "../helpers/local_proxy.ts";
import { binary, TEST_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();
const { helper, skip } = networkHelper();

const seen: string[] = [];
const origin = createServer((req, res) => {
  seen.push(req.url!);
  const body = `registry says ${req.url}`;
  res.writeHead(200, { "content-length": String(body.length) });
  res.end(body);
});
/** The user's own proxy, which knows registry.test (toolhost chains to it, so nothing leaves). */
let mapping: LocalProxy;

before(async () => {
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  mapping = await startProxy({ "registry.test:80": (origin.address() as AddressInfo).port });
});
after(async () => {
  await mapping?.close();
  origin.close();
});

/** A process's parent, from /proc (undefined once it is gone). */
function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return Number(stat.slice(stat.lastIndexOf(") ") + 2).split(" ")[1]);
  } catch {
    return undefined;
  }
}

const USER_FILE = ["{", "  // my own settings", '  "log_level": "info", // quiet', "}", ""].join(
  "\n",
);

/** How to start the server: a scratch home whose user file has comments. */
function server(home = e2e.scratch("net-home")) {
  const xdg = join(home, ".config");
  const file = join(xdg, "toolhost", "config.jsonc");
  Deno.mkdirSync(join(xdg, "toolhost"), { recursive: true });
  try {
    readFileSync(file);
  } catch {
    writeFileSync(file, USER_FILE);
  }
  return {
    home,
    file,
    params: {
      command: binary(TEST_BINARY),
      cwd: home,
      env: {
        HOME: home,
        XDG_CONFIG_HOME: xdg,
        TOOLHOST_SKILL_DIRS: "",
        TOOLHOST_PROXY: mapping.url,
        TOOLHOST_TEST_CONFINE_HELPER: helper,
        PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin",
      },
      stderr: "pipe" as const,
    },
  };
}

/** The server run as uid 65534, in a home that user owns. */
function asNobody(started: ReturnType<typeof server>) {
  execFileSync("chown", ["-R", "65534:65534", started.home]);
  const { command, ...rest } = started.params;
  return {
    ...started,
    params: {
      ...rest,
      command: "setpriv",
      args: ["--reuid=65534", "--regid=65534", "--clear-groups", command],
    },
  };
}

async function legacyClient(answer: string, home?: string, nobody = false) {
  const started = nobody ? asNobody(server(home)) : server(home);
  const client = new Client({ name: "net-e2e", version: "1.0.0" }, {
    capabilities: { elicitation: {} },
  });
  const asked: { message: string; choices: string[] }[] = [];
  client.setRequestHandler(ElicitRequestSchema, (request) => {
    const schema = (request.params as { requestedSchema: unknown }).requestedSchema as {
      properties: { decision: { enum?: string[]; oneOf?: { const: string }[] } };
    };
    const decision = schema.properties.decision;
    asked.push({
      message: request.params.message,
      choices: decision.oneOf?.map((choice) => choice.const) ?? decision.enum ?? [],
    });
    return { action: "accept", content: { decision: answer } };
  });
  await client.connect(new StdioClientTransport(started.params));
  const run = async (command: string) => {
    const result = await client.callTool({ name: "net_run", arguments: { command } });
    return (result.content as { text: string }[])[0].text;
  };
  return { client, asked, run, ...started };
}

test(
  "answered 'session': the command reaches the host, and the session's next command is not asked",
  {
    skip,
  },
  async () => {
    const { client, asked, run } = await legacyClient("session");
    try {
      assert.match(
        await run("curl -sS http://registry.test/first"),
        /^registry says \/first\n\[exit 0\]$/,
      );
      assert.equal(asked.length, 1);
      assert.match(
        asked[0].message,
        /A command wants to reach registry\.test:80, which sandbox\.allow_network does not list\./,
      );
      assert.match(asked[0].message, /The command: curl -sS http:\/\/registry\.test\/first/);
      assert.deepEqual(asked[0].choices, ["once", "session", "always", "deny"]);
      assert.match(await run("curl -sS http://registry.test/second"), /^registry says \/second/);
      assert.equal(asked.length, 1, "allowed for the session");
    } finally {
      await client.close();
    }
  },
);

test(
  "answered 'always': written into the user file with its comments, and a new session is not asked",
  {
    skip,
  },
  async () => {
    const first = await legacyClient("always");
    try {
      assert.match(
        await first.run("curl -sS http://registry.test/always"),
        /^registry says \/always/,
      );
    } finally {
      await first.client.close();
    }
    const text = readFileSync(first.file, "utf8");
    assert.match(text, /\/\/ my own settings\n {2}"log_level": "info", \/\/ quiet/);
    assert.deepEqual(parse(text).sandbox.allow_network, ["registry.test"]);
    const second = await legacyClient("deny", first.home);
    try {
      assert.match(await second.run("curl -sS http://registry.test/next"), /^registry says \/next/);
      assert.equal(second.asked.length, 0, "the user file lists it now");
    } finally {
      await second.client.close();
    }
  },
);

test(
  "as uid 65534: answered 'always', the command reaches the host and that user's file is written",
  {
    skip: skip || (process.getuid!() !== 0 ? "needs root to become uid 65534" : false),
  },
  async () => {
    const { client, asked, run, file } = await legacyClient("always", undefined, true);
    try {
      assert.match(
        await run("id -u; curl -sS http://registry.test/nobody"),
        /^65534\nregistry says \/nobody/,
      );
      assert.equal(asked.length, 1);
    } finally {
      await client.close();
    }
    assert.deepEqual(parse(readFileSync(file, "utf8")).sandbox.allow_network, ["registry.test"]);
  },
);

test(
  "answered 'deny': refused, and the result names the host and the setting",
  { skip },
  async () => {
    const { client, asked, run } = await legacyClient("deny");
    const before = seen.length;
    try {
      const text = await run("curl -sS http://registry.test/denied");
      assert.match(text, /toolhost's sandbox refused this: registry\.test:80/);
      assert.match(
        text,
        /\nsandbox: refused network to registry\.test:80 \(not in sandbox\.allow_network, and the person denied it\)$/,
      );
      assert.equal(asked.length, 1);
      assert.equal(seen.length, before, "nothing reached the host");
    } finally {
      await client.close();
    }
  },
);

test(
  "a 2026-07-28 client is not asked mid-call: refused, naming the setting; the holder ends with the session",
  {
    skip,
  },
  async () => {
    const { params } = server();
    const client = new ModernClient(
      { name: "net-modern-e2e", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } }, capabilities: { elicitation: {} } },
    );
    let asked = 0;
    client.setRequestHandler("elicitation/create", () => {
      asked++;
      return { action: "accept", content: { decision: "session" } };
    });
    const transport = new ModernTransport(params);
    await client.connect(transport);
    let holders: number[] = [];
    try {
      const result = await client.callTool({
        name: "net_run",
        arguments: { command: "curl -sS http://registry.test/modern" },
      });
      const text = (result.content as { text: string }[])[0].text;
      assert.match(
        text,
        /\nsandbox: refused network to registry\.test:80 \(not in sandbox\.allow_network\)$/,
      );
      assert.equal(asked, 0);
      // This server's: a holder is its child.
      holders = holderProcesses(helper).filter((pid) => parentOf(pid) === transport.pid);
      assert.equal(holders.length, 1, "the session's holder runs");
    } finally {
      await client.close();
    }
    // The server ends with its client, and its holder with it. Not our child: nothing to wait on
    // but its /proc entry, looked at until it is gone or 5 s have passed.
    const left = () => holderProcesses(helper).filter((pid) => holders.includes(pid));
    for (let i = 0; i < 100 && left().length > 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    assert.deepEqual(left(), []);
  },
);

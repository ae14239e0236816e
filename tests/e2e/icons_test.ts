/**
 * Icons through the compiled binary: the official legacy client (2025-11-25) and the 2026-07-28
 * client see the server's icon and each tool's family icon, inline data: URIs in name order; a
 * 2025-06-18 session (raw lines) gets neither.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { binary, isolatedEnv, PRODUCT_BINARY, RawClient, ROOT } from "../helpers/raw_client.ts";

const DATA_SVG = /^data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+$/;

const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) await c.close();
});

function checkTools(tools: { name: string; icons?: { src: string }[] }[]) {
  const names = tools.map((t) => t.name);
  assert.deepEqual(names, [...names].sort(), "tools/list is in name order");
  for (const tool of tools) {
    assert.equal(tool.icons?.length, 1, tool.name);
    assert.match(tool.icons![0].src, DATA_SVG, tool.name);
  }
  const src = (name: string) => tools.find((t) => t.name === name)!.icons![0].src;
  assert.equal(src("read_file"), src("write_file"), "one icon per family");
  assert.notEqual(src("read_file"), src("bash"));
}

test("the legacy SDK client (2025-11-25) sees the server's and the tools' icons", async () => {
  const client = new LegacyClient({ name: "icons-legacy", version: "1.0.0" });
  await client.connect(
    new LegacyStdio({
      command: binary(PRODUCT_BINARY),
      cwd: ROOT,
      env: isolatedEnv(),
      stderr: "pipe",
    }),
  );
  try {
    const info = client.getServerVersion() as { icons?: { src: string }[] };
    assert.match(info.icons![0].src, DATA_SVG);
    checkTools((await client.listTools()).tools as { name: string; icons?: { src: string }[] }[]);
  } finally {
    await client.close();
  }
});

test("the 2026-07-28 SDK client sees the tools' icons", async () => {
  const client = new Client(
    { name: "icons-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(
    new StdioClientTransport({
      command: binary(PRODUCT_BINARY),
      cwd: ROOT,
      env: isolatedEnv(),
      stderr: "pipe",
    }),
  );
  try {
    checkTools((await client.listTools()).tools as { name: string; icons?: { src: string }[] }[]);
  } finally {
    await client.close();
  }
});

test("raw lines: a 2025-06-18 session gets no icons", async () => {
  const c = new RawClient(PRODUCT_BINARY);
  clients.push(c);
  const init = await c.initialize("2025-06-18");
  assert.equal((init.result!.serverInfo as { icons?: unknown }).icons, undefined);
  const listed = await c.request("tools/list", {});
  for (const tool of listed.result!.tools as { name: string; icons?: unknown }[]) {
    assert.equal(tool.icons, undefined, tool.name);
  }
  const init2 = new RawClient(PRODUCT_BINARY);
  clients.push(init2);
  const newer = await init2.initialize("2025-11-25");
  assert.match((newer.result!.serverInfo as { icons: { src: string }[] }).icons[0].src, DATA_SVG);
});

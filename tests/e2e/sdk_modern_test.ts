/**
 * The official 2026-07-28 client (@modelcontextprotocol/client) probes with server/discover,
 * settles on the modern era and talks to the binary statelessly.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, PRODUCT_BINARY, ROOT } from "../helpers/raw_client.ts";

// The servers are the SDK's to start; the fixture removes the home and state they share.
e2eFixture();

test("a dual-era SDK client in auto mode negotiates 2026-07-28 with dist/toolhost and runs bash", async () => {
  const client = new Client(
    { name: "sdk-modern-e2e", version: "1.0.0" },
    { versionNegotiation: { mode: "auto" } },
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
    assert.equal(client.getProtocolEra(), "modern");
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "bash"));
    const result = await client.callTool({ name: "bash", arguments: { command: "echo modern" } });
    assert.match(JSON.stringify(result.content), /modern\\n/);
    assert.equal((result.structuredContent as { exitCode: number }).exitCode, 0);
  } finally {
    await client.close();
  }
});

test("the same client pinned to 2026-07-28 connects too", async () => {
  const client = new Client(
    { name: "sdk-modern-e2e", version: "1.0.0" },
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
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    assert.equal(tools.length > 0, true);
  } finally {
    await client.close();
  }
});

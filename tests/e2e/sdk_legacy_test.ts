/**
 * The official TypeScript SDK client (@modelcontextprotocol/sdk, 2025-11-25 and earlier) drives
 * the compiled binaries over stdio, exactly as Claude Code, Cursor and friends do.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
  McpError,
} from "@modelcontextprotocol/sdk/types.js";
import { pathToFileURL } from "node:url";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, PRODUCT_BINARY, ROOT, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

async function connect(path: string) {
  const client = new Client({ name: "sdk-e2e", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: binary(path),
    cwd: ROOT,
    env: isolatedEnv(),
    stderr: "pipe",
  });
  await client.connect(transport);
  return { client, transport };
}

test("the SDK client connects to dist/toolhost, negotiates 2025-11-25 and lists bash", async () => {
  const { client } = await connect(PRODUCT_BINARY);
  try {
    assert.deepEqual(client.getServerVersion()?.name, "toolhost");
    assert.ok(client.getServerCapabilities()?.tools);
    assert.match(client.getInstructions() ?? "", /bash/);
    const { tools } = await client.listTools();
    const bash = tools.find((t) => t.name === "bash");
    assert.ok(bash, "bash is offered");
    assert.equal(bash.annotations?.destructiveHint, true);
    assert.deepEqual(bash.inputSchema.required, ["command"]);
    assert.ok(bash.outputSchema, "bash declares its output schema");
    assert.deepEqual(tools.map((t) => t.name), [...tools.map((t) => t.name)].sort());
    await client.ping();
  } finally {
    await client.close();
  }
});

test(
  "the SDK client runs bash (uname -a) and validates its structuredContent against outputSchema",
  posixOnly("runs uname -a"),
  async () => {
    const { client } = await connect(PRODUCT_BINARY);
    try {
      const result = await client.callTool({ name: "bash", arguments: { command: "uname -a" } });
      const text = (result.content as { type: string; text: string }[])[0].text;
      assert.match(text, /^\S+ \S+ /, "uname output");
      assert.match(text, /\[exit code 0 · \d+ ms\]$/);
      assert.equal(result.isError, undefined);
      const structured = result.structuredContent as { exitCode: number; timedOut: boolean };
      assert.equal(structured.exitCode, 0);
      assert.equal(structured.timedOut, false);
    } finally {
      await client.close();
    }
  },
);

test("through the SDK: a failing command is an isError result; bad arguments too; an unknown tool is an McpError", async () => {
  const { client } = await connect(PRODUCT_BINARY);
  try {
    const failed = await client.callTool({ name: "bash", arguments: { command: "exit 4" } });
    assert.equal(failed.isError, true);
    const invalid = await client.callTool({ name: "bash", arguments: { command: 5 } });
    assert.equal(invalid.isError, true);
    assert.match(JSON.stringify(invalid.content), /command must be string, got integer 5/);
    await assert.rejects(
      client.callTool({ name: "no_such_tool", arguments: {} }),
      (error: unknown) => error instanceof McpError && error.code === -32602,
    );
  } finally {
    await client.close();
  }
});

test("through the SDK: progress callbacks fire and an aborted call is cancelled on the server", async () => {
  const { client, transport } = await connect(TEST_BINARY);
  let stderr = "";
  transport.stderr?.on("data", (chunk: Uint8Array) => (stderr += new TextDecoder().decode(chunk)));
  try {
    const seen: number[] = [];
    const done = await client.callTool(
      { name: "slow", arguments: { ms: 300, step_ms: 50 } },
      undefined,
      { onprogress: (p) => seen.push(p.progress) },
    );
    assert.match(JSON.stringify(done.content), /slept 300 ms/);
    assert.ok(seen.length >= 3, `progress values: ${seen}`);
    assert.deepEqual(seen, [...seen].sort((a, b) => a - b));

    const controller = new AbortController();
    const pending = client.callTool({ name: "slow", arguments: { ms: 10_000 } }, undefined, {
      signal: controller.signal,
    });
    setTimeout(() => controller.abort("test"), 200);
    await assert.rejects(pending);
    // The server logs the cancellation on stderr; wait for it.
    if (!/cancelled by the client/.test(stderr)) {
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 10_000);
        transport.stderr?.on("data", () => {
          if (/cancelled by the client/.test(stderr)) {
            clearTimeout(timer);
            resolve();
          }
        });
      });
    }
    assert.match(stderr, /\(tools\/call\) cancelled by the client/);
    await client.ping();
  } finally {
    await client.close();
  }
});

test("through the SDK: logging/setLevel filters the tool's log messages", async () => {
  const { client } = await connect(TEST_BINARY);
  try {
    const levels: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      levels.push(n.params.level);
    });
    await client.setLoggingLevel("critical");
    await client.callTool({ name: "logs", arguments: {} });
    assert.deepEqual(levels, ["critical", "alert", "emergency"]);
  } finally {
    await client.close();
  }
});

test("the SDK client receives a 1 MB reply whole through the pipe", async () => {
  const { client } = await connect(TEST_BINARY);
  try {
    const result = await client.callTool({ name: "big", arguments: { size: 1_000_000 } });
    const text = (result.content as { text: string }[])[0].text;
    assert.equal(text.length, 1_000_000);
    assert.ok(text.startsWith("0123456789abcdefghijklmnopqrstuvwxyz\u00e9\u4e2d0123"));
  } finally {
    await client.close();
  }
});

test("the SDK client's roots become the sandbox, and a roots change is picked up", async () => {
  const [first, second] = [1, 2].map(() => e2e.scratch("sdk-root"));
  let offered = [first];
  const client = new Client(
    { name: "sdk-e2e", version: "1.0.0" },
    { capabilities: { roots: { listChanged: true } } },
  );
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: offered.map((dir) => ({ uri: pathToFileURL(dir).href, name: "test root" })),
  }));
  await client.connect(
    new StdioClientTransport({
      command: binary(PRODUCT_BINARY),
      cwd: ROOT,
      env: isolatedEnv(),
      stderr: "pipe",
    }),
  );
  try {
    const roots = async () =>
      ((await client.callTool({ name: "list_roots", arguments: {} })).structuredContent as {
        roots: string[];
      }).roots;
    assert.deepEqual(await roots(), [first]);
    offered = [second, first];
    await client.sendRootsListChanged();
    assert.deepEqual(await roots(), [second, first]);
  } finally {
    await client.close();
  }
});

/**
 * The two other ways in that --http serves beside Streamable HTTP, through the compiled binary
 * and the official clients: the 2024-11-05 HTTP+SSE transport (the TypeScript SDK's
 * SSEClientTransport, and the Python SDK's sse_client when a Python with `mcp` is at hand) and
 * WebSocket on /mcp (the TypeScript SDK's WebSocketClientTransport). Guards, limits, closes.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { pathToFileURL } from "node:url";
import { before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/websocket"
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  ListRootsRequestSchema,
  LoggingMessageNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import { type HttpServer, rawHttp, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { MODERN_VERSION, PRODUCT_BINARY, ROOT } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

let server: HttpServer;
let project: string;

before(async () => {
  project = e2e.file.scratch("channels");
  writeFileSync(join(project, "notes.txt"), "hello over a channel\n");
  server = await startHttpServer(PRODUCT_BINARY, ["--max-line-mb", "1"], {}, project);
});

// Also where the last test, which stops it, is skipped.
e2e.file.cleanup(() => server?.terminate());

const base = () => `http://127.0.0.1:${server.port}`;

/** A client offering roots (the server asks for them) that records log lines. */
async function connected(transport: SSEClientTransport | WebSocketClientTransport) {
  const client = new Client({ name: "channel-test", version: "1.0.0" }, {
    capabilities: { roots: { listChanged: true } },
  });
  client.setRequestHandler(ListRootsRequestSchema, () => ({
    roots: [{ uri: pathToFileURL(project).href, name: "project" }],
  }));
  const logs: string[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
    logs.push(String(n.params.data));
  });
  await client.connect(transport);
  return { client, logs };
}

/** What each official client must manage: tools, a server request, notifications, resources. */
async function exercise(transport: SSEClientTransport | WebSocketClientTransport) {
  const { client, logs } = await connected(transport);
  try {
    assert.equal(client.getServerVersion()?.name, "toolhost");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "bash"));
    // The server asks the client for its roots (a request of ours down the channel).
    const roots = await client.callTool({ name: "list_roots", arguments: {} });
    assert.deepEqual((roots.structuredContent as { roots: string[] }).roots, [project]);
    await client.setLoggingLevel("info");
    const progress: number[] = [];
    const run = await client.callTool(
      { name: "bash", arguments: { command: "sleep 1.2; echo channel-ok", description: "nap" } },
      undefined,
      { onprogress: (p) => progress.push(p.progress) },
    );
    assert.match(JSON.stringify(run.content), /channel-ok/);
    assert.deepEqual(logs, ["running: nap"]);
    assert.deepEqual(progress, [1]);
    const read = await client.readResource({ uri: pathToFileURL(join(project, "notes.txt")).href });
    assert.deepEqual(read.contents.map((c) => "text" in c ? c.text : ""), [
      "hello over a channel\n",
    ]);
  } finally {
    await client.close();
  }
}

test("the TypeScript SDK's SSEClientTransport (2024-11-05) connects and calls tools", async () => {
  await exercise(new SSEClientTransport(new URL(`${base()}/sse`)));
});

test("the TypeScript SDK's WebSocketClientTransport connects and calls tools", async () => {
  await exercise(new WebSocketClientTransport(new URL(`ws://127.0.0.1:${server.port}/mcp`)));
});

/** A Python that can import the official SDK: TOOLHOST_TEST_PYTHON, else python3. */
function pythonWithMcp(): string | undefined {
  const python = process.env.TOOLHOST_TEST_PYTHON ?? "python3";
  const probe = spawnSync(python, ["-c", "import mcp.client.sse"], { stdio: "ignore" });
  return probe.status === 0 ? python : undefined;
}

test("the Python SDK's sse_client connects and calls a tool", async (t) => {
  const python = pythonWithMcp();
  if (!python) {
    t.skip("no Python with the mcp package (set TOOLHOST_TEST_PYTHON to one)");
    return;
  }
  const script = join(ROOT, "tests/fixtures/python/sse_client.py");
  const { spawn } = await import("node:child_process");
  const child = spawn(python, [script, `${base()}/sse`, "echo from-python"]);
  let out = "";
  let err = "";
  child.stdout.setEncoding("utf8").on("data", (text: string) => (out += text));
  child.stderr.setEncoding("utf8").on("data", (text: string) => (err += text));
  const code = await new Promise((resolve) => child.once("exit", resolve));
  assert.equal(code, 0, err);
  const seen = JSON.parse(out.trim().split("\n").pop()!);
  assert.equal(seen.server, "toolhost");
  assert.ok(seen.tools.includes("bash"));
  assert.match(seen.text, /^from-python\n/);
  assert.equal(seen.isError, false);
});

test("a WebSocket answers 2026-07-28 requests statelessly beside its legacy session", async () => {
  const socket = new WebSocket(`ws://127.0.0.1:${server.port}/mcp`, "mcp");
  const received: Record<string, unknown>[] = [];
  let wake = () => {};
  socket.onmessage = (event) => {
    received.push(JSON.parse(event.data));
    wake();
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  assert.equal(socket.protocol, "mcp");
  const until = async (n: number) => {
    while (received.length < n) await new Promise<void>((resolve) => (wake = resolve));
  };
  socket.send(JSON.stringify({
    jsonrpc: "2.0",
    id: "d",
    method: "server/discover",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  }));
  await until(1);
  const discovered = received[0].result as Record<string, unknown>;
  assert.equal(discovered.resultType, "complete");
  assert.ok((discovered.supportedVersions as string[]).includes("2024-11-05"));
  // A legacy request before initialize is told to initialize, on the same socket.
  socket.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/list" }));
  await until(2);
  assert.match((received[1].error as { message: string }).message, /send initialize first/);
  const closed = new Promise<CloseEvent>((resolve) => (socket.onclose = resolve));
  // Over --max-line-mb 1: the socket is closed with 1009.
  socket.send("x".repeat(1024 * 1024 + 10));
  const event = await closed;
  assert.equal(event.code, 1009);
});

test("the guards hold for /sse, /messages and WebSocket handshakes alike", async () => {
  const evil = { origin: "https://evil.example", accept: "text/event-stream" };
  assert.equal(
    (await rawHttp(server.port, { method: "GET", path: "/sse", headers: evil })).status,
    403,
  );
  const rebound = { host: "evil.example", accept: "text/event-stream" };
  assert.equal(
    (await rawHttp(server.port, { method: "GET", path: "/sse", headers: rebound })).status,
    403,
  );
  const upgrade = {
    connection: "Upgrade",
    upgrade: "websocket",
    "sec-websocket-version": "13",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    "sec-websocket-protocol": "mcp",
  };
  const refused = await rawHttp(server.port, {
    method: "GET",
    headers: { ...upgrade, origin: "https://evil.example" },
  });
  assert.equal(refused.status, 403);
  const noProtocol = await rawHttp(server.port, {
    method: "GET",
    headers: { ...upgrade, "sec-websocket-protocol": "chat" },
  });
  assert.equal(noProtocol.status, 400);
  assert.match(noProtocol.body, /subprotocol \\"mcp\\"/);
  const unknown = await rawHttp(server.port, {
    path: "/messages?sessionId=nobody",
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  assert.equal(unknown.status, 404);
});

test("with a token, SSE and WebSocket clients need it too", async () => {
  const guarded = await startHttpServer(PRODUCT_BINARY, [], { TOOLHOST_HTTP_TOKEN: "s3cret" });
  try {
    const url = `http://127.0.0.1:${guarded.port}`;
    assert.equal((await fetch(`${url}/sse`)).status, 401);
    const noToken = new SSEClientTransport(new URL(`${url}/sse`));
    await assert.rejects(new Client({ name: "x", version: "1" }).connect(noToken));
    const headers = { authorization: "Bearer s3cret" };
    const client = new Client({ name: "x", version: "1" });
    await client.connect(
      new SSEClientTransport(new URL(`${url}/sse`), { requestInit: { headers } }),
    );
    assert.ok((await client.listTools()).tools.length > 0);
    await client.close();
    const upgrade = {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-protocol": "mcp",
    };
    assert.equal((await rawHttp(guarded.port, { method: "GET", headers: upgrade })).status, 401);
  } finally {
    const status = await guarded.terminate();
    assert.equal(status.code, 0, guarded.stderr());
  }
});

test(
  "SIGTERM closes WebSockets with 1001 and ends SSE streams; exit 0, nothing on stdout",
  posixOnly("sends SIGTERM for an orderly stop (Windows can only terminate)"),
  async () => {
    const socket = new WebSocket(`ws://127.0.0.1:${server.port}/mcp`, "mcp");
    await new Promise((resolve) => (socket.onopen = resolve));
    const closed = new Promise<CloseEvent>((resolve) => (socket.onclose = resolve));
    const stream = await fetch(`${base()}/sse`);
    const reader = stream.body!.getReader();
    const { code } = await server.terminate();
    assert.equal(code, 0, server.stderr());
    assert.equal((await closed).code, 1001);
    for (;;) if ((await reader.read()).done) break;
    assert.equal(server.stdout(), "");
  },
);

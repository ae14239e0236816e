/**
 * The HTTP transport's channel sessions, called in process: the 2024-11-05 SSE transport
 * (/sse and /messages) and the WebSocket upgrade on /mcp, through a stand-in for the runtime's
 * upgrade. Session caps, refusals, frames and closes; tests/e2e drives both with real clients.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import process from "node:process";
import { HttpGuard } from "../../mcp/http/guard.ts";
import type { SocketEvents } from "../../mcp/http/serve.ts";
import { HttpTransport } from "../../mcp/http/transport.ts";
import type { Logger } from "../../mcp/wire/mod.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { defineTool } from "../../mcp/tool/mod.ts";

const quiet: Logger = { log: () => {} };
const BASE = "http://127.0.0.1:9";

const wait = defineTool({
  name: "wait",
  description: "waits until cancelled",
  input: { type: "object", properties: {} },
  run: (_args, ctx) =>
    new Promise((resolve) => ctx.onAbort(() => resolve(`stopped: ${ctx.abortReason()}`))),
});

function transport(options: { maxSessions?: number; maxBodyBytes?: number } = {}) {
  const service = new McpService({
    info: { name: "t", version: "1" },
    tools: [wait],
    logger: quiet,
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  return new HttpTransport({
    service,
    logger: quiet,
    guard: new HttpGuard({ host: "127.0.0.1", origins: [] }),
    maxBodyBytes: options.maxBodyBytes ?? 1 << 20,
    maxSessions: options.maxSessions,
  });
}

const INITIALIZE = {
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2024-11-05",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  },
};

/** Reads SSE events (type and data) as they come. */
class Events {
  readonly #reader: ReadableStreamDefaultReader<string>;
  #buffer = "";
  constructor(response: Response) {
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }
  async next(): Promise<{ event: string; data: string } | undefined> {
    for (;;) {
      const events = this.#buffer.split("\n\n");
      while (events.length > 1) {
        const raw = events.shift()!;
        this.#buffer = events.join("\n\n");
        const lines = raw.split("\n").filter((line) => !line.startsWith(":"));
        if (lines.length === 0) continue;
        const event = lines.find((l) => l.startsWith("event:"))?.slice(6).trim() ?? "message";
        const data = lines.filter((l) => l.startsWith("data:")).map((l) => l.slice(5).trim())
          .join("\n");
        return { event, data };
      }
      const { done, value } = await this.#reader.read();
      if (done) return undefined;
      this.#buffer += value;
    }
  }
  cancel() {
    return this.#reader.cancel();
  }
}

async function openSse(t: HttpTransport) {
  const response = await t.handle(
    new Request(`${BASE}/sse`, { headers: { accept: "text/event-stream" } }),
  );
  assert.equal(response.status, 200);
  assert.match(response.headers.get("content-type") ?? "", /text\/event-stream/);
  const events = new Events(response);
  const first = await events.next();
  assert.equal(first?.event, "endpoint");
  assert.match(first!.data, /^\/messages\?sessionId=[0-9a-f-]+$/);
  const post = (body: unknown, type = "application/json") =>
    t.handle(
      new Request(`${BASE}${first!.data}`, {
        method: "POST",
        headers: { "content-type": type },
        body: typeof body === "string" ? body : JSON.stringify(body),
      }),
    );
  return { events, post, endpoint: first!.data };
}

test("2024-11-05 SSE: answers come on the stream, POSTs get 202", async () => {
  const t = transport();
  const { events, post } = await openSse(t);
  assert.equal((await post(INITIALIZE)).status, 202);
  const init = JSON.parse((await events.next())!.data);
  assert.equal(init.id, 0);
  assert.equal(init.result.protocolVersion, "2024-11-05");
  assert.equal((await post({ jsonrpc: "2.0", method: "notifications/initialized" })).status, 202);
  assert.equal((await post({ jsonrpc: "2.0", id: 1, method: "ping" })).status, 202);
  assert.deepEqual(JSON.parse((await events.next())!.data), { jsonrpc: "2.0", id: 1, result: {} });
  const bad = await post("{not json");
  assert.equal(bad.status, 400);
  assert.equal((await bad.json()).error.code, -32700);
  assert.equal((await post({}, "text/plain")).status, 415);
  await t.close();
  assert.equal(await events.next(), undefined, "closing the server ends the stream");
});

test("2024-11-05 SSE: unknown and missing sessions, wrong methods, and the end of the stream", async () => {
  const t = transport();
  const missing = await t.handle(
    new Request(`${BASE}/messages`, { method: "POST", body: "{}" }),
  );
  assert.equal(missing.status, 400);
  assert.match((await missing.json()).error.message, /no sessionId/);
  const unknown = await t.handle(
    new Request(`${BASE}/messages?sessionId=nope`, { method: "POST", body: "{}" }),
  );
  assert.equal(unknown.status, 404);
  assert.equal((await t.handle(new Request(`${BASE}/sse`, { method: "POST" }))).status, 405);
  const json = await t.handle(
    new Request(`${BASE}/sse`, { headers: { accept: "application/json" } }),
  );
  assert.equal(json.status, 406);
  const { events, post } = await openSse(t);
  assert.equal(t.sessions, 1);
  await post(INITIALIZE);
  await events.next();
  await post({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "wait" } });
  await events.cancel();
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(t.sessions, 0, "the session ended with its stream");
  assert.equal((await post({ jsonrpc: "2.0", id: 3, method: "ping" })).status, 404);
  await t.close();
});

test("SSE streams and WebSockets count against the session cap", async () => {
  const t = transport({ maxSessions: 1 });
  const { events } = await openSse(t);
  const second = await t.handle(new Request(`${BASE}/sse`));
  assert.equal(second.status, 503);
  const socket = await t.handle(
    new Request(`${BASE}/mcp`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": "mcp" },
    }),
    () => new Response(null),
  );
  assert.equal(socket.status, 503);
  await events.cancel();
  await t.close();
});

/** A WebSocket through a stand-in for the runtime: what the server sends, and how it closed. */
async function openSocket(t: HttpTransport, protocol = "mcp") {
  let events: SocketEvents | undefined;
  const sent: Record<string, unknown>[] = [];
  let closed: { code: number; reason: string } | undefined;
  let terminated = false;
  let wake = () => {};
  const response = await t.handle(
    new Request(`${BASE}/mcp`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": protocol },
    }),
    (chosen, given) => {
      assert.equal(chosen, "mcp");
      events = given;
      return new Response(null);
    },
  );
  if (!events) throw new Error(`not upgraded: ${response.status} ${await response.text()}`);
  events.open({
    send: (text) => {
      sent.push(JSON.parse(text));
      wake();
    },
    close: (code, reason) => {
      closed = { code, reason };
      queueMicrotask(() => events!.close(code, reason));
      wake();
    },
    terminate: () => {
      terminated = true;
      queueMicrotask(() => events!.close(1006, ""));
      wake();
    },
    buffered: 0,
  });
  const until = async (ready: () => boolean) => {
    while (!ready()) await new Promise<void>((resolve) => (wake = resolve));
  };
  return {
    response,
    send: (message: unknown) =>
      events!.message(typeof message === "string" ? message : JSON.stringify(message)),
    events: events!,
    sent,
    closed: () => closed,
    terminated: () => terminated,
    until,
  };
}

test("WebSocket: one message per frame, legacy session and modern requests on one socket", async () => {
  const t = transport();
  const ws = await openSocket(t);
  ws.send(INITIALIZE);
  await ws.until(() => ws.sent.length === 1);
  assert.equal((ws.sent[0].result as { protocolVersion: string }).protocolVersion, "2024-11-05");
  ws.send({
    jsonrpc: "2.0",
    id: "m",
    method: "tools/list",
    params: {
      _meta: {
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {},
      },
    },
  });
  await ws.until(() => ws.sent.length === 2);
  assert.equal((ws.sent[1].result as { resultType: string }).resultType, "complete");
  ws.send("{oops");
  await ws.until(() => ws.sent.length === 3);
  assert.equal((ws.sent[2].error as { code: number }).code, -32700);
  assert.equal(t.sessions, 1);
  await t.close();
  assert.equal(ws.closed()?.code, 1001, "the server says it is going away");
  assert.equal(t.sessions, 0);
});

test("WebSocket: binary and oversized frames drop the connection, and its place at once", async () => {
  const t = transport({ maxBodyBytes: 100 });
  const binary = await openSocket(t);
  binary.events!.message(new Uint8Array([1, 2, 3]));
  assert.equal(binary.terminated(), true);
  const big = await openSocket(t);
  big.send({ jsonrpc: "2.0", id: 1, method: "ping", params: { pad: "x".repeat(200) } });
  assert.equal(big.terminated(), true);
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(t.sessions, 0);
  await t.close();
});

test("WebSocket: no mcp subprotocol, or no runtime to upgrade, is a 400", async () => {
  const t = transport();
  const response = await t.handle(
    new Request(`${BASE}/mcp`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": "graphql-ws" },
    }),
    () => new Response(null),
  );
  assert.equal(response.status, 400);
  assert.match((await response.json()).error.message, /subprotocol "mcp"/);
  const plain = await t.handle(
    new Request(`${BASE}/mcp`, {
      headers: { upgrade: "websocket", "sec-websocket-protocol": "mcp" },
    }),
  );
  assert.equal(plain.status, 400);
  await t.close();
});

test("the client closing its socket stops what its session runs", async () => {
  const t = transport();
  const ws = await openSocket(t);
  ws.send(INITIALIZE);
  await ws.until(() => ws.sent.length === 1);
  ws.send({ jsonrpc: "2.0", id: 5, method: "tools/call", params: { name: "wait" } });
  await new Promise((resolve) => setTimeout(resolve, 10));
  ws.events!.close(1000, "bye");
  await new Promise((resolve) => setTimeout(resolve, 20));
  assert.equal(ws.sent.length, 1, "nothing is sent on a closed socket");
  // The runtime may keep a connection its client closed a while: its place stays taken.
  assert.equal(t.sessions, 1);
  await t.close();
});

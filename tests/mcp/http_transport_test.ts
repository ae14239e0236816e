/**
 * The HTTP transport's handler called in process with web-standard Requests: session limits,
 * cancellation, batches, questions no stream can carry, subscription caps, CORS and malformed
 * Host headers. (tests/e2e covers the same endpoint through a real socket and real clients.)
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import process from "node:process";
import { HttpGuard } from "../../mcp/http/guard.ts";
import { HttpTransport } from "../../mcp/http/transport.ts";
import type { Logger } from "../../mcp/wire/mod.ts";
import { defineResource } from "../../mcp/features/mod.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { defineTool } from "../../mcp/tool/mod.ts";
import { sseMessages } from "../helpers/http_server.ts";

const quiet: Logger = { log: () => {} };

const wait = defineTool({
  name: "wait",
  description: "waits until cancelled",
  input: { type: "object", properties: {} },
  run: (_args, ctx) =>
    new Promise((resolve) => ctx.onAbort(() => resolve(`stopped: ${ctx.abortReason()}`))),
});

const question = defineTool({
  name: "question",
  description: "asks the user",
  input: { type: "object", properties: {} },
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    });
    return answer.action;
  },
});

function transport(options: { maxSessions?: number } = {}) {
  const service = new McpService({
    info: { name: "t", version: "1" },
    tools: [wait, question],
    resources: [defineResource({
      uri: "test://watched",
      name: "watched",
      read: () => Promise.resolve("x"),
      watch: () => () => {},
    })],
    logger: quiet,
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  return new HttpTransport({
    service,
    logger: quiet,
    guard: new HttpGuard({ host: "127.0.0.1", origins: ["https://app.example"] }),
    maxBodyBytes: 1 << 20,
    ...options,
  });
}

const URL_ = "http://127.0.0.1:9/mcp";
const JSON_AND_SSE = "application/json, text/event-stream";

function post(
  t: HttpTransport,
  body: unknown,
  headers: Record<string, string> = {},
  signal?: AbortSignal,
): Promise<Response> {
  return t.handle(
    new Request(URL_, {
      method: "POST",
      headers: { "content-type": "application/json", accept: JSON_AND_SSE, ...headers },
      body: JSON.stringify(body),
      signal,
    }),
  );
}

async function open(t: HttpTransport, version = "2025-11-25", capabilities = {}) {
  const response = await post(t, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: { protocolVersion: version, capabilities, clientInfo: { name: "c", version: "1" } },
  });
  assert.equal(response.status, 200);
  await response.text();
  return response.headers.get("mcp-session-id")!;
}

test("past the session cap the least recently used idle session makes room", async () => {
  const t = transport({ maxSessions: 2 });
  const first = await open(t);
  const second = await open(t);
  await post(t, { jsonrpc: "2.0", id: 1, method: "ping" }, { "mcp-session-id": first });
  const third = await open(t);
  assert.ok(third);
  const ping = (id: string) =>
    post(t, { jsonrpc: "2.0", id: 2, method: "ping" }, {
      "mcp-session-id": id,
    });
  assert.equal((await ping(second)).status, 404, "the least recently used one ended");
  assert.equal((await ping(first)).status, 200);
  assert.equal((await ping(third)).status, 200);
  await t.close();
});

test("a cancelled legacy request ends its POST, and its id can be used again", async () => {
  const t = transport();
  const session = await open(t);
  const headers = { "mcp-session-id": session };
  const pending = post(t, {
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "wait", arguments: {} },
  }, headers);
  await new Promise((resolve) => setTimeout(resolve, 20));
  const cancel = await post(t, {
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: 5 },
  }, headers);
  assert.equal(cancel.status, 202);
  const ended = await pending;
  assert.deepEqual(sseMessages(await ended.text()), [], "no reply for a cancelled request");
  const again = await post(t, { jsonrpc: "2.0", id: 5, method: "ping" }, headers);
  assert.equal(again.status, 200);
  await t.close();
});

test("a question no stream can carry fails at once instead of waiting for its timeout", async () => {
  const t = transport();
  const session = await open(t, "2025-11-25", { elicitation: {} });
  const started = Date.now();
  const response = await post(t, {
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "question", arguments: {} },
  }, { "mcp-session-id": session, accept: "application/json" });
  const reply = await response.json();
  assert.equal(reply.result.isError, true);
  assert.match(reply.result.content[0].text, /no stream to the client is open/);
  assert.ok(Date.now() - started < 2000);
  await t.close();
});

test("batches work in a 2025-03-26 session and are refused with 400 in later ones", async () => {
  const t = transport();
  const old = await open(t, "2025-03-26");
  const batch = [
    { jsonrpc: "2.0", id: 1, method: "ping" },
    { jsonrpc: "2.0", id: 2, method: "tools/list" },
  ];
  const answered = await post(t, batch, { "mcp-session-id": old });
  assert.equal(answered.status, 200);
  const replies = await answered.json();
  assert.deepEqual(replies.map((r: { id: number }) => r.id).sort(), [1, 2]);
  const recent = await open(t, "2025-11-25");
  const refused = await post(t, batch, { "mcp-session-id": recent });
  assert.equal(refused.status, 400);
  assert.match((await refused.json()).error.message, /only allowed when 2025-03-26/);
  await t.close();
});

const MODERN = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const modernHeaders = {
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "subscriptions/listen",
};

test("subscriptions/listen needs a stream (406) and names at most 100 resources", async () => {
  const t = transport();
  const listen = (uris: string[], accept = JSON_AND_SSE) =>
    post(t, {
      jsonrpc: "2.0",
      id: 1,
      method: "subscriptions/listen",
      params: { _meta: MODERN, notifications: { resourceSubscriptions: uris } },
    }, { ...modernHeaders, accept });
  assert.equal((await listen(["test://watched"], "application/json")).status, 406);
  const many = Array.from({ length: 101 }, (_, i) => `test://watched?${i}`);
  const refused = await listen(many);
  const text = await refused.text();
  assert.match(text, /at most 100 resources/);
  await t.close();
});

test("CORS: an allowed origin gets its preflight answered and may read replies", async () => {
  const t = transport();
  const preflight = await t.handle(
    new Request(URL_, {
      method: "OPTIONS",
      headers: {
        origin: "https://app.example",
        "access-control-request-method": "POST",
        "access-control-request-headers": "content-type, mcp-session-id, x-other",
      },
    }),
  );
  assert.equal(preflight.status, 204);
  assert.equal(preflight.headers.get("access-control-allow-origin"), "https://app.example");
  assert.equal(
    preflight.headers.get("access-control-allow-headers"),
    "content-type, mcp-session-id",
  );
  const reply = await post(t, {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  }, { origin: "https://app.example" });
  assert.equal(reply.headers.get("access-control-allow-origin"), "https://app.example");
  assert.equal(reply.headers.get("access-control-expose-headers"), "mcp-session-id");
  const foreign = await post(t, { jsonrpc: "2.0", id: 1, method: "ping" }, {
    origin: "https://evil.example",
  });
  assert.equal(foreign.status, 403);
  assert.equal(foreign.headers.get("access-control-allow-origin"), null);
  await t.close();
});

test("malformed Host headers are refused with 403, never an internal error", async () => {
  const t = transport();
  for (const host of ["[::1].evil.com", "evil.com@localhost", "localhost:80:evil", "localhost."]) {
    const response = await t.handle(
      new Request(URL_, {
        method: "POST",
        headers: { host, "content-type": "application/json", accept: JSON_AND_SSE },
        body: "{}",
      }),
    );
    assert.equal(response.status, 403, host);
  }
  await t.close();
});

/**
 * Replies a client could mistake for each other keep their order: an error for a later line (a
 * parse error has id null) never comes before the reply to an earlier `initialize`, nor before
 * requests read ahead of it have started.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import { McpConnection } from "../../mcp/server/connection.ts";
import { serveStdio, StdoutWriter } from "../../mcp/stdio/mod.ts";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import type { Message } from "../helpers/raw_client.ts";

const initialize = (id: number) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: initializeParams("2025-11-25"),
  });

test("errors for lines after initialize are sent after its reply", async () => {
  const h = harness(fixtures);
  h.line(initialize(1));
  h.line("{not json");
  h.line({ jsonrpc: "2.0", id: 1.5, method: "ping" });
  h.line([]);
  h.line({ jsonrpc: "2.0", id: 2, method: "ping" });
  await h.responseTo(2);
  const ids = h.sent.map((m) => (Array.isArray(m) ? "batch" : m.id));
  assert.deepEqual(ids, [1, null, null, null, 2]);
  assert.equal((h.sent[0] as Message).result?.protocolVersion, "2025-11-25");
  assert.equal((h.sent[1] as Message).error?.code, -32700);
});

test("after the handshake, a parse error is answered at once", async () => {
  const h = harness(fixtures);
  await h.request(1, "initialize", initializeParams("2025-11-25"));
  h.line("{not json");
  assert.equal((h.sent.at(-1) as Message).error?.code, -32700);
});

/** Runs serveStdio over in-memory pipes; returns the parsed output lines as they come. */
function stdio(maxLineLength = 1 << 20) {
  const input = new PassThrough();
  const output = new PassThrough();
  const out: Message[] = [];
  let text = "";
  output.setEncoding("utf8");
  output.on("data", (chunk: string) => {
    text += chunk;
    const lines = text.split("\n");
    text = lines.pop()!;
    for (const line of lines) out.push(JSON.parse(line));
  });
  const writer = new StdoutWriter(output, () => {});
  const connection = new McpConnection({
    info: { name: "toolhost", version: "9.9.9" },
    tools: fixtures,
    logger: { log: () => {} },
    send: (message) => writer.send(message),
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  const served = serveStdio(connection, writer, input, maxLineLength);
  return { input, out, served, writer };
}

test("over stdio, initialize's reply is the first line even with bad lines in the same chunk", async () => {
  const s = stdio(300);
  const oversized = JSON.stringify({ jsonrpc: "2.0", id: 7, method: "x".repeat(400) });
  s.input.end(
    [initialize(1), "{not json", oversized, '{"jsonrpc":"2.0","id":2,"method":"ping"}']
      .join("\n") + "\n",
  );
  await s.served;
  await s.writer.drained();
  assert.deepEqual(s.out.map((m) => m.id), [1, null, 7, 2]);
  assert.equal(s.out[1].error?.code, -32700);
  assert.equal(s.out[2].error?.code, -32600);
});

test("a bad line behind queued requests is answered once they start, not before", async () => {
  const s = stdio();
  const lines = [initialize(1)];
  // 256 calls fill every slot; call 300 waits in the queue, and the bad line behind it.
  for (let id = 2; id <= 257; id++) {
    lines.push(JSON.stringify({
      jsonrpc: "2.0",
      id,
      method: "tools/call",
      params: { name: "slow", arguments: { ms: 150, step_ms: 150 } },
    }));
  }
  lines.push(JSON.stringify({
    jsonrpc: "2.0",
    id: 300,
    method: "tools/call",
    params: { name: "echo", arguments: { text: "queued" } },
  }));
  lines.push("{not json");
  s.input.write(lines.join("\n") + "\n");
  for (let i = 0; i < 500 && !s.out.some((m) => m.id === null); i++) await tick(10);
  s.input.end();
  await s.served;
  await s.writer.drained();
  const at = (id: number | null) => s.out.findIndex((m) => m.id === id);
  assert.ok(at(null) > 0, "the parse error was answered");
  // Its turn came only when call 300 started, which needed slots freed by slow calls' replies.
  assert.ok(at(2) < at(null), `order: ${JSON.stringify(s.out.map((m) => m.id).slice(0, 5))}`);
  assert.equal(s.out[0].id, 1);
});

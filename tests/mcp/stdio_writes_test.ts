/** The stdio writer: the replies ready once a chunk of input is handled share one write. */
import assert from "node:assert/strict";
import process from "node:process";
import { PassThrough, Writable } from "node:stream";
import { test } from "node:test";
import { McpConnection } from "../../mcp/server/connection.ts";
import { serveStdio, StdoutWriter } from "../../mcp/stdio/mod.ts";
import fixtures from "../fixtures/tools.ts";
import { initializeParams } from "../helpers/in_process.ts";

test("pings read in one chunk are answered in one write, in order", async () => {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  });
  const writer = new StdoutWriter(output, () => {});
  const connection = new McpConnection({
    info: { name: "toolhost", version: "9.9.9" },
    tools: fixtures,
    logger: { log: () => {} },
    send: (message) => writer.send(message),
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  const input = new PassThrough();
  const served = serveStdio(connection, writer, input, 1 << 20);
  input.write(
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: initializeParams("2025-11-25"),
    }) + "\n",
  );
  await writer.drained();
  await new Promise((resolve) => setTimeout(resolve, 20));
  const before = writes.length;
  const pings = [1, 2, 3, 4].map((id) => JSON.stringify({ jsonrpc: "2.0", id, method: "ping" }));
  input.end(pings.join("\n") + "\n");
  await served;
  await writer.drained();
  const after = writes.slice(before);
  assert.equal(after.length, 1, `writes: ${JSON.stringify(after)}`);
  assert.deepEqual(after[0].trimEnd().split("\n").map((line) => JSON.parse(line).id), [1, 2, 3, 4]);
});

test("writeQueued() writes what is queued at once, in one call, and only once", async () => {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  });
  const writer = new StdoutWriter(output, () => {});
  writer.send({ jsonrpc: "2.0", id: 1, result: {} });
  writer.send({ jsonrpc: "2.0", id: 2, result: {} });
  writer.writeQueued();
  // Synchronously: no turn of the event loop has passed.
  assert.equal(writes.length, 1);
  assert.equal(
    writes[0],
    '{"jsonrpc":"2.0","id":1,"result":{}}\n{"jsonrpc":"2.0","id":2,"result":{}}\n',
  );
  await writer.drained();
  await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(writes.length, 1, "the pump set for later found nothing left to write");
});

test("writeQueued() leaves more than a pipe's buffer to the write after this turn", async () => {
  const writes: string[] = [];
  const output = new Writable({
    write(chunk, _encoding, done) {
      writes.push(String(chunk));
      done();
    },
  });
  const writer = new StdoutWriter(output, () => {});
  const text = "x".repeat(100_000);
  writer.send({ jsonrpc: "2.0", id: 1, result: { text } });
  writer.writeQueued();
  assert.equal(writes.length, 0);
  await writer.drained();
  assert.equal(writes.length, 1);
  assert.equal(JSON.parse(writes[0]).result.text, text);
});

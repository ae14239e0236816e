/** Dispatch rules shared by both eras: errors, notifications, ids, batches. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

test("an unknown method is -32601 naming the method", async () => {
  const h = harness(fixtures);
  await h.request(1, "initialize", initializeParams("2025-11-25"));
  const reply = await h.request(2, "tools/frobnicate");
  assert.equal(reply.error?.code, -32601);
  assert.match(reply.error!.message, /tools\/frobnicate/);
});

test("malformed lines get -32700 with id null and the server keeps serving", async () => {
  const h = harness(fixtures);
  h.line("{not json");
  const reply = await h.responseTo(null);
  assert.equal(reply.error?.code, -32700);
  const ping = await h.request(1, "ping");
  assert.deepEqual(ping.result, {});
});

test("notifications are never answered, known, unknown or malformed", async () => {
  const h = harness(fixtures);
  await h.request(1, "initialize", initializeParams("2025-11-25"));
  const before = h.sent.length;
  h.line({ jsonrpc: "2.0", method: "notifications/initialized" });
  h.line({ jsonrpc: "2.0", method: "notifications/whatever", params: { a: 1 } });
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 999 } });
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: null } });
  h.line({ jsonrpc: "2.0", method: "tools/list" });
  // Malformed, but shaped like notifications (a method, no id): still never answered.
  h.line({ jsonrpc: "2.0", method: "notifications/initialized", params: [] });
  h.line({ jsonrpc: "2.0", method: "notifications/initialized", params: "x" });
  h.line({ method: "notifications/initialized" });
  h.line({ jsonrpc: "1.0", method: "notifications/cancelled", params: { requestId: 1 } });
  await tick(50);
  assert.equal(h.sent.length, before);
  assert.equal(h.logs.filter((l) => /ignored a malformed notification/.test(l.message)).length, 4);
});

test("ids must be strings or integers", async () => {
  const h = harness(fixtures);
  h.line({ jsonrpc: "2.0", id: 1.5, method: "ping" });
  const reply = await h.responseTo(null);
  assert.equal(reply.error?.code, -32600);
  assert.match(reply.error!.message, /string or an integer/);
  assert.deepEqual((await h.request(2 ** 40, "ping")).result, {});
});

test("names of JavaScript object properties are not methods", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  for (const method of ["constructor", "toString", "__proto__", "hasOwnProperty"]) {
    const reply = await h.request(method, method);
    assert.equal(reply.error?.code, -32601, method);
  }
});

test("ping belongs to the legacy era: a 2026-07-28 ping is -32601", async () => {
  const h = harness(fixtures);
  const reply = await h.request(1, "ping", modern());
  assert.equal(reply.error?.code, -32601);
  assert.match(reply.error!.message, /ping is not part of MCP 2026-07-28/);
});

test("an unsupported version is -32022 even for a method we do not have", async () => {
  const h = harness(fixtures);
  const reply = await h.request(
    1,
    "no/such",
    modern({}, {
      "io.modelcontextprotocol/protocolVersion": "1999-01-01",
    }),
  );
  assert.equal(reply.error?.code, -32022);
  const known = await h.request(2, "no/such", modern());
  assert.equal(known.error?.code, -32601);
});

test("blank lines are ignored", async () => {
  const h = harness(fixtures);
  h.line("");
  h.line("   ");
  await tick();
  assert.equal(h.sent.length, 0);
});

test("a request reusing the id of one still in flight is refused; the first still completes", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line({
    jsonrpc: "2.0",
    id: 5,
    method: "tools/call",
    params: { name: "slow", arguments: { ms: 150 } },
  });
  await tick();
  h.line({ jsonrpc: "2.0", id: 5, method: "ping" });
  const refused = await h.responseTo(5);
  assert.equal(refused.error?.code, -32600);
  assert.match(refused.error!.message, /already used/);
  await tick(300);
  const replies = h.sent.filter((m) => !Array.isArray(m) && m.id === 5);
  assert.equal(replies.length, 2);
  assert.match(JSON.stringify(replies[1]), /slept 150 ms/);
});

test("string and numeric ids are distinct and echoed with their type", async () => {
  const h = harness(fixtures);
  const numeric = await h.request(1, "ping");
  const text = await h.request("1", "ping");
  assert.equal(numeric.id, 1);
  assert.equal(text.id, "1");
});

test("requests run concurrently: a slow call does not hold up ping or another call", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line({
    jsonrpc: "2.0",
    id: "slow",
    method: "tools/call",
    params: { name: "slow", arguments: { ms: 400 } },
  });
  await h.request("fast", "ping");
  await h.request("echo", "tools/call", { name: "echo", arguments: { text: "quick" } });
  const order = h.sent.filter((m) => !Array.isArray(m) && m.id !== 0).map((m) =>
    (m as { id: unknown }).id
  );
  assert.deepEqual(order, ["fast", "echo"], "the slow call has not answered yet");
  await h.responseTo("slow");
});

test("batches are refused unless 2025-03-26 was negotiated", async () => {
  for (const version of [undefined, "2024-11-05", "2025-06-18", "2025-11-25"]) {
    const h = harness(fixtures);
    if (version) await h.request(0, "initialize", initializeParams(version));
    h.line([{ jsonrpc: "2.0", id: 1, method: "ping" }]);
    const reply = await h.responseTo(null);
    assert.equal(reply.error?.code, -32600, `version ${version}`);
    assert.match(reply.error!.message, /2025-03-26/);
  }
});

test("with 2025-03-26, a batch gets one array reply; notifications in it get nothing", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-03-26"));
  h.line([
    { jsonrpc: "2.0", id: "a", method: "ping" },
    { jsonrpc: "2.0", method: "notifications/initialized" },
    {
      jsonrpc: "2.0",
      id: "b",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "in a batch" } },
    },
    { jsonrpc: "2.0", id: "c", method: "no/such" },
    42,
  ]);
  await tick(100);
  const batch = h.sent.find(Array.isArray)!;
  assert.ok(batch, "a batch reply was sent");
  const byId = new Map(batch.map((m) => [m.id, m]));
  assert.deepEqual(byId.get("a")?.result, {});
  assert.deepEqual(byId.get("b")?.result?.content, [{ type: "text", text: "in a batch" }]);
  assert.equal(byId.get("c")?.error?.code, -32601);
  assert.equal(byId.get(null)?.error?.code, -32600);
  assert.equal(batch.length, 4);
});

test("with 2025-03-26: an empty batch is -32600, initialize in a batch is refused, all-notification batches get no reply", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-03-26"));
  h.line([]);
  assert.equal((await h.responseTo(null)).error?.code, -32600);
  h.line([{ jsonrpc: "2.0", id: 9, method: "initialize", params: initializeParams("2025-03-26") }]);
  await tick(50);
  const batch = h.sent.find(Array.isArray)!;
  assert.equal(batch[0].error?.code, -32600);
  const count = h.sent.length;
  h.line([{ jsonrpc: "2.0", method: "notifications/initialized" }]);
  await tick(50);
  assert.equal(h.sent.length, count);
});

test("a modern request needs no initialize", async () => {
  const h = harness(fixtures);
  const reply = await h.request(1, "tools/list", modern());
  assert.ok(Array.isArray(reply.result?.tools));
});

test("in a batch, only the item JSON cannot encode becomes -32603", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-03-26"));
  h.line([
    { jsonrpc: "2.0", id: "fine", method: "ping" },
    {
      jsonrpc: "2.0",
      id: "bad",
      method: "tools/call",
      params: { name: "unencodable", arguments: {} },
    },
  ]);
  await tick(100);
  const batch = h.sent.find(Array.isArray)!;
  const byId = new Map(batch.map((m) => [m.id, m]));
  assert.deepEqual(byId.get("fine")?.result, {});
  assert.equal(byId.get("bad")?.error?.code, -32603);
});

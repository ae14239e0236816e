/** Request-scoped side channels: cancellation, progress and log notifications. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

const slowCall = (id: string | number, ms: number, meta: Record<string, unknown> = {}) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: { name: "slow", arguments: { ms, step_ms: 50 }, _meta: meta },
});

test("notifications/cancelled aborts the request and no response is ever sent for it", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line(slowCall("c", 5000));
  await tick(80);
  assert.equal(h.server.inFlight, 1);
  h.line({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "c", reason: "user" },
  });
  await tick(150);
  assert.equal(h.server.inFlight, 0, "the handler saw the abort and finished");
  assert.ok(!h.sent.some((m) => !Array.isArray(m) && m.id === "c"));
  assert.ok(h.logs.some((l) => /cancelled by the client: user/.test(l.message)));
});

test("cancelling an unknown or finished request is ignored", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  await h.request(1, "ping");
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "nope" } });
  await tick();
  assert.deepEqual((await h.request(2, "ping")).result, {});
});

test("with a progressToken, progress notifications carry it and strictly increase; they stop at the response", async () => {
  const h = harness(fixtures);
  h.line({
    ...slowCall(1, 300),
    params: modern({ name: "slow", arguments: { ms: 300, step_ms: 50 } }, { progressToken: "tok" }),
  });
  await h.responseTo(1);
  const progress = h.notifications("notifications/progress");
  assert.ok(progress.length >= 4, `got ${progress.length} progress notifications`);
  const values = progress.map((m) => m.params!.progress as number);
  for (let i = 1; i < values.length; i++) assert.ok(values[i] > values[i - 1]);
  assert.ok(progress.every((m) => m.params!.progressToken === "tok" && m.params!.total === 300));
  const responseIndex = h.sent.findIndex((m) => !Array.isArray(m) && m.id === 1);
  const lastProgress = h.sent.findLastIndex((m) =>
    !Array.isArray(m) && m.method === "notifications/progress"
  );
  assert.ok(lastProgress < responseIndex, "no progress after the response");
});

test("without a progressToken there are no progress notifications", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line(slowCall(1, 200));
  await h.responseTo(1);
  assert.equal(h.notifications("notifications/progress").length, 0);
});

test("legacy logging: nothing until logging/setLevel, then only messages at or above the level", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  await h.request(1, "tools/call", { name: "logs", arguments: {} });
  assert.equal(h.notifications("notifications/message").length, 0);
  assert.deepEqual((await h.request(2, "logging/setLevel", { level: "error" })).result, {});
  await h.request(3, "tools/call", { name: "logs", arguments: {} });
  const levels = h.notifications("notifications/message").map((m) => m.params!.level);
  assert.deepEqual(levels, ["error", "critical", "alert", "emergency"]);
  const bad = await h.request(4, "logging/setLevel", { level: "chatty" });
  assert.equal(bad.error?.code, -32602);
});

test("modern logging is per request: only requests that ask get notifications/message", async () => {
  const h = harness(fixtures);
  await h.request(1, "tools/call", modern({ name: "logs", arguments: {} }));
  assert.equal(h.notifications("notifications/message").length, 0);
  await h.request(
    2,
    "tools/call",
    modern({ name: "logs", arguments: {} }, {
      "io.modelcontextprotocol/logLevel": "warning",
    }),
  );
  const sent = h.notifications("notifications/message");
  assert.deepEqual(sent.map((m) => m.params!.level), [
    "warning",
    "error",
    "critical",
    "alert",
    "emergency",
  ]);
  assert.ok(sent.every((m) => m.params!.logger === "logs" && typeof m.params!.data === "string"));
});

test("shutdown aborts work in flight but still answers it", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line(slowCall(1, 10_000));
  await tick(60);
  await h.server.shutdown(1000);
  const reply = await h.responseTo(1);
  assert.match(JSON.stringify(reply.result), /aborted \(shutdown\)/);
  const late = await h.request(2, "ping");
  assert.equal(late.error?.code, -32603, "no new work once shutting down");
});

test("a cancelled id is free at once, even while its tool is still stopping", async () => {
  const h = harness(fixtures);
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line(slowCall("again", 5000));
  await tick(60);
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "again" } });
  const reply = await h.request("again", "ping");
  assert.deepEqual(reply.result, {});
  await tick(150);
  assert.equal(h.sent.filter((m) => !Array.isArray(m) && m.id === "again").length, 1);
});

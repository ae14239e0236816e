/**
 * A request whose work needs no wait is answered in the turn its line arrived in (no promise
 * job between the line and its reply), with the same reply and the same hooks as any other; one
 * that waits is answered when its work ends.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool, defineToolHook, ToolError } from "../../mcp/tool/mod.ts";
import { harness, initializeParams } from "../helpers/in_process.ts";
import type { Message } from "../helpers/raw_client.ts";

// Plain values where a promise is typed: what a tool written without async returns.
const plain = defineTool({
  name: "plain",
  description: "Returns its text at once.",
  input: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
  run: ((args: { text: string }) => `got ${args.text}`) as never,
});

const refuses = defineTool({
  name: "refuses",
  description: "Throws a ToolError at once.",
  input: { type: "object", properties: {} },
  run: (() => {
    throw new ToolError("not today");
  }) as never,
});

const waits = defineTool({
  name: "waits",
  description: "Answers after a timer.",
  input: { type: "object", properties: {} },
  run: () => new Promise((resolve) => setTimeout(() => resolve("waited"), 5)),
});

function session() {
  const finished: string[] = [];
  const hooks = defineToolHook({
    name: "records",
    phase: "keep",
    finished(call) {
      finished.push(`${call.tool.name}:${call.outcome}`);
    },
  });
  const h = harness([plain, refuses, waits], undefined, undefined, { hooks: [hooks] });
  const call = (id: number, name: string, args: Record<string, unknown> = {}) =>
    h.line({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });
  const sentTo = (id: number) => h.sent.find((m): m is Message => !Array.isArray(m) && m.id === id);
  return { h, finished, call, sentTo };
}

test("ping and a tool that returns at once are answered in the same turn", async () => {
  const { h, finished, call, sentTo } = session();
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line({ jsonrpc: "2.0", id: 1, method: "ping" });
  assert.deepEqual(sentTo(1)?.result, {});
  // The first call prepares the catalog and compiles the validator: it may wait.
  await h.request(2, "tools/call", { name: "plain", arguments: { text: "a" } });
  call(3, "plain", { text: "b" });
  assert.deepEqual(sentTo(3)?.result, { content: [{ type: "text", text: "got b" }] });
  call(4, "plain", {});
  assert.equal(sentTo(4)?.result?.isError, true, "invalid arguments: an error result at once");
  assert.deepEqual(finished, ["plain:ok", "plain:ok"]);
});

test("a tool that throws at once is an error result in the same turn, hooks included", async () => {
  const { h, finished, call, sentTo } = session();
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  await h.request(1, "tools/call", { name: "refuses", arguments: {} });
  call(2, "refuses");
  assert.deepEqual(sentTo(2)?.result, {
    content: [{ type: "text", text: "not today" }],
    isError: true,
  });
  assert.deepEqual(finished, ["refuses:error", "refuses:error"]);
});

test("a tool that waits is answered when it ends, not in the turn of its line", async () => {
  const { h, call, sentTo } = session();
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  await h.request(1, "tools/call", { name: "waits", arguments: {} });
  call(2, "waits");
  assert.equal(sentTo(2), undefined);
  assert.deepEqual((await h.responseTo(2)).result, { content: [{ type: "text", text: "waited" }] });
});

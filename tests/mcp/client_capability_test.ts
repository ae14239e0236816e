/**
 * 2026-07-28 requests that need what the client did not declare, or that belong to the legacy
 * era: a sampling call without `sampling` fails -32021 naming it, and `initialize` with modern
 * `_meta` is a method this version does not have. A question may carry the key it is asked by.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../../mcp/tool/mod.ts";
import { harness } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

const summarize = defineTool({
  name: "summarize",
  description: "asks the client's model",
  input: { type: "object", properties: {} },
  async run(_args, ctx) {
    const answer = await ctx.sample({
      messages: [{ role: "user", content: { type: "text", text: "Summarize." } }],
      maxTokens: 50,
    });
    return JSON.stringify(answer.content);
  },
});

const named = defineTool({
  name: "named",
  description: "asks under a key of its own",
  input: { type: "object", properties: {} },
  async run(_args, ctx) {
    const answer = await ctx.elicit({
      message: "Name?",
      requestedSchema: { type: "object", properties: { name: { type: "string" } } },
    }, { key: "user_name" });
    return `hello ${answer.content?.name}`;
  },
});

test("2026-07-28: a tool that samples, called without the sampling capability, fails -32021", async () => {
  const h = harness([summarize]);
  const reply = await h.request(1, "tools/call", modern({ name: "summarize", arguments: {} }));
  assert.equal(reply.error?.code, -32021);
  assert.deepEqual((reply.error?.data as Record<string, unknown>).requiredCapabilities, {
    sampling: {},
  });
});

test("2026-07-28: initialize is not a method of the modern era", async () => {
  const h = harness([]);
  const reply = await h.request(1, "initialize", {
    ...modern({}),
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "c", version: "1" },
  });
  assert.equal(reply.error?.code, -32601);
  assert.match(reply.error!.message, /initialize is not part of MCP 2026-07-28/);
});

test("2026-07-28: a question asked under a key of the tool's choosing is answered by it", async () => {
  const h = harness([named]);
  const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  const first = await h.request(1, "tools/call", modern({ name: "named", arguments: {} }, caps));
  const pending = first.result as { inputRequests: Record<string, unknown>; requestState: string };
  assert.deepEqual(Object.keys(pending.inputRequests), ["user_name"]);
  const second = await h.request(
    2,
    "tools/call",
    modern({
      name: "named",
      arguments: {},
      requestState: pending.requestState,
      inputResponses: { user_name: { action: "accept", content: { name: "Ann" } } },
    }, caps),
  );
  assert.deepEqual((second.result as { content: unknown }).content, [
    { type: "text", text: "hello Ann" },
  ]);
});

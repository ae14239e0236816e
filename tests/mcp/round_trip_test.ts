/**
 * Questions to the client beyond forms: its model (sampling) and its roots, one at a time or
 * several in one round, from tools and from prompts. 2026-07-28 clients get them in an
 * input_required result; legacy clients are sent each request.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { definePrompt } from "../../mcp/features/mod.ts";
import { defineTool } from "../../mcp/tool/mod.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const SAMPLE = {
  messages: [{ role: "user" as const, content: { type: "text" as const, text: "Capital?" } }],
  maxTokens: 20,
};
const MODEL_ANSWER = {
  role: "assistant",
  content: { type: "text", text: "Paris" },
  model: "m",
  stopReason: "endTurn",
};
const ALL = {
  "io.modelcontextprotocol/clientCapabilities": { sampling: {}, roots: {}, elicitation: {} },
};

const capital = defineTool({
  name: "capital",
  description: "asks the client's model",
  input: { type: "object", properties: {} },
  async run(_args, ctx) {
    const answer = await ctx.sample(SAMPLE, { key: "capital" });
    return `model says ${(answer.content as { text: string }).text}`;
  },
});

const everything = defineTool({
  name: "everything",
  description: "asks three things at once",
  input: { type: "object", properties: {} },
  async run(_args, ctx) {
    const answers = await ctx.ask({
      name: {
        elicit: {
          message: "Name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        },
      },
      capital: { sample: SAMPLE },
      roots: { roots: true },
    });
    return JSON.stringify(answers);
  },
});

type Pending = {
  resultType: string;
  inputRequests: Record<string, { method: string; params: Record<string, unknown> }>;
  requestState: string;
};

test("2026-07-28: sampling is asked in an input_required result and the retry's answer is used", async () => {
  const h = harness([capital]);
  const first = await h.request(1, "tools/call", modern({ name: "capital", arguments: {} }, ALL));
  const pending = first.result as unknown as Pending;
  assert.equal(pending.resultType, "input_required");
  assert.deepEqual(pending.inputRequests, {
    capital: { method: "sampling/createMessage", params: SAMPLE },
  });
  const second = await h.request(
    2,
    "tools/call",
    modern({
      name: "capital",
      arguments: {},
      requestState: pending.requestState,
      inputResponses: { capital: MODEL_ANSWER },
    }, ALL),
  );
  assert.deepEqual((second.result as { content: unknown }).content, [
    { type: "text", text: "model says Paris" },
  ]);
});

test("2026-07-28: several questions go out in one round, and all their answers come back", async () => {
  const h = harness([everything]);
  const first = await h.request(
    1,
    "tools/call",
    modern({ name: "everything", arguments: {} }, ALL),
  );
  const pending = first.result as unknown as Pending;
  assert.deepEqual(
    Object.entries(pending.inputRequests).map(([key, r]) => `${key}:${r.method}`).sort(),
    ["capital:sampling/createMessage", "name:elicitation/create", "roots:roots/list"],
  );
  const second = await h.request(
    2,
    "tools/call",
    modern({
      name: "everything",
      arguments: {},
      requestState: pending.requestState,
      inputResponses: {
        name: { action: "accept", content: { name: "Ann" } },
        capital: MODEL_ANSWER,
        roots: { roots: [{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }] },
      },
    }, ALL),
  );
  const text = (second.result as { content: { text: string }[] }).content[0].text;
  assert.deepEqual(JSON.parse(text), {
    name: { action: "accept", content: { name: "Ann" } },
    capital: MODEL_ANSWER,
    roots: [{ uri: "file:///work", name: "work" }, { uri: "file:///tmp" }],
  });
});

test("2026-07-28: an answer of the wrong shape is not used: the question comes again", async () => {
  const h = harness([capital]);
  const first = (await h.request(1, "tools/call", modern({ name: "capital", arguments: {} }, ALL)))
    .result as unknown as Pending;
  const again = (await h.request(
    2,
    "tools/call",
    modern({
      name: "capital",
      arguments: {},
      requestState: first.requestState,
      inputResponses: { capital: { text: "Paris" } },
    }, ALL),
  )).result as unknown as Pending;
  assert.equal(again.resultType, "input_required");
  assert.deepEqual(Object.keys(again.inputRequests), ["capital"]);
});

test("legacy: sampling and roots are requests to the client, answered in turn", async () => {
  const h = harness([everything]);
  await h.request(
    0,
    "initialize",
    {
      ...initializeParams("2025-11-25"),
      capabilities: ALL["io.modelcontextprotocol/clientCapabilities"],
    },
  );
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "everything", arguments: {} },
  });
  const answers: Record<string, unknown> = {
    "elicitation/create": { action: "accept", content: { name: "Bo" } },
    "sampling/createMessage": MODEL_ANSWER,
    "roots/list": { roots: [{ uri: "file:///home" }] },
  };
  const asked: string[] = [];
  for (let i = 0; i < 3; i++) {
    let request: Message | undefined;
    for (let wait = 0; wait < 100 && !request; wait++) {
      await tick(5);
      request = h.sent.find((m): m is Message =>
        !Array.isArray(m) && typeof m.method === "string" && m.id !== undefined &&
        !asked.includes(String(m.id))
      );
    }
    assert.ok(request, `request ${i + 1} was sent`);
    asked.push(String(request.id));
    h.line({ jsonrpc: "2.0", id: request.id, result: answers[request.method as string] });
  }
  const reply = await h.responseTo(1);
  const text = (reply.result as { content: { text: string }[] }).content[0].text;
  assert.deepEqual(JSON.parse(text).roots, [{ uri: "file:///home" }]);
  assert.equal(JSON.parse(text).capital.model, "m");
});

test("2026-07-28: a prompt may ask first, as a tool may", async () => {
  const asking = definePrompt({
    name: "asking",
    description: "asks for a topic",
    async get(_args, ctx) {
      const answer = await ctx.elicit({
        message: "Topic?",
        requestedSchema: { type: "object", properties: { topic: { type: "string" } } },
      }, { key: "topic" });
      return `Write about ${answer.content?.topic}.`;
    },
  });
  const h = harness([], undefined, undefined, { prompts: [asking] });
  const first = (await h.request(1, "prompts/get", modern({ name: "asking" }, ALL)))
    .result as unknown as Pending;
  assert.equal(first.resultType, "input_required");
  assert.deepEqual(Object.keys(first.inputRequests), ["topic"]);
  const second = await h.request(
    2,
    "prompts/get",
    modern({
      name: "asking",
      requestState: first.requestState,
      inputResponses: { topic: { action: "accept", content: { topic: "rivers" } } },
    }, ALL),
  );
  const messages = (second.result as { messages: { content: { text: string } }[] }).messages;
  assert.equal(messages[0].content.text, "Write about rivers.");
});

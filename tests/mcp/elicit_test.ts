/**
 * The rules of asking the user, whatever the tool: which clients can be asked, which answers a
 * 2026-07-28 retry may bring, and that an answer is checked against the form before a tool sees it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool, type ToolContext } from "../../mcp/tool/mod.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

/** Asks for a name, then for an age, and reports both. */
const twoQuestions = defineTool({
  name: "two_questions",
  description: "asks twice",
  input: { type: "object", properties: {}, additionalProperties: false },
  async run(_args, ctx) {
    const name = await ctx.elicit({
      message: "Your name?",
      requestedSchema: {
        type: "object",
        properties: { name: { type: "string", maxLength: 10 } },
        required: ["name"],
      },
    });
    if (name.action !== "accept") return `no name (${name.action}, ${JSON.stringify(name)})`;
    const age = await ctx.elicit({
      message: "Your age?",
      requestedSchema: {
        type: "object",
        properties: { age: { type: "integer", minimum: 0 } },
        required: ["age"],
      },
    });
    return `${name.content?.name} is ${age.content?.age}`;
  },
});

const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
const call = (extra: Record<string, unknown> = {}) =>
  modern({ name: "two_questions", arguments: {}, ...extra }, caps);

type Pending = { resultType: string; requestState: string; inputRequests: Record<string, Message> };

const accept = (content: Record<string, unknown>) => ({ action: "accept", content });

test("2026-07-28: only the question just asked can be answered, and an answer is never replaced", async () => {
  const h = harness([twoQuestions]);
  const first = (await h.request(1, "tools/call", call())).result as unknown as Pending;
  assert.deepEqual(Object.keys(first.inputRequests), ["ask1"]);

  // ask2 was not asked yet: its answer is ignored, so the tool asks it properly.
  const second = (await h.request(
    2,
    "tools/call",
    call({
      requestState: first.requestState,
      inputResponses: { ask1: accept({ name: "Ann" }), ask2: accept({ age: 99 }) },
    }),
  )).result as unknown as Pending;
  assert.equal(second.resultType, "input_required");
  assert.deepEqual(Object.keys(second.inputRequests), ["ask2"]);

  // Answering ask1 again does not change what was recorded.
  const done = await h.request(
    3,
    "tools/call",
    call({
      requestState: second.requestState,
      inputResponses: { ask1: accept({ name: "Mallory" }), ask2: accept({ age: 7 }) },
    }),
  );
  assert.equal(done.result?.resultType, "complete");
  assert.match(JSON.stringify(done.result?.content), /Ann is 7/);
});

test("2026-07-28: answers offered before any question count where that question comes, checked; other keys are ignored", async () => {
  const h = harness([twoQuestions]);
  const reply = await h.request(
    1,
    "tools/call",
    call({ inputResponses: { ask1: accept({ name: "Ann" }), stray: accept({ x: 1 }) } }),
  );
  const next = reply.result as unknown as Pending;
  assert.equal(next.resultType, "input_required");
  assert.deepEqual(Object.keys(next.inputRequests), ["ask2"]);
  assert.equal(typeof next.requestState, "string");

  const unfit = (await h.request(
    2,
    "tools/call",
    call({ inputResponses: { ask1: accept({ name: 42 }) } }),
  )).result as unknown as Pending;
  assert.deepEqual(Object.keys(unfit.inputRequests), ["ask1"]);
});

test("2026-07-28: an answer that does not fit the form is asked again, saying why", async () => {
  const h = harness([twoQuestions]);
  const first = (await h.request(1, "tools/call", call())).result as unknown as Pending;
  const again = (await h.request(
    2,
    "tools/call",
    call({ requestState: first.requestState, inputResponses: { ask1: accept({ name: 42 }) } }),
  )).result as unknown as Pending;
  assert.equal(again.resultType, "input_required");
  assert.deepEqual(Object.keys(again.inputRequests), ["ask1"]);
  const params = again.inputRequests.ask1.params as Record<string, unknown>;
  assert.match(
    String(params.message),
    /^Your name\?\n\n\(The previous answer could not be used: name must be text\.\)/,
  );

  const tooLong = (await h.request(
    3,
    "tools/call",
    call({
      requestState: again.requestState,
      inputResponses: { ask1: accept({ name: "Bartholomew the Third" }) },
    }),
  )).result as unknown as Pending;
  assert.match(
    String((tooLong.inputRequests.ask1.params as Record<string, unknown>).message),
    /name must be at most 10 characters/,
  );

  const fixed = (await h.request(
    4,
    "tools/call",
    call({ requestState: tooLong.requestState, inputResponses: { ask1: accept({ name: "Bo" }) } }),
  )).result as unknown as Pending;
  assert.deepEqual(Object.keys(fixed.inputRequests), ["ask2"]);
});

test("2026-07-28: a declined question carries no content to the tool", async () => {
  const h = harness([twoQuestions]);
  const first = (await h.request(1, "tools/call", call())).result as unknown as Pending;
  const done = await h.request(
    2,
    "tools/call",
    call({
      requestState: first.requestState,
      inputResponses: { ask1: { action: "decline", content: { name: "sneaky" } } },
    }),
  );
  assert.match(
    JSON.stringify(done.result?.content),
    /no name \(decline, {\\"action\\":\\"decline\\"}\)/,
  );
});

async function legacy(version: string, capabilities: Record<string, unknown>) {
  const h = harness([twoQuestions]);
  await h.request(0, "initialize", { ...initializeParams(version), capabilities });
  h.line({ jsonrpc: "2.0", method: "notifications/initialized" });
  return h;
}

test("only clients that can show forms are asked", async () => {
  const cases: [string, Record<string, unknown>, boolean][] = [
    ["2025-11-25", { elicitation: {} }, true],
    ["2025-11-25", { elicitation: { form: {} } }, true],
    ["2025-11-25", { elicitation: { form: {}, url: {} } }, true],
    ["2025-11-25", { elicitation: { url: {} } }, false],
    ["2025-11-25", {}, false],
    ["2025-06-18", { elicitation: {} }, true],
    // Elicitation did not exist before 2025-06-18, whatever the client claims.
    ["2025-03-26", { elicitation: {} }, false],
  ];
  for (const [version, capabilities, asked] of cases) {
    const h = await legacy(version, capabilities);
    h.line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "two_questions" } });
    await tick(30);
    const sentAsk = h.sent.some((m) => !Array.isArray(m) && m.method === "elicitation/create");
    assert.equal(sentAsk, asked, `${version} ${JSON.stringify(capabilities)}`);
    if (!asked) {
      const reply = await h.responseTo(1);
      assert.match(JSON.stringify(reply.result), /ask them in the chat instead/);
    }
  }
});

test("legacy: an answer that does not fit the form is an error result, not passed on", async () => {
  const h = await legacy("2025-11-25", { elicitation: {} });
  h.line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "two_questions" } });
  await tick(30);
  const ask = h.notifications("elicitation/create")[0];
  assert.ok(ask, "asked");
  h.line({ jsonrpc: "2.0", id: ask.id, result: { action: "accept", content: { other: "x" } } });
  const reply = await h.responseTo(1);
  const result = reply.result as { isError?: boolean; content: { text: string }[] };
  assert.equal(result.isError, true);
  assert.match(result.content[0].text, /does not fit the questions asked \(name is required/);
});

test("a request the client never answers is withdrawn with notifications/cancelled", async () => {
  const rootsTool = defineTool({
    name: "where",
    description: "roots",
    input: { type: "object" },
    async run(_args, ctx) {
      return (await ctx.roots()).join(",");
    },
  });
  const h = harness([rootsTool], undefined, undefined, { timeouts: { clientRequestMs: 50 } });
  await h.request(0, "initialize", {
    ...initializeParams("2025-11-25"),
    capabilities: { roots: {} },
  });
  const reply = await h.request(1, "tools/call", { name: "where", arguments: {} });
  assert.equal(reply.result?.isError, undefined);
  const ask = h.sent.find((m) => !Array.isArray(m) && m.method === "roots/list") as Message;
  assert.ok(ask, "roots were asked for");
  const withdrawn = h.notifications("notifications/cancelled");
  assert.deepEqual(withdrawn.map((m) => m.params!.requestId), [ask.id]);
});

test("canElicitMidCall: a legacy client that can elicit, until the call is answered; never 2026-07-28", async () => {
  let seen: ToolContext | undefined;
  const during: boolean[] = [];
  const peek = defineTool({
    name: "peek",
    description: "keeps its context",
    input: { type: "object", properties: {}, additionalProperties: false },
    run(_args, ctx) {
      seen = ctx;
      during.push(ctx.canElicitMidCall);
      return Promise.resolve("ok");
    },
  });
  const legacyWith = async (capabilities: Record<string, unknown>) => {
    const h = harness([peek]);
    await h.request(0, "initialize", { ...initializeParams("2025-11-25"), capabilities });
    h.line({ jsonrpc: "2.0", method: "notifications/initialized" });
    return h;
  };
  const h = await legacyWith({ elicitation: {} });
  await h.request(1, "tools/call", { name: "peek", arguments: {} });
  assert.deepEqual(during, [true]);
  // Once answered, a question from work left running (a background command) cannot be asked.
  assert.equal(seen?.canElicitMidCall, false);
  await (await legacyWith({})).request(1, "tools/call", { name: "peek", arguments: {} });
  assert.deepEqual(during, [true, false]);
  const modernCaps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  await harness([peek]).request(
    1,
    "tools/call",
    modern({ name: "peek", arguments: {} }, modernCaps),
  );
  assert.deepEqual(during, [true, false, false]);
});

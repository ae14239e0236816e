/** ask_user and elicitation in both eras, in-process: the client's side is played by the test. */
import assert from "node:assert/strict";
import { test } from "node:test";
import askUser from "../../tools/session/ask_user.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const questions = [
  {
    question: "Which database should the app use?",
    header: "Database",
    options: [{ label: "Postgres", description: "relational" }, { label: "SQLite" }],
  },
  {
    question: "Which extras?",
    header: "Extras",
    options: [{ label: "Auth" }, { label: "Admin" }, { label: "Metrics" }],
    multi_select: true,
  },
];

type Result = {
  content: { text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

async function legacySession(version: string, capabilities: Record<string, unknown>) {
  const h = harness([askUser]);
  await h.request(0, "initialize", { ...initializeParams(version), capabilities });
  return h;
}

/** Waits for the server's elicitation/create request and answers it. */
async function answer(
  h: ReturnType<typeof harness>,
  reply: Record<string, unknown>,
): Promise<Message> {
  let ask: Message | undefined;
  for (let i = 0; i < 200 && !ask; i++) {
    ask = h.sent.find((m): m is Message => !Array.isArray(m) && m.method === "elicitation/create");
    if (!ask) await tick(5);
  }
  assert.ok(ask, "the server asked the client");
  h.line({ jsonrpc: "2.0", id: ask.id, result: reply });
  return ask;
}

test("legacy: the questions become one elicitation form; the answers come back readable", async () => {
  const h = await legacySession("2025-11-25", { elicitation: {} });
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_user", arguments: { questions } },
  });
  const ask = await answer(h, {
    action: "accept",
    content: { q1: "SQLite", q2: ["Auth", "Metrics", "Other"], q2_other: "Logs " },
  });
  const schema = ask.params!.requestedSchema as {
    properties: Record<string, Record<string, unknown>>;
    required: string[];
  };
  assert.deepEqual(Object.keys(schema.properties), ["q1", "q1_other", "q2", "q2_other"]);
  assert.deepEqual(schema.required, ["q1"]);
  assert.deepEqual(
    (schema.properties.q1.oneOf as { const: string; title: string }[]).map((c) => c.title),
    ["Postgres: relational", "SQLite", "Other (type your answer below)"],
  );
  assert.equal(schema.properties.q2.type, "array");
  assert.match(String(ask.params!.message), /^Please answer 2 questions:\n1\. Which database/);
  const result = (await h.responseTo(1)).result as unknown as Result;
  assert.equal(
    result.content[0].text,
    'The user answered:\n1. Database: SQLite\n2. Extras: Auth, Metrics, "Logs"',
  );
  assert.deepEqual(result.structuredContent, {
    action: "accept",
    answers: [
      { header: "Database", selected: ["SQLite"], other: null },
      { header: "Extras", selected: ["Auth", "Metrics"], other: "Logs" },
    ],
  });
});

test("legacy: declining and cancelling are told apart, and neither is an error", async () => {
  for (
    const [action, text] of [["decline", /declined to answer/], [
      "cancel",
      /dismissed the questions/,
    ]] as const
  ) {
    const h = await legacySession("2025-11-25", { elicitation: {} });
    h.line({
      jsonrpc: "2.0",
      id: 1,
      method: "tools/call",
      params: { name: "ask_user", arguments: { questions } },
    });
    await answer(h, { action });
    const result = (await h.responseTo(1)).result as unknown as Result;
    assert.match(result.content[0].text, text);
    assert.equal(result.isError, undefined);
    assert.deepEqual(result.structuredContent, { action, answers: [] });
  }
});

test("legacy 2025-06-18: titled choices become enum + enumNames, multiple choice checkboxes", async () => {
  const h = await legacySession("2025-06-18", { elicitation: {} });
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_user", arguments: { questions } },
  });
  const ask = await answer(h, {
    action: "accept",
    content: { q1: "Postgres", q2__0: true, q2__1: false, q2__2: true },
  });
  const properties =
    (ask.params!.requestedSchema as { properties: Record<string, Record<string, unknown>> })
      .properties;
  assert.deepEqual(properties.q1.enum, ["Postgres", "SQLite", "Other"]);
  assert.equal(properties.q1.oneOf, undefined);
  assert.deepEqual([properties.q2__0.type, properties.q2__0.title], ["boolean", "Extras: Auth"]);
  assert.equal(properties.q2, undefined);
  const result = (await h.responseTo(1)).result as unknown as Result;
  assert.equal(
    result.content[0].text,
    "The user answered:\n1. Database: Postgres\n2. Extras: Auth, Metrics",
  );
});

test("a client without elicitation gets an error telling the model to ask in chat", async () => {
  const h = await legacySession("2025-11-25", {});
  const reply = await h.request(1, "tools/call", { name: "ask_user", arguments: { questions } });
  assert.equal(reply.result?.isError, true);
  assert.match(JSON.stringify(reply.result), /ask them in the chat instead/);
  assert.equal(h.sent.some((m) => !Array.isArray(m) && m.method === "elicitation/create"), false);
  const modernReply = await h.request(
    2,
    "tools/call",
    modern({ name: "ask_user", arguments: { questions } }),
  );
  assert.equal(modernReply.result?.isError, true);
});

test("a client that fails to show the form: the model is told to ask in chat", async () => {
  const h = await legacySession("2025-11-25", { elicitation: {} });
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_user", arguments: { questions } },
  });
  await tick(30);
  const ask = h.notifications("elicitation/create")[0];
  h.line({ jsonrpc: "2.0", id: ask.id, error: { code: -32603, message: "no UI attached" } });
  const result = (await h.responseTo(1)).result as unknown as Result;
  assert.equal(result.isError, true);
  assert.match(
    result.content[0].text,
    /could not show the questions \(elicitation\/create failed: no UI attached\); ask them in the chat instead/,
  );
});

test("a long typed-in answer is cut before it reaches the model", async () => {
  const h = await legacySession("2025-11-25", { elicitation: {} });
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "ask_user", arguments: { questions: questions.slice(0, 1) } },
  });
  await answer(h, { action: "accept", content: { q1: "Other", q1_other: "x".repeat(5000) } });
  const result = (await h.responseTo(1)).result as unknown as Result;
  const other = (result.structuredContent!.answers as { other: string }[])[0].other;
  assert.equal(other, `${"x".repeat(2000)}… (3000 more characters cut)`);
});

test("legacy: a cancelled call withdraws its question from the client", async () => {
  const h = await legacySession("2025-11-25", { elicitation: {} });
  h.line({
    jsonrpc: "2.0",
    id: "q",
    method: "tools/call",
    params: { name: "ask_user", arguments: { questions } },
  });
  await tick(30);
  const ask = h.sent.find((m): m is Message =>
    !Array.isArray(m) && m.method === "elicitation/create"
  )!;
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "q" } });
  await tick(30);
  const withdrawn = h.notifications("notifications/cancelled");
  assert.deepEqual(withdrawn.map((m) => m.params!.requestId), [ask.id]);
  assert.equal(h.sent.some((m) => !Array.isArray(m) && m.id === "q"), false);
});

test("2026-07-28: input_required with a signed requestState, then the retry completes", async () => {
  const h = harness([askUser]);
  const caps = { "io.modelcontextprotocol/clientCapabilities": { elicitation: {} } };
  const first = await h.request(
    1,
    "tools/call",
    modern({ name: "ask_user", arguments: { questions } }, caps),
  );
  assert.equal(first.result?.resultType, "input_required");
  const requests = first.result?.inputRequests as Record<
    string,
    { method: string; params: Record<string, unknown> }
  >;
  assert.deepEqual(Object.keys(requests), ["ask1"]);
  assert.equal(requests.ask1.method, "elicitation/create");
  assert.equal(requests.ask1.params.mode, "form");
  const state = first.result?.requestState as string;
  assert.equal(typeof state, "string");

  const retry = (extra: Record<string, unknown>, args: unknown = { questions }) =>
    modern({ name: "ask_user", arguments: args, ...extra }, caps);
  const inputResponses = { ask1: { action: "accept", content: { q1: "Postgres", q2: ["Admin"] } } };
  const done = await h.request(2, "tools/call", retry({ inputResponses, requestState: state }));
  assert.equal(done.result?.resultType, "complete");
  assert.match(JSON.stringify(done.result?.content), /1\. Database: Postgres\\n2\. Extras: Admin/);

  const tampered = state.slice(0, -2) + (state.endsWith("A") ? "BB" : "AA");
  const refused = await h.request(
    3,
    "tools/call",
    retry({ inputResponses, requestState: tampered }),
  );
  assert.equal(refused.error?.code, -32602);
  const otherCall = await h.request(
    4,
    "tools/call",
    retry({ inputResponses, requestState: state }, { questions: questions.slice(0, 1) }),
  );
  assert.equal(otherCall.error?.code, -32602);
  assert.match(otherCall.error!.message, /requestState is not valid for this call/);
});

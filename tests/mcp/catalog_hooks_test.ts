/**
 * What the catalog does around a tool: hooks before and after it, and the one-time prepare()
 * that lets a tool describe itself from the user's roots.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool, defineToolHook, ToolError } from "../../mcp/tool/mod.ts";
import { ordered } from "../../mcp/tool/tool_hooks.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const waitsForCancel = defineTool({
  name: "waits",
  description: "returns only when stopped",
  input: { type: "object" },
  run: (_args, ctx) => new Promise<string>((resolve) => ctx.onAbort(() => resolve("stopped"))),
});

const quick = defineTool({
  name: "quick",
  description: "answers at once",
  input: { type: "object" },
  run: () => Promise.resolve("done"),
});

const lies = defineTool({
  name: "lies",
  description: "breaks its own output schema",
  input: { type: "object" },
  output: { type: "object", properties: { n: { type: "number" } }, required: ["n"] },
  run: () => Promise.resolve({ structured: { n: "one" } as unknown as { n: number } }),
});

test("the after-hook sees only results that are sent", async () => {
  const seen: string[] = [];
  const hooks = defineToolHook({
    name: "reminder",
    phase: "observe",
    after(result) {
      seen.push(JSON.stringify(result.content));
      result.content.push({ type: "text", text: "reminder" });
    },
  });
  const h = harness([waitsForCancel, quick, lies], undefined, undefined, { hooks: [hooks] });
  await h.request(0, "initialize", initializeParams("2025-11-25"));

  h.line({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "waits" } });
  await tick(20);
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: 1 } });
  await tick(20);
  const broken = await h.request(2, "tools/call", { name: "lies" });
  assert.ok(broken.error, "a result failing its own schema is an error response");
  assert.deepEqual(seen, [], "neither the cancelled nor the broken result reached the hook");

  const done = await h.request(3, "tools/call", { name: "quick" });
  assert.deepEqual(seen, ['[{"type":"text","text":"done"}]']);
  assert.match(JSON.stringify(done.result), /reminder/);
});

test("before-hooks run one after another, phase by phase, even when one must wait", async () => {
  const order: string[] = [];
  // Given in the wrong order, and named so that names alone would order them wrong too.
  const slow = defineToolHook({
    name: "z slow",
    phase: "gate",
    async before() {
      order.push("slow starts");
      await tick(20);
      order.push("slow ends");
    },
  });
  const fast = defineToolHook({
    name: "a fast",
    phase: "keep",
    before: () => void order.push("fast"),
  });
  const h = harness([quick], undefined, undefined, { hooks: [fast, slow] });
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  await h.request(2, "tools/call", { name: "quick" });
  assert.deepEqual(order, ["slow starts", "slow ends", "fast"]);
});

test("a call refused at the gate reaches no later phase; every hook still sees it finish", async () => {
  const ran: string[] = [];
  const phases = ["observe", "keep", "check", "gate"] as const;
  const hooks = phases.map((phase) =>
    defineToolHook({
      name: `${phase} hook`,
      phase,
      before() {
        ran.push(`${phase} before`);
        if (phase === "gate") throw new ToolError("quick was refused: a gate said no");
      },
      finished: (call) => void ran.push(`${phase} finished (${call.outcome})`),
    })
  );
  const h = harness([quick], undefined, undefined, { hooks });
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const refused = await h.request(1, "tools/call", { name: "quick" });
  assert.equal(refused.result?.isError, true);
  assert.deepEqual(ran, [
    "gate before",
    "gate finished (error)",
    "check finished (error)",
    "keep finished (error)",
    "observe finished (error)",
  ]);
});

test("hooks are ordered by their phase, then their name, whatever order they come in", () => {
  const hook = (name: string, phase: "gate" | "check" | "keep" | "observe") =>
    defineToolHook({ name, phase });
  const given = [
    hook("code_diagnostics", "observe"),
    hook("journal", "keep"),
    hook("seen_files", "check"),
    hook("read_only_gate", "gate"),
    hook("plan_gate", "gate"),
  ];
  assert.deepEqual(ordered(given).map((h) => h.name), [
    "plan_gate",
    "read_only_gate",
    "seen_files",
    "journal",
    "code_diagnostics",
  ]);
  assert.deepEqual(
    ordered([...given].reverse()).map((h) => h.name),
    ordered(given).map((h) => h.name),
  );
  const unphased = { kind: "tool_hook", name: "nowhere" } as unknown as ReturnType<typeof hook>;
  assert.throws(() => ordered([unphased]), /tool hook nowhere has no phase/);
});

test("prepare() gets the client's roots from the first request, once", async () => {
  const prepared: string[][] = [];
  const describes = defineTool({
    name: "describes",
    description: "as defined",
    input: { type: "object" },
    prepare({ roots }) {
      prepared.push(roots);
      return Promise.resolve({ description: `found in ${roots.join(",")}` });
    },
    run: () => Promise.resolve("ok"),
  });
  const h = harness([describes]);
  await h.request(0, "initialize", {
    ...initializeParams("2025-11-25"),
    capabilities: { roots: {} },
  });
  h.line({ jsonrpc: "2.0", method: "notifications/initialized" });
  h.line({ jsonrpc: "2.0", id: 1, method: "tools/list" });
  let ask: Message | undefined;
  for (let i = 0; i < 100 && !ask; i++) {
    await tick(5);
    ask = h.sent.find((m): m is Message => !Array.isArray(m) && m.method === "roots/list");
  }
  assert.ok(ask, "the roots were asked for before listing");
  h.line({ jsonrpc: "2.0", id: ask.id, result: { roots: [{ uri: "file:///tmp/project" }] } });
  const listed = await h.responseTo(1);
  const tools = (listed.result as { tools: { description: string }[] }).tools;
  assert.equal(tools[0].description, "found in /tmp/project");
  await h.request(2, "tools/list");
  assert.deepEqual(prepared, [["/tmp/project"]]);
});

test("a tool that takes too long to prepare is listed as defined, and the list still comes", async () => {
  const stuck = defineTool({
    name: "stuck",
    description: "as defined",
    input: { type: "object" },
    prepare: () => new Promise(() => {}),
    run: () => Promise.resolve("ok"),
  });
  const h = harness([stuck], undefined, undefined, { timeouts: { prepareMs: 30 } });
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const listed = await h.request(1, "tools/list");
  const tools = (listed.result as { tools: { description: string }[] }).tools;
  assert.equal(tools[0].description, "as defined");
  assert.ok(h.logs.some((l) => l.level === "warning" && /stuck took over 30 ms/.test(l.message)));
  // A list a tool may shape from the user's files is theirs: not to be shared by caches.
  const modernList = await h.request(2, "tools/list", modern());
  assert.equal(modernList.result?.cacheScope, "private");
});

test("a call to a tool with nothing to prepare does not wait for the others' preparation", async () => {
  let release = () => {};
  const slow = defineTool({
    name: "slow",
    description: "as defined",
    input: { type: "object" },
    prepare: () => new Promise((resolve) => (release = () => resolve({ description: "prepared" }))),
    run: () => Promise.resolve("slow ran"),
  });
  // Past this the preparation is given up on, with a warning: the call must not wait for that.
  const h = harness([slow, quick], undefined, undefined, { timeouts: { prepareMs: 3_000 } });
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const done = await h.request(1, "tools/call", { name: "quick" });
  assert.match(JSON.stringify(done.result), /done/);
  assert.ok(
    !h.logs.some((l) => /took over/.test(l.message)),
    "quick was answered only once the preparation was given up on",
  );
  // A call after one still waiting waits too: calls start in the order they came.
  h.line({ jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "slow" } });
  h.line({ jsonrpc: "2.0", id: 3, method: "tools/call", params: { name: "quick" } });
  await tick(20);
  assert.deepEqual(h.sent.filter((m) => !Array.isArray(m) && (m.id === 2 || m.id === 3)), []);
  release();
  await h.responseTo(3);
  const ids = h.sent.flatMap((m) => !Array.isArray(m) && (m.id === 2 || m.id === 3) ? [m.id] : []);
  assert.deepEqual(ids, [2, 3]);
  const listed = await h.request(4, "tools/list");
  assert.match(JSON.stringify(listed.result), /prepared/);
});

/** tools/list and tools/call: order, pagination, shapes per version, validation, failures. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../../mcp/tool/mod.ts";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

type Described = { name: string; [key: string]: unknown };

function manyTools(count: number) {
  return Array.from({ length: count }, (_, i) =>
    defineTool({
      name: `t${String(count - i).padStart(3, "0")}`,
      description: "numbered",
      input: { type: "object", properties: {} },
      run: () => Promise.resolve("ok"),
    }));
}

async function legacy(version: string, tools = fixtures) {
  const h = harness(tools);
  await h.request(0, "initialize", initializeParams(version));
  return h;
}

test("tools/list is sorted by name whatever order the modules come in", async () => {
  const h = await legacy("2025-11-25", [...fixtures].reverse());
  const names = ((await h.request(1, "tools/list")).result?.tools as Described[]).map((t) =>
    t.name
  );
  assert.deepEqual(names, [...names].sort());
  assert.deepEqual(names, [
    "bad_output",
    "big",
    "crowd",
    "echo",
    "fail",
    "logs",
    "slow",
    "unencodable",
  ]);
});

test("pagination walks every tool once with opaque cursors; a bad cursor is -32602", async () => {
  const h = harness(manyTools(7), 3);
  const seen: string[] = [];
  let cursor: unknown;
  let pages = 0;
  do {
    const reply = await h.request(`p${pages}`, "tools/list", modern(cursor ? { cursor } : {}));
    seen.push(...(reply.result?.tools as Described[]).map((t) => t.name));
    cursor = reply.result?.nextCursor;
    pages++;
  } while (cursor !== undefined);
  assert.equal(pages, 3);
  assert.deepEqual(seen, manyTools(7).map((t) => t.name).sort());
  for (const bad of ["nonsense", btoa("tools:99"), 12]) {
    const reply = await h.request(`bad-${bad}`, "tools/list", modern({ cursor: bad }));
    assert.equal(reply.error?.code, -32602);
  }
});

test("tool descriptions follow the negotiated version", async () => {
  const badOutput = (tools: Described[]) => tools.find((t) => t.name === "bad_output")!;
  const old = badOutput(
    (await (await legacy("2024-11-05")).request(1, "tools/list")).result?.tools as Described[],
  );
  assert.ok(!("annotations" in old) && !("outputSchema" in old) && !("title" in old));
  const latest = badOutput(
    (await (await legacy("2025-11-25")).request(1, "tools/list")).result?.tools as Described[],
  );
  assert.ok("outputSchema" in latest);
  const echo =
    ((await (await legacy("2025-03-26")).request(1, "tools/list")).result?.tools as Described[])
      .find((t) => t.name === "echo")!;
  assert.deepEqual(echo.annotations, { readOnlyHint: true });
  assert.ok(!("outputSchema" in echo));
});

test("structuredContent is sent from 2025-06-18 on and dropped before", async () => {
  const call = { name: "echo", arguments: { text: "x" } };
  const structuredTool = defineTool({
    name: "structured",
    description: "returns structure",
    input: { type: "object" },
    output: { type: "object", properties: { n: { type: "integer" } }, required: ["n"] },
    run: () => Promise.resolve({ structured: { n: 3 } }),
  });
  for (const [version, expected] of [["2025-03-26", false], ["2025-06-18", true]] as const) {
    const h = await legacy(version, [structuredTool, ...fixtures]);
    const reply = await h.request(1, "tools/call", { name: "structured", arguments: {} });
    assert.equal("structuredContent" in reply.result!, expected, version);
    assert.deepEqual(reply.result?.content, [{ type: "text", text: '{"n":3}' }]);
    assert.ok(await h.request(2, "tools/call", call));
  }
});

test("an unknown tool is -32602 listing the tools and guessing the intended one", async () => {
  const h = await legacy("2025-11-25");
  const reply = await h.request(1, "tools/call", { name: "ecoh", arguments: {} });
  assert.equal(reply.error?.code, -32602);
  assert.match(reply.error!.message, /Unknown tool "ecoh" \(did you mean echo\?\)/);
  assert.match(reply.error!.message, /bad_output, big, crowd, echo/);
});

test("a tools/call without a name or with non-object arguments is -32602", async () => {
  const h = await legacy("2025-11-25");
  assert.equal((await h.request(1, "tools/call", { arguments: {} })).error?.code, -32602);
  assert.equal(
    (await h.request(2, "tools/call", { name: "echo", arguments: [] })).error?.code,
    -32602,
  );
  assert.equal(
    (await h.request(3, "tools/call", { name: "echo", arguments: "x" })).error?.code,
    -32602,
  );
});

test("arguments that fail the schema give an isError result naming each field", async () => {
  const h = await legacy("2025-11-25");
  const reply = await h.request(1, "tools/call", { name: "echo", arguments: { txt: 5 } });
  assert.equal(reply.result?.isError, true);
  const text = (reply.result?.content as { text: string }[])[0].text;
  assert.match(text, /Invalid arguments for echo/);
  assert.match(text, /text is required \(string\) but is missing/);
  assert.match(text, /txt is not a known field; did you mean "text"\?/);
  const wrongType = await h.request(2, "tools/call", { name: "slow", arguments: { ms: "soon" } });
  assert.match(JSON.stringify(wrongType.result), /ms must be integer, got string \\"soon\\"/);
  const wrongEnum = await h.request(3, "tools/call", {
    name: "fail",
    arguments: { how: "gently" },
  });
  assert.match(
    JSON.stringify(wrongEnum.result),
    /how must be one of \\"tool_error\\", \\"crash\\"/,
  );
});

test("a ToolError and an unexpected exception both become isError results; the stack stays on stderr", async () => {
  const h = await legacy("2025-11-25");
  const refused = await h.request(1, "tools/call", {
    name: "fail",
    arguments: { how: "tool_error" },
  });
  assert.deepEqual(refused.result, {
    content: [{ type: "text", text: "the fixture refused, as asked" }],
    isError: true,
  });
  const crashed = await h.request(2, "tools/call", { name: "fail", arguments: { how: "crash" } });
  assert.equal(crashed.result?.isError, true);
  assert.match(JSON.stringify(crashed.result), /fail failed: fixture crash with a secret stack/);
  assert.doesNotMatch(JSON.stringify(crashed.result), /at run|tools\.ts/);
  assert.ok(h.logs.some((l) => l.level === "error" && /at /.test(l.message)), "stack logged");
});

test("output that breaks the tool's own output schema is -32603, details only in the log", async () => {
  const h = await legacy("2025-11-25");
  const reply = await h.request(1, "tools/call", { name: "bad_output", arguments: {} });
  assert.equal(reply.error?.code, -32603);
  assert.doesNotMatch(reply.error!.message, /count/);
  assert.ok(h.logs.some((l) => /count must be integer/.test(l.message)));
});

test("a result JSON cannot encode is -32603, and the server goes on", async () => {
  const h = await legacy("2025-11-25");
  const reply = await h.request(1, "tools/call", { name: "unencodable", arguments: {} });
  assert.equal(reply.error?.code, -32603);
  assert.match(reply.error!.message, /could not be encoded as JSON/);
  assert.deepEqual((await h.request(2, "ping")).result, {});
});

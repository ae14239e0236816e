/** Both protocol eras on one server: legacy initialize and stateless 2026-07-28 requests. */
import assert from "node:assert/strict";
import { test } from "node:test";
import fixtures from "../fixtures/tools.ts";
import { harness, initializeParams } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

const SERVER_INFO = "io.modelcontextprotocol/serverInfo";

test("initialize echoes every legacy version we speak", async () => {
  for (const version of ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"]) {
    const h = harness(fixtures);
    const reply = await h.request(1, "initialize", initializeParams(version));
    assert.equal(reply.result?.protocolVersion, version);
    assert.deepEqual(reply.result?.serverInfo, { name: "toolhost", version: "9.9.9" });
    assert.equal(reply.result?.instructions, "test instructions");
    assert.ok(!("resultType" in reply.result!), "legacy results carry no resultType");
  }
});

test("initialize with a version we do not speak answers our newest legacy version", async () => {
  for (const asked of ["2023-01-01", "2026-07-28", "banana"]) {
    const h = harness(fixtures);
    const reply = await h.request(1, "initialize", initializeParams(asked));
    assert.equal(reply.result?.protocolVersion, "2025-11-25");
  }
});

test("initialize without a protocolVersion is -32602", async () => {
  const reply = await harness(fixtures).request(1, "initialize", { capabilities: {} });
  assert.equal(reply.error?.code, -32602);
  assert.match(reply.error!.message, /protocolVersion/);
});

test("legacy capabilities advertise tools and logging only", async () => {
  const reply = await harness(fixtures).request(1, "initialize", initializeParams("2025-11-25"));
  assert.deepEqual(reply.result?.capabilities, { tools: { listChanged: false }, logging: {} });
});

test("before initialize, a request without modern _meta is -32602 explaining both ways in", async () => {
  const h = harness(fixtures);
  const reply = await h.request(1, "tools/list");
  assert.equal(reply.error?.code, -32602);
  assert.match(reply.error!.message, /initialize/);
  assert.match(reply.error!.message, /io\.modelcontextprotocol\/protocolVersion/);
  const ping = await h.request(2, "ping");
  assert.deepEqual(ping.result, {}, "ping is answered at any time");
});

test("server/discover lists every version, capabilities, instructions and cache hints", async () => {
  const h = harness(fixtures);
  const reply = await h.request("d", "server/discover", modern());
  assert.deepEqual(reply.result?.supportedVersions, [
    "2026-07-28",
    "2025-11-25",
    "2025-06-18",
    "2025-03-26",
    "2024-11-05",
  ]);
  assert.deepEqual(reply.result?.capabilities, { tools: {}, logging: {} });
  assert.equal(reply.result?.instructions, "test instructions");
  assert.equal(reply.result?.resultType, "complete");
  assert.equal(reply.result?.cacheScope, "public");
  assert.ok(typeof reply.result?.ttlMs === "number" && reply.result.ttlMs >= 0);
  assert.deepEqual(
    (reply.result?._meta as Record<string, unknown>)[SERVER_INFO],
    { name: "toolhost", version: "9.9.9" },
  );
});

test("modern results carry resultType complete and serverInfo in _meta; lists carry ttlMs/cacheScope", async () => {
  const h = harness(fixtures);
  const list = await h.request(1, "tools/list", modern());
  assert.equal(list.result?.resultType, "complete");
  assert.equal(list.result?.cacheScope, "public");
  assert.equal(typeof list.result?.ttlMs, "number");
  const call = await h.request(2, "tools/call", modern({ name: "echo", arguments: { text: "x" } }));
  assert.equal(call.result?.resultType, "complete");
  assert.ok((call.result?._meta as Record<string, unknown>)[SERVER_INFO]);
  assert.ok(!("ttlMs" in call.result!), "tool results are not cacheable");
});

test("an unsupported modern version is -32022 with data.supported and data.requested", async () => {
  const h = harness(fixtures);
  for (const version of ["1900-01-01", "2025-11-25"]) {
    const reply = await h.request(
      version,
      "tools/list",
      modern({}, {
        "io.modelcontextprotocol/protocolVersion": version,
      }),
    );
    assert.equal(reply.error?.code, -32022);
    const data = reply.error?.data as { supported: string[]; requested: string };
    assert.equal(data.requested, version);
    assert.ok(data.supported.includes("2026-07-28"));
    // A legacy version is spoken, but only after initialize: offering it again would loop.
    assert.equal(data.supported.includes(version), false);
  }
});

test("a modern request without clientCapabilities, or with a bad log level, is -32602", async () => {
  const h = harness(fixtures);
  const noCaps = await h.request(1, "tools/list", {
    _meta: { "io.modelcontextprotocol/protocolVersion": "2026-07-28" },
  });
  assert.equal(noCaps.error?.code, -32602);
  assert.match(noCaps.error!.message, /clientCapabilities/);
  const badLevel = await h.request(
    2,
    "tools/list",
    modern({}, {
      "io.modelcontextprotocol/logLevel": "loud",
    }),
  );
  assert.equal(badLevel.error?.code, -32602);
});

test("legacy-only methods are -32601 in the modern era; server/discover needs modern _meta", async () => {
  const h = harness(fixtures);
  const setLevel = await h.request(1, "logging/setLevel", modern({ level: "info" }));
  assert.equal(setLevel.error?.code, -32601);
  assert.match(setLevel.error!.message, /logLevel/);
  await h.request(2, "initialize", initializeParams("2025-11-25"));
  const discover = await h.request(3, "server/discover");
  assert.equal(discover.error?.code, -32602);
});

test("both eras are served at once by one process", async () => {
  const h = harness(fixtures);
  await h.request(1, "initialize", initializeParams("2025-06-18"));
  const legacy = await h.request(2, "tools/call", { name: "echo", arguments: { text: "L" } });
  const stateless = await h.request(
    3,
    "tools/call",
    modern({ name: "echo", arguments: { text: "M" } }),
  );
  assert.ok(!("resultType" in legacy.result!));
  assert.equal(stateless.result?.resultType, "complete");
  assert.deepEqual(legacy.result?.content, [{ type: "text", text: "L" }]);
  assert.deepEqual(stateless.result?.content, [{ type: "text", text: "M" }]);
});

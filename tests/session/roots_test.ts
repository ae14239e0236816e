/** Where the roots come from: flags, else the legacy client's roots/list, else the fallback. */
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync } from "node:fs";
import { tmpdir } from "node:os";
import { pathToFileURL } from "node:url";
import { join } from "node:path";
import { test } from "node:test";
import listRoots from "../../tools/session/list_roots.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

const dir = () => realpathSync(mkdtempSync(join(tmpdir(), "toolhost-roots-")));
const rootsOf = (reply: { result?: Record<string, unknown> }) =>
  (reply.result?.structuredContent as { roots: string[] }).roots;

test("--root flags win over everything", async () => {
  const [fixed, fallback] = [dir(), dir()];
  const h = harness([listRoots], undefined, { fixed: [fixed], fallback: [fallback] });
  await h.request(0, "initialize", {
    ...initializeParams("2025-11-25"),
    capabilities: { roots: {} },
  });
  assert.deepEqual(
    rootsOf(await h.request(1, "tools/call", { name: "list_roots", arguments: {} })),
    [fixed],
  );
  assert.equal(h.sent.some((m) => !Array.isArray(m) && m.method === "roots/list"), false);
});

test("a legacy client offering roots is asked with roots/list, and again after list_changed", async () => {
  const [first, second, fallback] = [dir(), dir(), dir()];
  const h = harness([listRoots], undefined, { fixed: [], fallback: [fallback] });
  await h.request(0, "initialize", {
    ...initializeParams("2025-11-25"),
    capabilities: { roots: { listChanged: true } },
  });
  const answer = async (paths: string[]) => {
    let ask;
    for (let i = 0; i < 100 && !ask; i++) {
      ask = h.sent.findLast((m) =>
        !Array.isArray(m) && m.method === "roots/list" && !answered.has(m.id)
      );
      if (!ask) await tick(5);
    }
    assert.ok(ask && !Array.isArray(ask), "the server asked for roots");
    answered.add(ask.id);
    h.line({
      jsonrpc: "2.0",
      id: ask.id,
      result: { roots: paths.map((p) => ({ uri: pathToFileURL(p).href, name: "r" })) },
    });
  };
  const answered = new Set<unknown>();
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "list_roots", arguments: {} },
  });
  await answer([first]);
  assert.deepEqual(rootsOf(await h.responseTo(1)), [first]);
  // Cached: a second call does not ask again.
  assert.deepEqual(
    rootsOf(await h.request(2, "tools/call", { name: "list_roots", arguments: {} })),
    [first],
  );
  assert.equal(h.sent.filter((m) => !Array.isArray(m) && m.method === "roots/list").length, 1);
  h.line({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  h.line({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "list_roots", arguments: {} },
  });
  await answer([second, first]);
  assert.deepEqual(rootsOf(await h.responseTo(3)), [second, first]);
});

test("a client that fails roots/list, or offers none, leaves the fallback in force", async () => {
  const fallback = dir();
  const h = harness([listRoots], undefined, { fixed: [], fallback: [fallback] });
  await h.request(0, "initialize", {
    ...initializeParams("2025-11-25"),
    capabilities: { roots: {} },
  });
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/call",
    params: { name: "list_roots", arguments: {} },
  });
  await tick(20);
  const ask = h.sent.find((m) => !Array.isArray(m) && m.method === "roots/list");
  assert.ok(ask && !Array.isArray(ask));
  h.line({ jsonrpc: "2.0", id: ask.id, error: { code: -32601, message: "no roots here" } });
  assert.deepEqual(rootsOf(await h.responseTo(1)), [fallback]);
  assert.ok(
    h.logs.some((l) =>
      /could not get the client's roots \(roots\/list failed: no roots here\); using .* until they change/
        .test(l.message)
    ),
  );

  // Not asked again on every call: the fallback holds until the client says its roots changed.
  assert.deepEqual(
    rootsOf(await h.request(2, "tools/call", { name: "list_roots", arguments: {} })),
    [fallback],
  );
  assert.equal(h.sent.filter((m) => !Array.isArray(m) && m.method === "roots/list").length, 1);
  h.line({ jsonrpc: "2.0", method: "notifications/roots/list_changed" });
  h.line({
    jsonrpc: "2.0",
    id: 3,
    method: "tools/call",
    params: { name: "list_roots", arguments: {} },
  });
  await tick(20);
  const asks = h.sent.filter((m) => !Array.isArray(m) && m.method === "roots/list");
  assert.equal(asks.length, 2);
  h.line({ jsonrpc: "2.0", id: (asks[1] as { id: string }).id, result: { roots: [] } });
  assert.deepEqual(rootsOf(await h.responseTo(3)), [fallback]);

  const noCapability = harness([listRoots], undefined, { fixed: [], fallback: [fallback] });
  await noCapability.request(0, "initialize", initializeParams("2025-11-25"));
  assert.deepEqual(
    rootsOf(await noCapability.request(1, "tools/call", { name: "list_roots", arguments: {} })),
    [fallback],
  );
  assert.equal(
    noCapability.sent.some((m) => !Array.isArray(m) && m.method === "roots/list"),
    false,
  );
});

test("modern requests use the fallback: the server sends no requests in 2026-07-28", async () => {
  const fallback = dir();
  const h = harness([listRoots], undefined, { fixed: [], fallback: [fallback] });
  const reply = await h.request(
    1,
    "tools/call",
    modern({ name: "list_roots", arguments: {} }, {
      "io.modelcontextprotocol/clientCapabilities": { roots: {} },
    }),
  );
  assert.deepEqual(rootsOf(reply), [fallback]);
  assert.equal(h.sent.some((m) => !Array.isArray(m) && m.method === "roots/list"), false);
});

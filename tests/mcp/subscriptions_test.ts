/**
 * Change notifications in both eras, in process, with resources whose changes the test makes:
 * legacy resources/subscribe and list_changed, 2026-07-28 subscriptions/listen (acknowledged
 * first, tagged, only what was asked), and watches that run only while someone listens.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { definePrompts, defineResource, defineResourceTemplate } from "../../mcp/features/mod.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";

/** A source of changes the test fires by hand, counting the watches running on it. */
function source() {
  const listeners = new Set<() => void>();
  return {
    watch: (_ctx: unknown, changed: () => void) => {
      listeners.add(changed);
      return () => listeners.delete(changed);
    },
    fire: () => listeners.forEach((changed) => changed()),
    get watching() {
      return listeners.size;
    },
  };
}

function setup() {
  const note = source();
  const items = source();
  const skills = source();
  const h = harness([], undefined, undefined, {
    resources: [
      defineResource({
        uri: "test://note",
        name: "note",
        read: () => Promise.resolve("text"),
        watch: note.watch,
      }),
      defineResource({ uri: "test://still", name: "still", read: () => Promise.resolve("x") }),
    ],
    templates: [
      defineResourceTemplate({
        uriTemplate: "test://items/{id}",
        name: "item",
        read: ({ id }) => Promise.resolve(id),
        list: () => Promise.resolve([]),
        watchList: items.watch,
      }),
    ],
    prompts: [definePrompts({ list: () => Promise.resolve([]), watchList: skills.watch })],
  });
  return { h, note, items, skills };
}

test("legacy: capabilities announce subscribe and list changes; updates come while subscribed", async () => {
  const { h, note, items } = setup();
  const init = await h.request(1, "initialize", initializeParams("2025-11-25"));
  const capabilities = (init.result as { capabilities: Record<string, unknown> }).capabilities;
  assert.deepEqual(capabilities.resources, { subscribe: true, listChanged: true });
  assert.deepEqual(capabilities.prompts, { listChanged: true });
  assert.deepEqual(capabilities.tools, { listChanged: false });
  assert.equal(items.watching, 0, "lists are watched once the client says it is initialized");
  h.line({ jsonrpc: "2.0", method: "notifications/initialized" });
  assert.equal(items.watching, 1);

  assert.equal(note.watching, 0, "nothing is watched before a subscription");
  assert.deepEqual((await h.request(2, "resources/subscribe", { uri: "test://note" })).result, {});
  assert.equal(note.watching, 1);
  for (let i = 0; i < 5; i++) note.fire();
  await tick(80);
  assert.deepEqual(h.notifications("notifications/resources/updated").map((n) => n.params), [
    { uri: "test://note" },
  ], "a burst of changes is one notification");

  items.fire();
  await tick(80);
  assert.equal(h.notifications("notifications/resources/list_changed").length, 1);

  await h.request(3, "resources/unsubscribe", { uri: "test://note" });
  assert.equal(note.watching, 0, "the watch stops with the last subscriber");
  note.fire();
  await tick(80);
  assert.equal(h.notifications("notifications/resources/updated").length, 1);
});

test("legacy: subscribing to what does not exist or cannot tell of changes is refused", async () => {
  const { h } = setup();
  await h.request(1, "initialize", initializeParams("2025-11-25"));
  const unknown = await h.request(2, "resources/subscribe", { uri: "test://nothing" });
  assert.equal(unknown.error?.code, -32002);
  const still = await h.request(3, "resources/subscribe", { uri: "test://still" });
  assert.equal(still.error?.code, -32602);
  assert.match(still.error!.message, /does not tell when it changes/);
});

test("2026-07-28: listen acknowledges what it grants first, then tags what it sends", async () => {
  const { h, note, items, skills } = setup();
  h.line({
    jsonrpc: "2.0",
    id: "sub-1",
    method: "subscriptions/listen",
    params: {
      ...modern({}),
      notifications: {
        toolsListChanged: true,
        resourcesListChanged: true,
        resourceSubscriptions: ["test://note", "test://still", "test://nothing"],
      },
    },
  });
  await tick();
  const tag = { "io.modelcontextprotocol/subscriptionId": "sub-1" };
  assert.deepEqual(h.sent[0], {
    jsonrpc: "2.0",
    method: "notifications/subscriptions/acknowledged",
    params: {
      _meta: tag,
      notifications: { resourcesListChanged: true, resourceSubscriptions: ["test://note"] },
    },
  });
  note.fire();
  items.fire();
  skills.fire(); // prompts were not asked for
  await tick(80);
  assert.deepEqual(
    h.sent.slice(1).map((m) => JSON.stringify(m)).sort(),
    [
      { jsonrpc: "2.0", method: "notifications/resources/list_changed", params: { _meta: tag } },
      {
        jsonrpc: "2.0",
        method: "notifications/resources/updated",
        params: { uri: "test://note", _meta: tag },
      },
    ].map((m) => JSON.stringify(m)).sort(),
  );
  assert.equal(skills.watching, 0);

  // The client cancels: no reply, and the watches stop.
  h.line({
    jsonrpc: "2.0",
    method: "notifications/cancelled",
    params: { requestId: "sub-1" },
  });
  await tick();
  assert.equal(note.watching, 0);
  assert.equal(items.watching, 0);
  assert.equal(h.sent.filter((m) => !Array.isArray(m) && m.id === "sub-1").length, 0);
});

test("2026-07-28: on shutdown a listen ends with a reply carrying its subscription id", async () => {
  const { h, note } = setup();
  h.line({
    jsonrpc: "2.0",
    id: 7,
    method: "subscriptions/listen",
    params: { ...modern({}), notifications: { resourceSubscriptions: ["test://note"] } },
  });
  await tick();
  await h.server.shutdown(500);
  const reply = await h.responseTo(7);
  const result = reply.result as Record<string, unknown>;
  assert.equal(result.resultType, "complete");
  assert.equal(
    (result._meta as Record<string, unknown>)["io.modelcontextprotocol/subscriptionId"],
    7,
  );
  assert.equal(note.watching, 0);
});

test("2026-07-28: listen needs a notifications filter, and legacy clients cannot use it", async () => {
  const { h } = setup();
  const bad = await h.request(1, "subscriptions/listen", { ...modern({}) });
  assert.equal(bad.error?.code, -32602);
  await h.request(2, "initialize", initializeParams("2025-11-25"));
  const legacy = await h.request(3, "subscriptions/listen", { notifications: {} });
  assert.equal(legacy.error?.code, -32602);
});

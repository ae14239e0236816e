/**
 * Change notifications through the binary over stdio, with raw lines: a legacy client
 * subscribed to toolhost://plan hears plan mode entered, and hears of a task list changed by a
 * second toolhost on the same project; a 2026-07-28 listen is acknowledged first, tagged, gets
 * only what it asked for, and ends with a reply when the server stops.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

function project(): string {
  return e2e.scratch("subs");
}

const updatedFor = (uri: string) => (m: Message) =>
  m.method === "notifications/resources/updated" && m.params?.uri === uri;

test("legacy over stdio: toolhost://plan and toolhost://tasks updates, also from a second server", async () => {
  const root = project();
  const client = e2e.server({ args: ["--root", root] });
  const other = e2e.server({ args: ["--root", root] });
  try {
    await client.initialize();
    await other.initialize();
    assert.deepEqual(
      (await client.request("resources/subscribe", { uri: "toolhost://plan" })).result,
      {},
    );
    await client.request("resources/subscribe", { uri: "toolhost://tasks" });
    await client.request("tools/call", {
      name: "plan_mode",
      arguments: { action: "enter", goal: "Try subscriptions" },
    });
    await client.waitFor(updatedFor("toolhost://plan"), 5000, "the plan's update");
    // Another process on the same project changes the task list.
    await other.request("tools/call", {
      name: "tasks",
      arguments: { action: "create", text: "Written by the other server" },
    });
    await client.waitFor(updatedFor("toolhost://tasks"), 5000, "the task list's update");
    await client.request("resources/unsubscribe", { uri: "toolhost://tasks" });
    const before = client.messages.filter(updatedFor("toolhost://tasks")).length;
    await other.request("tools/call", {
      name: "tasks",
      arguments: { action: "create", text: "Nobody listens" },
    });
    await client.request("tools/call", { name: "plan_mode", arguments: { action: "reset" } });
    await client.waitFor(
      (m) =>
        updatedFor("toolhost://plan")(m) &&
        client.messages.filter(updatedFor("toolhost://plan")).length >= 2,
      5000,
      "the plan's second update",
    );
    assert.equal(client.messages.filter(updatedFor("toolhost://tasks")).length, before);
    assert.deepEqual(client.strayLines, []);
  } finally {
    await client.close();
    await other.close();
  }
});

test("2026-07-28 over stdio: listen is acknowledged, tagged, filtered, and ends with a reply", async () => {
  const root = project();
  const client = e2e.server({ args: ["--root", root] });
  try {
    client.start(
      "subscriptions/listen",
      modern({
        notifications: {
          toolsListChanged: true,
          resourceSubscriptions: ["toolhost://tasks", "toolhost://nothing"],
        },
      }),
      "listen-1",
    );
    const ack = await client.waitFor(
      (m) => m.method === "notifications/subscriptions/acknowledged",
    );
    assert.deepEqual(ack.params, {
      _meta: { [SUBSCRIPTION]: "listen-1" },
      notifications: { resourceSubscriptions: ["toolhost://tasks"] },
    });
    await client.request(
      "tools/call",
      modern({ name: "tasks", arguments: { action: "create", text: "Tagged" } }),
    );
    const update = await client.waitFor(updatedFor("toolhost://tasks"), 5000, "the update");
    assert.deepEqual(update.params, {
      uri: "toolhost://tasks",
      _meta: { [SUBSCRIPTION]: "listen-1" },
    });
    // Nothing unasked: no list changes, no other resources.
    assert.ok(
      client.messages.every((m) =>
        !m.method?.endsWith("/list_changed") &&
        (m.method !== "notifications/resources/updated" || m.params?.uri === "toolhost://tasks")
      ),
    );
    client.closeStdin();
    const end = await client.responseTo("listen-1", 5000);
    assert.equal(end.result?.resultType, "complete");
    assert.equal((end.result?._meta as Record<string, unknown>)[SUBSCRIPTION], "listen-1");
    assert.equal((await client.exited).code, 0);
  } finally {
    await client.close();
  }
});

test("list changes over stdio: a background process appears in resources/list, told in both eras", async () => {
  const root = project();
  const legacy = e2e.server({ args: ["--root", root] });
  const modernClient = e2e.server({ args: ["--root", root] });
  const listChanged = (m: Message) => m.method === "notifications/resources/list_changed";
  try {
    await legacy.initialize();
    await legacy.request("tools/call", {
      name: "bash_background",
      arguments: { command: "sleep 30" },
    });
    const told = await legacy.waitFor(listChanged, 5000, "resources/list_changed");
    assert.deepEqual(told.params ?? {}, {});
    const listed = await legacy.request("resources/list");
    assert.ok(
      (listed.result?.resources as { uri: string }[]).some((r) =>
        /^toolhost:\/\/processes\/p\d+\/output$/.test(r.uri)
      ),
    );

    modernClient.start(
      "subscriptions/listen",
      modern({ notifications: { resourcesListChanged: true, promptsListChanged: true } }),
      "lists",
    );
    const ack = await modernClient.waitFor(
      (m) => m.method === "notifications/subscriptions/acknowledged",
    );
    assert.deepEqual(
      (ack.params as { notifications: unknown }).notifications,
      { resourcesListChanged: true, promptsListChanged: true },
    );
    await modernClient.request(
      "tools/call",
      modern({ name: "bash_background", arguments: { command: "sleep 30" } }),
    );
    const tagged = await modernClient.waitFor(listChanged, 5000, "a tagged list change");
    assert.deepEqual(tagged.params, { _meta: { [SUBSCRIPTION]: "lists" } });
  } finally {
    await legacy.close();
    await modernClient.close();
  }
});

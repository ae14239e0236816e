/**
 * 2026-07-28 task status notifications against the compiled dist/toolhost: subscriptions/listen
 * with notifications.taskIds, as raw JSON lines over stdio and raw requests over Streamable HTTP.
 * The official client (2.4.0) is driven too, as far as it goes: it can open such a stream but
 * cannot take a task result itself, so a raw request starts the task. Each task is a bash call that waits for a file the test creates, so no step depends on timing.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";
import { postModern, SseReader, startHttpServer } from "../helpers/http_server.ts";
import { MAX_LISTENERS_PER_TASK } from "../../mcp/tool/tasks/watchers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const TASKS = {
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};
const SUBSCRIPTION = "io.modelcontextprotocol/subscriptionId";

/** A bash command that ends (printing `word`) once release() is called. */
function gate(word: string) {
  const file = join(e2e.scratch("gate"), "open");
  return {
    command: `while [ ! -e '${file}' ]; do sleep 0.05; done; echo ${word}`,
    release: () => writeFileSync(file, ""),
  };
}

const paramsOf = (m: Message | Record<string, unknown> | undefined) =>
  (m as { params?: Record<string, unknown> } | undefined)?.params ?? {};
const subscriptionOf = (m: Message | Record<string, unknown> | undefined) =>
  (paramsOf(m)._meta as Record<string, unknown> | undefined)?.[SUBSCRIPTION];
const withoutMeta = (m: Message | Record<string, unknown> | undefined) => {
  const { _meta: _, ...rest } = paramsOf(m);
  return rest;
};
const detailed = (result: unknown) => {
  const { resultType: _r, _meta: _m, ...task } = result as Record<string, unknown>;
  return task;
};

async function startTask(client: RawClient, command: string): Promise<string> {
  const created = await client.request(
    "tools/call",
    modern({ name: "bash", arguments: { command } }, TASKS),
  );
  const result = created.result as Record<string, unknown>;
  assert.equal(result.resultType, "task", JSON.stringify(created));
  return result.taskId as string;
}

test("stdio: -32021 without the extension; the acknowledged task is told now and at its end, as tasks/get shows it", async () => {
  const client = e2e.server();
  try {
    const first = gate("released-one");
    const taskId = await startTask(client, first.command);

    const refused = await client.request("subscriptions/listen", {
      ...modern({}),
      notifications: { taskIds: [taskId] },
    });
    assert.equal(refused.error?.code, -32021, JSON.stringify(refused));

    // 100,000 ids (a 4 MB line) are refused by their count, before any is looked up.
    const flood = Array.from({ length: 100_000 }, (_, i) => `${taskId}-${i}`);
    const tooMany = await client.request(
      "subscriptions/listen",
      modern({ notifications: { taskIds: flood } }, TASKS),
    );
    assert.equal(tooMany.error?.code, -32602);
    assert.match(String(tooMany.error?.message), /at most 256/);

    client.start(
      "subscriptions/listen",
      modern({ notifications: { taskIds: [taskId, "no-such-task"] } }, TASKS),
      "sub",
    );
    const ack = await client.waitFor((m) =>
      m.method === "notifications/subscriptions/acknowledged" && subscriptionOf(m) === "sub"
    );
    assert.deepEqual(paramsOf(ack).notifications, { taskIds: [taskId] });
    const now = await client.waitFor((m) =>
      m.method === "notifications/tasks" && subscriptionOf(m) === "sub"
    );
    assert.equal(paramsOf(now).status, "working");
    assert.equal(paramsOf(now).taskId, taskId);

    first.release();
    const end = await client.waitFor((m) =>
      m.method === "notifications/tasks" && subscriptionOf(m) === "sub" &&
      paramsOf(m).status === "completed"
    );
    assert.match(JSON.stringify(paramsOf(end).result), /released-one/);
    const got = await client.request("tasks/get", modern({ taskId }, TASKS));
    assert.deepEqual(withoutMeta(end), detailed(got.result), "identical to tasks/get");

    const onStream = client.messages.filter((m) => subscriptionOf(m) === "sub");
    assert.deepEqual(
      onStream.map((m) => [m.method, paramsOf(m).status]),
      [
        ["notifications/subscriptions/acknowledged", undefined],
        ["notifications/tasks", "working"],
        ["notifications/tasks", "completed"],
      ],
      "nothing but the task's states on its stream (no progress, no log messages)",
    );
    assert.equal(client.messages.some((m) => m.id === "sub"), false, "the stream stays open");

    // End of input while a second task runs: its last notification says cancelled, then the
    // stream ends with its graceful reply.
    const second = gate("never");
    const other = await startTask(client, second.command);
    client.start(
      "subscriptions/listen",
      modern({ notifications: { taskIds: [other] } }, TASKS),
      "sub-2",
    );
    await client.waitFor((m) =>
      m.method === "notifications/tasks" && subscriptionOf(m) === "sub-2"
    );
    client.closeStdin();
    const reply = await client.responseTo("sub-2");
    const stream = client.messages.filter((m) => subscriptionOf(m) === "sub-2");
    assert.equal(paramsOf(stream.at(-1)).status, "cancelled", JSON.stringify(stream));
    assert.equal(
      ((reply.result as Record<string, unknown>)._meta as Record<string, unknown>)[SUBSCRIPTION],
      "sub-2",
    );
    const status = await client.exited;
    assert.equal(status.code, 0);
    assert.deepEqual(client.strayLines, []);
  } finally {
    await client.close();
  }
});

test("HTTP: a listen stream gets the acknowledgement, the task now and its end; -32021 without the extension", async () => {
  const server = await startHttpServer(PRODUCT_BINARY);
  try {
    const work = gate("released-over-http");
    const created = await postModern(server.url, 1, "tools/call", {
      name: "bash",
      arguments: { command: work.command },
      _meta: TASKS,
    });
    const task = await created.json() as { result: Record<string, unknown> };
    assert.equal(task.result.resultType, "task", JSON.stringify(task));
    const taskId = task.result.taskId as string;

    const refused = await postModern(server.url, 2, "subscriptions/listen", {
      notifications: { taskIds: [taskId] },
    });
    const refusedText = await refused.text();
    assert.match(refusedText, /"code":-32021/);

    const listening = await postModern(server.url, "listen", "subscriptions/listen", {
      notifications: { taskIds: [taskId, "other-scope-or-unknown"] },
      _meta: TASKS,
    });
    assert.equal(listening.status, 200);
    const stream = new SseReader(listening);
    const ack = await stream.next();
    assert.equal(ack?.method, "notifications/subscriptions/acknowledged", JSON.stringify(ack));
    assert.equal(subscriptionOf(ack), "listen");
    assert.deepEqual(paramsOf(ack).notifications, { taskIds: [taskId] });
    const now = await stream.next();
    assert.equal(now?.method, "notifications/tasks");
    assert.equal(paramsOf(now).status, "working");

    work.release();
    const end = await stream.next(10_000);
    assert.equal(end?.method, "notifications/tasks", JSON.stringify(end));
    assert.equal(subscriptionOf(end), "listen");
    assert.equal(paramsOf(end).status, "completed");
    const got = await postModern(
      server.url,
      3,
      "tasks/get",
      { taskId, _meta: TASKS },
      { "mcp-name": taskId },
    );
    const body = await got.json() as { result: unknown };
    assert.deepEqual(withoutMeta(end), detailed(body.result), "identical to tasks/get");
    await stream.cancel();
  } finally {
    const status = await server.terminate();
    assert.equal(server.stdout(), "");
    assert.equal(status.code, 0, server.stderr());
  }
});

test("HTTP: a client that closes its stream stops listening; a task takes a bounded number of streams", async () => {
  const server = await startHttpServer(PRODUCT_BINARY);
  const work = gate("bounded");
  try {
    const created = await postModern(server.url, 1, "tools/call", {
      name: "bash",
      arguments: { command: work.command },
      _meta: TASKS,
    });
    const taskId = ((await created.json()) as { result: { taskId: string } }).result.taskId;
    const open = async (id: string) => {
      const response = await postModern(server.url, id, "subscriptions/listen", {
        notifications: { taskIds: [taskId] },
        _meta: TASKS,
      });
      const reader = new SseReader(response);
      const ack = await reader.next();
      return { reader, granted: (paramsOf(ack).notifications as { taskIds: string[] }).taskIds };
    };
    const streams = [];
    for (let i = 0; i < MAX_LISTENERS_PER_TASK; i++) {
      const stream = await open(`s${i}`);
      assert.deepEqual(stream.granted, [taskId]);
      streams.push(stream);
    }
    const over = await open("over");
    assert.deepEqual(over.granted, [], "past the limit the task is not acknowledged");
    await over.reader.cancel();

    // A client vanishes: its stream's listener goes, so a new stream has room again.
    await streams[0].reader.cancel();
    let again: string[] = [];
    for (let attempt = 0; attempt < 50 && again.length === 0; attempt++) {
      const stream = await open(`again-${attempt}`);
      again = stream.granted;
      if (again.length === 0) {
        await stream.reader.cancel();
        await new Promise((resolve) => setTimeout(resolve, 100));
      } else streams.push(stream);
    }
    assert.deepEqual(again, [taskId]);
    work.release();
    const last = streams.at(-1)!.reader;
    let end: Record<string, unknown> | undefined;
    do end = await last.next(10_000); while (paramsOf(end).status !== "completed");
    assert.match(JSON.stringify(paramsOf(end).result), /bounded/);
    for (const stream of streams.slice(1)) await stream.reader.cancel();
  } finally {
    work.release();
    const status = await server.terminate();
    assert.equal(status.code, 0, server.stderr());
  }
});

test("HTTP: the official client's listen() with taskIds receives notifications/tasks through to the end", async () => {
  const server = await startHttpServer(PRODUCT_BINARY);
  const work = gate("heard-by-the-sdk");
  const client = new Client({ name: "task-notifications-sdk", version: "1.0.0" }, {
    versionNegotiation: { mode: { pin: "2026-07-28" } },
    capabilities: { extensions: { "io.modelcontextprotocol/tasks": {} } },
  });
  try {
    // Its callTool refuses resultType "task" (2.4.0), so the task comes from a raw request.
    const created = await postModern(server.url, 1, "tools/call", {
      name: "bash",
      arguments: { command: work.command },
      _meta: TASKS,
    });
    const taskId = ((await created.json()) as { result: { taskId: string } }).result.taskId;
    const heard: Record<string, unknown>[] = [];
    let ended!: () => void;
    const end = new Promise<void>((resolve) => ended = resolve);
    // Its types know no notifications/tasks; the fallback handler gets them.
    client.fallbackNotificationHandler = (notification) => {
      heard.push(notification as Record<string, unknown>);
      if (paramsOf(notification).status === "completed") ended();
      return Promise.resolve();
    };
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    // SubscriptionFilter in 2.4.0 has no taskIds field, but the client sends the filter as given.
    const subscription = await client.listen({ taskIds: [taskId] } as Record<string, unknown>);
    work.release();
    await end;
    assert.deepEqual(heard.map((n) => [n.method, paramsOf(n).taskId, paramsOf(n).status]), [
      ["notifications/tasks", taskId, "working"],
      ["notifications/tasks", taskId, "completed"],
    ]);
    assert.match(JSON.stringify(paramsOf(heard[1]).result), /heard-by-the-sdk/);
    await subscription.close();
  } finally {
    work.release();
    await client.close();
    const status = await server.terminate();
    assert.equal(status.code, 0, server.stderr());
  }
});

test("HTTP: on SIGTERM a watched task's last notification says cancelled, then the stream's closing reply", async () => {
  const server = await startHttpServer(PRODUCT_BINARY);
  const work = gate("never-over-http");
  let stopped = false;
  try {
    const created = await postModern(server.url, 1, "tools/call", {
      name: "bash",
      arguments: { command: work.command },
      _meta: TASKS,
    });
    const taskId = ((await created.json()) as { result: { taskId: string } }).result.taskId;
    const listening = await postModern(server.url, "bye", "subscriptions/listen", {
      notifications: { taskIds: [taskId] },
      _meta: TASKS,
    });
    const stream = new SseReader(listening);
    assert.equal((await stream.next())?.method, "notifications/subscriptions/acknowledged");
    assert.equal(paramsOf(await stream.next()).status, "working");
    const exit = server.terminate();
    stopped = true;
    const last = await stream.next();
    assert.equal(last?.method, "notifications/tasks", JSON.stringify(last));
    assert.equal(paramsOf(last).status, "cancelled");
    const reply = await stream.next();
    assert.equal(reply?.id, "bye", JSON.stringify(reply));
    assert.equal((reply?.result as Record<string, unknown>).resultType, "complete");
    assert.equal((await exit).code, 0, server.stderr());
  } finally {
    work.release();
    if (!stopped) await server.terminate();
  }
});

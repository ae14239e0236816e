/**
 * Tasks against the compiled dist/toolhost over stdio: the 2025-11-25 utility (params.task,
 * tasks/get, tasks/result, tasks/list, tasks/cancel, status notifications) driven by the official
 * SDK client and by raw lines, and the 2026-07-28 extension (server-directed tasks, tasks/get with
 * the result inline, ack-only cancel) by raw lines.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { CallToolResultSchema } from "@modelcontextprotocol/sdk/types.js";
import { e2eFixture } from "../helpers/e2e.ts";
import {
  binary,
  isolatedEnv,
  type Message,
  modern,
  PRODUCT_BINARY,
  RawClient,
  ROOT,
} from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const TASKS = {
  "io.modelcontextprotocol/clientCapabilities": {
    extensions: { "io.modelcontextprotocol/tasks": {} },
  },
};

async function legacy(): Promise<RawClient> {
  const client = e2e.server();
  const init = await client.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "tasks-e2e", version: "1" },
  });
  assert.deepEqual((init.result as Record<string, unknown>).capabilities, {
    ...(init.result as { capabilities: Record<string, unknown> }).capabilities,
    tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
  });
  client.notify("notifications/initialized");
  return client;
}

function resultOf(reply: Message): Record<string, unknown> {
  assert.ok(reply.result, JSON.stringify(reply));
  return reply.result as Record<string, unknown>;
}

test("2025-11-25: the SDK client runs bash as a task and gets its result through the task", async () => {
  const client = new Client({ name: "tasks-sdk", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: binary(PRODUCT_BINARY),
    cwd: ROOT,
    env: isolatedEnv(),
    stderr: "pipe",
  });
  await client.connect(transport);
  try {
    assert.ok(client.getServerCapabilities()?.tasks, "tasks are offered");
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    assert.equal(support.bash, "optional");
    assert.equal(support.grep, "optional");
    assert.equal(support.bash_background, undefined, "a tool that returns at once is no task");
    assert.equal(support.edit_file, undefined);
    const seen: string[] = [];
    let text = "";
    for await (
      const message of client.experimental.tasks.callToolStream(
        { name: "bash", arguments: { command: "sleep 0.3; echo from-a-task" } },
        CallToolResultSchema,
        { task: { ttl: 60_000 } },
      )
    ) {
      seen.push(message.type);
      if (message.type === "result") {
        text = (message.result.content as { text: string }[])[0].text;
      }
      if (message.type === "error") throw message.error;
    }
    assert.equal(seen[0], "taskCreated");
    assert.equal(seen.at(-1), "result");
    assert.match(text, /from-a-task/);
  } finally {
    await client.close();
  }
});

test("2025-11-25 raw: a task answers at once, tasks/result waits for the end, tasks/list is newest first, cancel kills and cannot be repeated", async () => {
  const client = await legacy();
  try {
    const created = resultOf(
      await client.request("tools/call", {
        name: "bash",
        arguments: { command: "sleep 0.5; echo done" },
        task: { ttl: 30_000 },
        _meta: { progressToken: "p1" },
      }),
    );
    const task = created.task as Record<string, unknown>;
    assert.equal(task.status, "working");
    assert.equal(task.ttl, 30_000);
    assert.equal(typeof task.pollInterval, "number");
    assert.match(String(task.createdAt), /^\d{4}-\d\d-\d\dT/);

    const final = resultOf(await client.request("tasks/result", { taskId: task.taskId }));
    assert.match(JSON.stringify(final.content), /done/);
    assert.deepEqual(final._meta, {
      "io.modelcontextprotocol/related-task": { taskId: task.taskId },
    });
    const status = await client.waitFor((m) =>
      m.method === "notifications/tasks/status" &&
      (m.params as Record<string, unknown>).status === "completed"
    );
    assert.equal((status.params as Record<string, unknown>).taskId, task.taskId);

    const long = resultOf(
      await client.request("tools/call", {
        name: "bash",
        arguments: { command: "sleep 30" },
        task: {},
      }),
    ).task as Record<string, unknown>;
    const listed = resultOf(await client.request("tasks/list", {}));
    assert.deepEqual(
      (listed.tasks as Record<string, unknown>[]).map((t) => t.taskId),
      [long.taskId, task.taskId],
    );
    const cancelled = resultOf(await client.request("tasks/cancel", { taskId: long.taskId }));
    assert.equal(cancelled.status, "cancelled");
    const again = await client.request("tasks/cancel", { taskId: long.taskId });
    assert.equal(again.error?.code, -32602, "a finished task cannot be cancelled");
    const after = resultOf(await client.request("tasks/get", { taskId: long.taskId }));
    assert.equal(after.status, "cancelled");

    // A tool that makes no sense as a task refuses one.
    const refused = await client.request("tools/call", {
      name: "bash_list",
      arguments: {},
      task: {},
    });
    assert.equal(refused.error?.code, -32601);
    const unknown = await client.request("tasks/get", { taskId: "no-such-task" });
    assert.equal(unknown.error?.code, -32602);
    assert.deepEqual(client.strayLines, []);
  } finally {
    await client.close();
  }
});

test("2025-11-25 raw: a task expires at its ttl, its work stopped", async () => {
  const client = await legacy();
  try {
    const task = resultOf(
      await client.request("tools/call", {
        name: "bash",
        arguments: { command: "sleep 30" },
        task: { ttl: 1000 },
      }),
    ).task as Record<string, unknown>;
    await sleep(1300);
    const gone = await client.request("tasks/get", { taskId: task.taskId });
    assert.equal(gone.error?.code, -32602);
    assert.match(String(gone.error?.message), /expired/);
  } finally {
    await client.close();
  }
});

test("2026-07-28 raw: a long call becomes a task with its result inline; a quick one answers directly; cancel is an ack", async () => {
  const client = e2e.server();
  try {
    // A call done within the grace (300 ms) answers directly. A loaded machine can stretch even
    // a list past it once; of a few, one is quick whatever the load.
    let quick: Record<string, unknown> = {};
    for (let i = 0; i < 5 && quick.resultType !== "complete"; i++) {
      quick = resultOf(
        await client.request("tools/call", modern({ name: "list_roots", arguments: {} }, TASKS)),
      );
      assert.ok(["complete", "task"].includes(quick.resultType as string));
    }
    assert.equal(quick.resultType, "complete");
    assert.ok(Array.isArray(quick.content));

    const created = resultOf(
      await client.request(
        "tools/call",
        modern({ name: "bash", arguments: { command: "sleep 1; echo slow" } }, TASKS),
      ),
    );
    assert.equal(created.resultType, "task");
    assert.equal(typeof created.ttlMs, "number");
    assert.equal(created.ttl, undefined);
    let task: Record<string, unknown> = created;
    for (let i = 0; i < 50 && task.status === "working"; i++) {
      await sleep(100);
      task = resultOf(
        await client.request("tasks/get", modern({ taskId: created.taskId }, TASKS)),
      );
    }
    assert.equal(task.status, "completed");
    assert.match(JSON.stringify(task.result), /slow/);

    // Without the extension the same call waits for its result.
    const direct = resultOf(
      await client.request(
        "tools/call",
        modern({ name: "bash", arguments: { command: "sleep 0.5; echo direct" } }),
      ),
    );
    assert.equal(direct.resultType, "complete");
    const gated = await client.request("tasks/get", modern({ taskId: created.taskId }));
    assert.equal(gated.error?.code, -32021);

    const long = resultOf(
      await client.request(
        "tools/call",
        modern({ name: "bash", arguments: { command: "sleep 30" } }, TASKS),
      ),
    );
    for (let i = 0; i < 2; i++) {
      const ack = resultOf(
        await client.request("tasks/cancel", modern({ taskId: long.taskId }, TASKS)),
      );
      assert.deepEqual(Object.keys(ack).sort(), ["_meta", "resultType"]);
    }
    const after = resultOf(
      await client.request("tasks/get", modern({ taskId: long.taskId }, TASKS)),
    );
    assert.equal(after.status, "cancelled");
    const removed = await client.request("tasks/result", modern({ taskId: long.taskId }, TASKS));
    assert.equal(removed.error?.code, -32601);
  } finally {
    await client.close();
  }
});

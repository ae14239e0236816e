/**
 * 2026-07-28 task status notifications, in process: subscriptions/listen with
 * notifications.taskIds needs the tasks extension (-32021), acknowledges only the process's
 * known tasks, then sends each task as tasks/get would show it, through to its terminal status;
 * lists too long are refused, listeners go with the stream, and a task takes a bounded number.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defineTool } from "../../mcp/tool/mod.ts";
import { MAX_LISTEN_TASK_IDS } from "../../mcp/tool/tasks/listen.ts";
import { MAX_LISTENERS_PER_TASK } from "../../mcp/tool/tasks/watchers.ts";
import { type Harness, harness, initializeParams, tick } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const EXTENSION = "io.modelcontextprotocol/tasks";
const CAPS = "io.modelcontextprotocol/clientCapabilities";
const declaring = (params: Record<string, unknown> = {}) =>
  modern(params, { [CAPS]: { elicitation: {}, extensions: { [EXTENSION]: {} } } });

/** A tool that always runs as a task and ends when the test says so (or asks first). */
function setup() {
  const gates: ((text: string) => void)[] = [];
  const slow = defineTool({
    name: "slow",
    description: "Ends when the test opens its gate.",
    taskSupport: "required",
    input: {
      type: "object",
      properties: { ask: { type: "boolean" }, askTwo: { type: "boolean" } },
      additionalProperties: false,
    },
    async run(args, ctx) {
      if (args.askTwo) {
        const form = (message: string) => ({
          elicit: {
            message,
            requestedSchema: {
              type: "object" as const,
              properties: { v: { type: "string" as const } },
            },
          },
        });
        const answers = await ctx.ask({ first: form("1?"), second: form("2?") });
        return `answered ${Object.keys(answers).sort().join(",")}`;
      }
      if (args.ask) {
        const answer = await ctx.elicit({
          message: "name?",
          requestedSchema: { type: "object", properties: { name: { type: "string" } } },
        });
        return `hello ${(answer.content as { name?: string } | undefined)?.name}`;
      }
      return await new Promise<string>((resolve) => gates.push(resolve));
    },
  });
  return { h: harness([slow]), gates };
}

async function startTask(
  h: Harness,
  id: string,
  ask = false,
  askTwo = false,
): Promise<string> {
  const reply = await h.request(
    id,
    "tools/call",
    declaring({ name: "slow", arguments: { ask, askTwo } }),
  );
  const result = reply.result as Record<string, unknown>;
  assert.equal(result.resultType, "task", JSON.stringify(reply));
  return result.taskId as string;
}

function listen(h: Harness, id: string | number, notifications: Record<string, unknown>) {
  h.line({
    jsonrpc: "2.0",
    id,
    method: "subscriptions/listen",
    params: declaring({ notifications }),
  });
}

const onStream = (h: Harness, id: string | number) =>
  h.sent.filter((m): m is Message =>
    !Array.isArray(m) &&
    (m.params as { _meta?: Record<string, unknown> } | undefined)?._meta
        ?.["io.modelcontextprotocol/subscriptionId"] === id
  );

/** What tasks/get answers now, without the fields every result carries. */
async function taskNow(h: Harness, id: string, taskId: string) {
  const reply = await h.request(id, "tasks/get", declaring({ taskId }));
  const { resultType: _r, _meta: _m, ...task } = reply.result as Record<string, unknown>;
  return task;
}

const withoutMeta = (m: Message) => {
  const { _meta: _, ...params } = m.params as Record<string, unknown>;
  return params;
};

test("a client without the tasks extension asking for taskIds gets -32021 and nothing is acknowledged", async () => {
  const { h } = setup();
  const reply = await h.request(1, "subscriptions/listen", {
    ...modern({}),
    notifications: { taskIds: ["anything"], toolsListChanged: true },
  });
  assert.equal(reply.error?.code, -32021);
  assert.deepEqual(reply.error?.data, {
    requiredCapabilities: { extensions: { [EXTENSION]: {} } },
  });
  assert.equal(h.notifications("notifications/subscriptions/acknowledged").length, 0);
});

test("the acknowledgement lists only known tasks; each is sent as tasks/get shows it, until it ends", async () => {
  const { h, gates } = setup();
  const taskId = await startTask(h, "call-1");
  listen(h, "sub", { taskIds: [taskId, "no-such-task", taskId] });
  await tick();
  const stream = onStream(h, "sub");
  assert.equal(stream[0].method, "notifications/subscriptions/acknowledged");
  assert.deepEqual((stream[0].params as Record<string, unknown>).notifications, {
    taskIds: [taskId],
  });
  // The task as it is now comes right after the acknowledgement.
  assert.equal(stream[1].method, "notifications/tasks");
  assert.deepEqual(withoutMeta(stream[1]), await taskNow(h, "get-1", taskId));
  assert.equal((stream[1].params as Record<string, unknown>).status, "working");

  gates[0]("finished");
  await tick();
  const last = onStream(h, "sub").at(-1)!;
  assert.equal(last.method, "notifications/tasks");
  const final = withoutMeta(last);
  assert.equal(final.status, "completed");
  assert.deepEqual(final, await taskNow(h, "get-2", taskId), "identical to tasks/get");
  assert.deepEqual((final.result as { content: unknown }).content, [
    { type: "text", text: "finished" },
  ]);
  assert.ok(
    onStream(h, "sub").every((m) =>
      m.method === "notifications/tasks" || m.method === "notifications/subscriptions/acknowledged"
    ),
    "nothing but task states (no progress, no log messages) on the stream",
  );
  assert.equal(h.server.inFlight, 1, "the stream stays open after the task ended");
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sub" } });
  await tick();
  assert.equal(h.server.inFlight, 0);
});

test("a task that ended before the stream opened is acknowledged and told once, with its result", async () => {
  const { h, gates } = setup();
  const taskId = await startTask(h, "call-1");
  // The task is answered for at once; its tool starts once its arguments are checked.
  for (let i = 0; i < 100 && gates.length === 0; i++) await tick();
  gates[0]("early");
  await tick();
  listen(h, 5, { taskIds: [taskId] });
  await tick();
  const stream = onStream(h, 5);
  assert.equal(stream.length, 2);
  assert.deepEqual(withoutMeta(stream[1]), await taskNow(h, "get", taskId));
  assert.equal((stream[1].params as Record<string, unknown>).status, "completed");
});

test("questions are told as input_required with inputRequests; answers and cancel follow", async () => {
  const { h } = setup();
  const taskId = await startTask(h, "call-1", true);
  listen(h, "sub", { taskIds: [taskId] });
  await tick();
  const asking = onStream(h, "sub").filter((m) =>
    (m.params as Record<string, unknown>).status === "input_required"
  );
  assert.equal(asking.length, 1);
  const requests = (asking[0].params as Record<string, unknown>).inputRequests as Record<
    string,
    unknown
  >;
  const [key] = Object.keys(requests);
  assert.deepEqual(withoutMeta(asking[0]), await taskNow(h, "get-1", taskId));

  await h.request(
    "update",
    "tasks/update",
    declaring({
      taskId,
      inputResponses: { [key]: { action: "accept", content: { name: "Ada" } } },
    }),
  );
  await tick(50);
  const last = withoutMeta(onStream(h, "sub").at(-1)!);
  assert.equal(last.status, "completed");
  assert.match(JSON.stringify(last.result), /hello Ada/);

  // A second task, cancelled: its final notification says so.
  const other = await startTask(h, "call-2");
  listen(h, "sub-2", { taskIds: [other] });
  await tick();
  await h.request("cancel", "tasks/cancel", declaring({ taskId: other }));
  await tick();
  const cancelled = withoutMeta(onStream(h, "sub-2").at(-1)!);
  assert.equal(cancelled.status, "cancelled");
  assert.deepEqual(cancelled, await taskNow(h, "get-2", other));
});

test("a legacy session's task id is not acknowledged on a 2026-07-28 stream", async () => {
  const { h, gates } = setup();
  await h.request("init", "initialize", initializeParams("2025-11-25"));
  const created = await h.request("legacy-call", "tools/call", {
    name: "slow",
    arguments: {},
    task: {},
  });
  const legacyId = ((created.result as Record<string, unknown>).task as { taskId: string })
    .taskId;
  listen(h, "sub", { taskIds: [legacyId] });
  await tick();
  const stream = onStream(h, "sub");
  assert.deepEqual((stream[0].params as Record<string, unknown>).notifications, { taskIds: [] });
  assert.equal(stream.length, 1);
  gates[0]("done");
});

test("taskIds must be a list of at most MAX_LISTEN_TASK_IDS strings", async () => {
  const { h } = setup();
  const many = Array.from({ length: 100_000 }, (_, i) => `task-${i}`);
  const tooMany = await h.request(
    1,
    "subscriptions/listen",
    declaring({
      notifications: { taskIds: many },
    }),
  );
  assert.equal(tooMany.error?.code, -32602);
  assert.match(tooMany.error!.message, new RegExp(`at most ${MAX_LISTEN_TASK_IDS}`));
  const notList = await h.request(
    2,
    "subscriptions/listen",
    declaring({
      notifications: { taskIds: "abc" },
    }),
  );
  assert.equal(notList.error?.code, -32602);
  const notStrings = await h.request(
    3,
    "subscriptions/listen",
    declaring({
      notifications: { taskIds: [1, 2] },
    }),
  );
  assert.equal(notStrings.error?.code, -32602);
  assert.equal(h.notifications("notifications/subscriptions/acknowledged").length, 0);
  // At the limit it is taken (none of these exist).
  listen(h, 4, { taskIds: many.slice(0, MAX_LISTEN_TASK_IDS) });
  await tick();
  assert.deepEqual((onStream(h, 4)[0].params as Record<string, unknown>).notifications, {
    taskIds: [],
  });
});

test("a task takes a bounded number of streams; a stream's listeners go when it is cancelled", async () => {
  const { h, gates } = setup();
  const taskId = await startTask(h, "call");
  for (let i = 0; i < MAX_LISTENERS_PER_TASK + 1; i++) listen(h, `sub-${i}`, { taskIds: [taskId] });
  await tick();
  const acknowledged = (i: number) =>
    (onStream(h, `sub-${i}`)[0].params as { notifications: { taskIds: string[] } }).notifications
      .taskIds;
  assert.deepEqual(acknowledged(0), [taskId]);
  assert.deepEqual(acknowledged(MAX_LISTENERS_PER_TASK - 1), [taskId]);
  assert.deepEqual(acknowledged(MAX_LISTENERS_PER_TASK), [], "past the limit: not acknowledged");

  // Cancelling one stream makes room for another.
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "sub-0" } });
  await tick();
  listen(h, "late", { taskIds: [taskId] });
  await tick();
  assert.deepEqual(
    (onStream(h, "late")[0].params as { notifications: { taskIds: string[] } }).notifications
      .taskIds,
    [taskId],
  );
  const before = onStream(h, "sub-0").length;
  gates[0]("end");
  await tick();
  assert.equal(onStream(h, "sub-0").length, before, "a cancelled stream hears nothing more");
  assert.equal(onStream(h, "late").at(-1)!.method, "notifications/tasks");
});

test("a server without task tools leaves taskIds out of the acknowledgement, whoever asks", async () => {
  const h = harness([]);
  h.line({
    jsonrpc: "2.0",
    id: 1,
    method: "subscriptions/listen",
    params: { ...modern({}), notifications: { taskIds: ["x"], toolsListChanged: true } },
  });
  await tick();
  const ack = onStream(h, 1)[0];
  assert.equal(ack.method, "notifications/subscriptions/acknowledged");
  assert.equal("taskIds" in (ack.params as { notifications: object }).notifications, false);
});

test("a partial answer is told: still input_required, with only the open question left", async () => {
  const { h } = setup();
  const taskId = await startTask(h, "call", false, true);
  listen(h, "sub", { taskIds: [taskId] });
  await tick();
  const open = () =>
    onStream(h, "sub").filter((m) =>
      (m.params as Record<string, unknown>).status === "input_required"
    ).map((m) => Object.keys((m.params as { inputRequests: object }).inputRequests));
  assert.equal(open().length, 1);
  const keys = open()[0];
  assert.equal(keys.length, 2);
  await h.request(
    "u1",
    "tasks/update",
    declaring({
      taskId,
      inputResponses: { [keys[0]]: { action: "accept", content: { v: "a" } } },
    }),
  );
  await tick();
  assert.deepEqual(open().at(-1), [keys[1]]);
  assert.deepEqual(withoutMeta(onStream(h, "sub").at(-1)!), await taskNow(h, "get", taskId));
  await h.request(
    "u2",
    "tasks/update",
    declaring({
      taskId,
      inputResponses: { [keys[1]]: { action: "accept", content: { v: "b" } } },
    }),
  );
  await tick(50);
  const last = withoutMeta(onStream(h, "sub").at(-1)!);
  assert.equal(last.status, "completed");
  assert.match(JSON.stringify(last.result), /answered first,second/);
});

/** set_callback in-process: timers that fire, reminders that ride on the next result once. */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ContentBlock } from "../mcp/tool.ts";
import setCallback from "../tools/set_callback.ts";
import { Callbacks, MAX_PENDING } from "../tools/_lib/callbacks.ts";
import { toolHooks } from "../tools/_lib/hooks.ts";
import { callTool } from "./helpers/file_tools.ts";
import { tick } from "./helpers/in_process.ts";

/** A registry whose announcements are recorded. */
function registry() {
  const announced: string[] = [];
  return { callbacks: new Callbacks((line) => announced.push(line)), announced };
}

test("set gives ids and fire times; list shows the pending ones, the next first; cancel removes one", () => {
  const { callbacks } = registry();
  const before = Date.now();
  const late = callbacks.set("later", 600, 1);
  const soon = callbacks.set("sooner", 60, 3);
  assert.deepEqual([late.id, soon.id], ["cb1", "cb2"]);
  const fireAt = Date.parse(soon.nextFireAt!);
  assert.ok(fireAt >= before + 60_000 && fireAt <= Date.now() + 60_000, String(fireAt));
  assert.deepEqual(callbacks.list().map((c) => [c.id, c.repeatCount, c.fired]), [
    ["cb2", 3, 0],
    ["cb1", 1, 0],
  ]);
  assert.deepEqual(callbacks.cancel("cb2"), {
    id: "cb2",
    message: "sooner",
    delaySeconds: 60,
    repeatCount: 3,
    fired: 0,
  });
  assert.deepEqual(callbacks.list().map((c) => c.id), ["cb1"]);
  assert.throws(() => callbacks.cancel("cb2"), /no pending callback is called "cb2".*pending: cb1/);
  callbacks.cancel("cb1");
  assert.throws(() => callbacks.cancel("cb1"), /none is pending/);
});

test(`at most ${MAX_PENDING} callbacks are pending at once`, () => {
  const { callbacks } = registry();
  for (let i = 0; i < MAX_PENDING; i++) callbacks.set(`m${i}`, 3600, 1);
  assert.throws(() => callbacks.set("one more", 1, 1), /50 callbacks are pending already/);
  for (const { id } of callbacks.list()) callbacks.cancel(id);
  assert.equal(callbacks.set("room again", 3600, 1).id, `cb${MAX_PENDING + 1}`);
  callbacks.cancel(`cb${MAX_PENDING + 1}`);
});

test("a callback that fires is announced, then reminded once", async () => {
  const { callbacks, announced } = registry();
  callbacks.set("check the build", 1, 1);
  assert.equal(callbacks.takeReminders(), undefined);
  await tick(1200);
  assert.deepEqual(announced, ["⏰ cb1: check the build"]);
  assert.deepEqual(callbacks.list(), [], "it fired for the last time");
  assert.match(
    callbacks.takeReminders()!,
    /^⏰ Reminder from set_callback cb1 \(set [12] s ago(?:; fired \d s ago)?\): check the build$/,
  );
  assert.equal(callbacks.takeReminders(), undefined);
});

test("firings nobody saw yet come as one reminder that counts them", async () => {
  const { callbacks, announced } = registry();
  callbacks.set("poll the server", 1, 3);
  await tick(2300);
  assert.deepEqual(announced, [
    "⏰ cb1 (1 of 3): poll the server",
    "⏰ cb1 (2 of 3): poll the server",
  ]);
  assert.match(
    callbacks.takeReminders()!,
    /^⏰ Reminder from set_callback cb1 \(set [23] s ago; fired 2 times since the last reminder; (?:last fired \d s ago; )?2 of 3 so far\): poll the server$/,
  );
  assert.equal(callbacks.list()[0].fired, 2);
  callbacks.cancel("cb1");
});

test("the tool: set, list and cancel, with results that match its output schema", async () => {
  const set = await callTool(setCallback, [], {
    action: "set",
    message: "look at the logs",
    delay_seconds: 3600,
    repeat_count: 2,
  });
  assert.match(
    set.text,
    /^Set (cb\d+): it fires in 1 h \(at \S+Z\), then every 1 h until it has fired 2 times\./,
  );
  const id = (set.data.callbacks as { id: string }[])[0].id;
  const list = await callTool(setCallback, [], { action: "list" });
  assert.match(
    list.text,
    new RegExp(
      `^1 pending:\\n- ${id}: fires in 1 h \\(at \\S+\\), fired 0 of 2 times, every 1 h: look at the logs$`,
    ),
  );
  const cancel = await callTool(setCallback, [], { action: "cancel", callback_id: id });
  assert.equal(cancel.text, `Cancelled ${id} (it had fired 0 of 2 times): look at the logs`);
  assert.equal(
    (await callTool(setCallback, [], { action: "list" })).text,
    "No callbacks are pending.",
  );
});

test("the tool refuses arguments that do not fit the action", async () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [{ action: "set", message: "x" }, /action set needs `message` and `delay_seconds`/],
    [{ action: "list", message: "x" }, /^action list takes no message$/],
    [{ action: "cancel" }, /action cancel needs `callback_id`/],
    [
      { action: "set", message: "x", delay_seconds: 1, callback_id: "cb1" },
      /takes no callback_id; it takes message, delay_seconds, repeat_count/,
    ],
    [{ action: "set", message: "x", delay_seconds: 0 }, /delay_seconds must be >= 1/],
    [{ action: "set", message: "x", delay_seconds: 3601 }, /delay_seconds must be <= 3600/],
  ];
  for (const [args, expected] of cases) {
    const { result, text } = await callTool(setCallback, [], args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(text, expected);
  }
});

test("a fired reminder is attached to the next result of any tool, once", async () => {
  await callTool(setCallback, [], { action: "set", message: "stand up", delay_seconds: 1 });
  await tick(1200);
  const next: { content: ContentBlock[] } = { content: [{ type: "text", text: "ls output" }] };
  toolHooks.after!(next);
  assert.equal(next.content.length, 2);
  assert.match(
    (next.content[1] as { text: string }).text,
    /^⏰ Reminder from set_callback cb\d+ \(set [12] s ago(?:; fired \d s ago)?\): stand up$/,
  );
  const later: { content: ContentBlock[] } = { content: [] };
  toolHooks.after!(later);
  assert.deepEqual(later.content, []);
});

/**
 * set_callback in-process: timers that fire, reminders that ride on the next result once. Time
 * is a hand-moved clock, so these tests neither wait nor depend on the machine's speed; the e2e
 * suite keeps one real timer.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { type ContentBlock, SessionMemory, type ToolContext } from "../../mcp/tool/mod.ts";
import setCallbackModule, { setCallbackTool } from "../../tools/workflow/set_callback.ts";
import { Callbacks, type Clock, MAX_PENDING } from "../../tools/workflow/_lib/callbacks.ts";
import { callInRoots } from "../helpers/file_tools.ts";
import { harness } from "../helpers/in_process.ts";
import { callTool } from "../helpers/tool_calls.ts";

const [setCallback] = setCallbackModule;

/** Calls set_callback in `session`, as a connection of it would. */
function inSession(session: SessionMemory) {
  return (args: Record<string, unknown>) =>
    callTool(harness([setCallback], undefined, undefined, { session }), "set_callback", args);
}

/** A clock that moves only when told, firing what falls due in order, each at its own time. */
class HandClock implements Clock {
  #now = Date.parse("2030-01-01T00:00:00.000Z");
  #timers: { at: number; fire: () => void }[] = [];

  now(): number {
    return this.#now;
  }

  after(ms: number, fire: () => void): () => void {
    const timer = { at: this.#now + ms, fire };
    this.#timers.push(timer);
    return () => (this.#timers = this.#timers.filter((t) => t !== timer));
  }

  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = this.#timers.filter((t) => t.at <= end).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = due.at;
      due.fire();
    }
    this.#now = end;
  }

  get pending(): number {
    return this.#timers.length;
  }
}

/** A registry on a hand-moved clock, whose announcements are recorded. */
function registry() {
  const announced: string[] = [];
  const clock = new HandClock();
  const callbacks = new Callbacks(clock);
  const announce = (line: string) => void announced.push(line);
  /** Sets a callback whose firings are recorded in `announced`. */
  const set = (message: string, delaySeconds: number, repeatCount: number) =>
    callbacks.set(message, delaySeconds, repeatCount, announce);
  return { callbacks, set, announced, clock };
}

test("set gives ids and fire times; list shows the pending ones, the next first; cancel removes one", () => {
  const { callbacks, set, clock } = registry();
  const late = set("later", 600, 1);
  const soon = set("sooner", 60, 3);
  assert.deepEqual([late.id, soon.id], ["cb1", "cb2"]);
  assert.equal(soon.nextFireAt, "2030-01-01T00:01:00.000Z");
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
  assert.equal(clock.pending, 1, "a cancelled callback's timer is gone");
  assert.deepEqual(callbacks.list().map((c) => c.id), ["cb1"]);
  assert.throws(() => callbacks.cancel("cb2"), /no pending callback is called "cb2".*pending: cb1/);
  callbacks.cancel("cb1");
  assert.throws(() => callbacks.cancel("cb1"), /none is pending/);
  clock.advance(3_600_000);
  assert.equal(callbacks.takeReminders(), undefined, "cancelled callbacks never fire");
});

test(`at most ${MAX_PENDING} callbacks are pending at once`, () => {
  const { callbacks, set } = registry();
  for (let i = 0; i < MAX_PENDING; i++) set(`m${i}`, 3600, 1);
  assert.throws(() => set("one more", 1, 1), /50 callbacks are pending already/);
  for (const { id } of callbacks.list()) callbacks.cancel(id);
  assert.equal(set("room again", 3600, 1).id, `cb${MAX_PENDING + 1}`);
});

test("a callback that fires is announced, then reminded once", () => {
  const { callbacks, set, announced, clock } = registry();
  set("check the build", 1, 1);
  clock.advance(999);
  assert.deepEqual(announced, [], "not before its time");
  clock.advance(1);
  assert.deepEqual(announced, ["⏰ cb1: check the build"]);
  assert.deepEqual(callbacks.list(), [], "it fired for the last time");
  clock.advance(4000);
  assert.equal(
    callbacks.takeReminders(),
    "⏰ Reminder from set_callback cb1 (set 5 s ago; fired 4 s ago): check the build",
  );
  assert.equal(callbacks.takeReminders(), undefined);
});

test("firings nobody saw yet come as one reminder that counts them", () => {
  const { callbacks, set, announced, clock } = registry();
  set("poll the server", 1, 3);
  clock.advance(2000);
  assert.deepEqual(announced, [
    "⏰ cb1 (1 of 3): poll the server",
    "⏰ cb1 (2 of 3): poll the server",
  ]);
  assert.equal(
    callbacks.takeReminders(),
    "⏰ Reminder from set_callback cb1 (set 2 s ago; fired 2 times since the last reminder; " +
      "2 of 3 so far): poll the server",
  );
  assert.equal(callbacks.list()[0].fired, 2);
  assert.equal(callbacks.list()[0].nextFireAt, "2030-01-01T00:00:03.000Z");
  clock.advance(61_000);
  assert.equal(
    callbacks.takeReminders(),
    "⏰ Reminder from set_callback cb1 (set 1 min ago; fired 1 min ago; 3 of 3): poll the server",
  );
  assert.deepEqual(callbacks.list(), []);
});

test("the tool: set, list and cancel, with results that match its output schema", async () => {
  const session = new SessionMemory();
  const call = inSession(session);
  const set = await call({
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
  const list = await call({ action: "list" });
  assert.match(
    list.text,
    new RegExp(
      `^1 pending:\\n- ${id}: fires in 1 h \\(at \\S+\\), fired 0 of 2 times, every 1 h: look at the logs$`,
    ),
  );
  const cancel = await call({ action: "cancel", callback_id: id });
  assert.equal(cancel.text, `Cancelled ${id} (it had fired 0 of 2 times): look at the logs`);
  assert.equal((await call({ action: "list" })).text, "No callbacks are pending.");
  await session.dispose();
});

test("each session has its own callbacks: another lists none of them and cannot cancel them", async () => {
  const a = new SessionMemory();
  const b = new SessionMemory();
  const set = await inSession(a)({ action: "set", message: "a's secret", delay_seconds: 3600 });
  const id = (set.data.callbacks as { id: string }[])[0].id;
  assert.equal((await inSession(b)({ action: "list" })).text, "No callbacks are pending.");
  const cancel = await inSession(b)({ action: "cancel", callback_id: id });
  assert.equal(cancel.result.isError, true);
  assert.doesNotMatch(cancel.text, /secret/);
  assert.match((await inSession(a)({ action: "list" })).text, /a's secret/);
  await a.dispose(); // its timer is cancelled with it
  await b.dispose();
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
    const { result, text } = await callInRoots(setCallback, [], args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(text, expected);
  }
});

test("an unknown callback_id is echoed cut, however long", async () => {
  const { result, text } = await callInRoots(setCallback, [], {
    action: "cancel",
    callback_id: "z".repeat(5_000_000),
  });
  assert.equal(result.isError, true);
  assert.match(text, /^no pending callback is called "z{100}…" \(5,000,000 characters\) \(it may/);
  assert.ok(text.length < 400, `${text.length} characters`);
});

test("the tool tells time by its registry's clock", async () => {
  const { callbacks, clock } = registry();
  const [tool] = setCallbackTool(() => callbacks);
  await callInRoots(tool, [], { action: "set", message: "tea", delay_seconds: 600 });
  clock.advance(240_000);
  assert.equal(
    (await callInRoots(tool, [], { action: "list" })).text,
    "1 pending:\n- cb1: fires in 6 min (at 2030-01-01T00:10:00.000Z): tea",
  );
});

test("a fired reminder is attached to the next result of any tool, once", async () => {
  const { callbacks, clock } = registry();
  const [tool, reminders] = setCallbackTool(() => callbacks);
  await callInRoots(tool, [], { action: "set", message: "stand up", delay_seconds: 1 });
  clock.advance(1000);
  const next: { content: ContentBlock[] } = { content: [{ type: "text", text: "ls output" }] };
  const ctx = { session: new SessionMemory() } as unknown as ToolContext;
  reminders.after!(next, ctx);
  assert.deepEqual(next.content, [
    { type: "text", text: "ls output" },
    { type: "text", text: "⏰ Reminder from set_callback cb1 (set 1 s ago): stand up" },
  ]);
  const later: { content: ContentBlock[] } = { content: [] };
  reminders.after!(later, ctx);
  assert.deepEqual(later.content, []);
});

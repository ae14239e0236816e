/** The HTTP server's budgets (mcp/http/admission.ts, mcp/http/body_budget.ts), in process. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { Admission, MAX_QUEUED_CHARS } from "../../mcp/http/admission.ts";
import { BodyBudget } from "../../mcp/http/body_budget.ts";
import type { Decoded } from "../../mcp/wire/jsonrpc.ts";

const request = (id: number, method = "tools/call"): Decoded => ({
  kind: "request",
  message: { jsonrpc: "2.0", id, method },
});

/** Starts `n` requests of `key`; what each was handed to call when answered, in start order. */
function flood(admission: Admission, key: string, n: number, started: string[]) {
  const answers: (() => void)[] = [];
  for (let i = 0; i < n; i++) {
    admission.enter(key, 100, request(i), (answered) => {
      started.push(`${key}${i}`);
      answers.push(answered);
    });
  }
  return answers;
}

test("past the budget requests wait, sessions take turns, and each answer lets the next in", () => {
  const admission = new Admission();
  // Replies of 1 MiB: the budget is the least, 8 at once.
  for (let i = 0; i < 32; i++) admission.sent(1 << 20);
  const started: string[] = [];
  const a = flood(admission, "a", 10, started);
  flood(admission, "b", 3, started);
  assert.equal(started.length, 8);
  assert.deepEqual(admission.load, { running: 8, queued: 5 });
  a[0]();
  a[0](); // a second call counts for nothing
  assert.equal(started.length, 9);
  for (const i of [1, 2, 3]) a[i]();
  assert.deepEqual(started.slice(8), ["a8", "b0", "a9", "b1"], "the sessions take turns");
  const ping = { kind: "request", message: { jsonrpc: "2.0", id: 99, method: "ping" } } as const;
  let pinged = false;
  admission.enter("c", 10, ping, (answered) => {
    pinged = true;
    answered();
  });
  assert.ok(pinged, "a ping never waits");
});

test("a session's end drops what it queued and stops counting what it runs; full means refused", () => {
  const admission = new Admission();
  for (let i = 0; i < 32; i++) admission.sent(1 << 20);
  const started: string[] = [];
  const settled: string[] = [];
  for (let i = 0; i < 12; i++) {
    admission.enter("a", 10, request(i), () => started.push(`a${i}`), {
      settled: () => settled.push(`a${i}`),
    });
  }
  flood(admission, "b", 2, started);
  admission.forget("a");
  assert.equal(settled.length, 12, "each of a's settled once");
  assert.deepEqual(started.slice(8), ["b0", "b1"]);
  assert.equal(admission.full(10), false);
  // Past what may wait, in characters of the bodies waiting.
  flood(admission, "c", 6, started);
  admission.enter("d", MAX_QUEUED_CHARS - 10, request(1), () => {});
  assert.equal(admission.full(100), true);
});

test("a large body waits for the one before it; small ones share their pool apart", async () => {
  const budget = new BodyBudget(1 << 20, 4 << 20, 50);
  // The budget's own timers never keep a process alive: this test's does, while it waits.
  const alive = setTimeout(() => {}, 10_000);
  const first = await budget.take(10 << 20);
  assert.ok(first);
  let second: unknown;
  const waiting = Promise.resolve(budget.take(10 << 20)).then((place) => (second = place));
  const small = await budget.take(100_000);
  assert.ok(small, "a small body does not wait behind a large one");
  await new Promise((resolve) => setTimeout(resolve, 5));
  assert.equal(second, undefined);
  first!.release();
  await waiting;
  assert.ok(second, "the next large body gets its turn");
  // One that waits past its time is refused.
  assert.equal(await budget.take(10 << 20), undefined);
  // A chunked body grows into the pool, and cannot wait while it holds a place.
  const growing = budget.growing();
  assert.ok(growing.grow(500_000));
  assert.equal(growing.grow(2 << 20), false, "the large lane is taken: refused, not waiting");
  growing.release();
  small!.release();
  assert.deepEqual(budget.inUse, { small: 0, large: true });
  clearTimeout(alive);
});

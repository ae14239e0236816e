import assert from "node:assert/strict";
import { test } from "node:test";
import { HeapPressure, SOFT_LIMIT_BYTES, WORK_PER_CHECK } from "../../mcp/wire/heap_pressure.ts";

test("the heap is collected once enough work passed with memory high, and again after the burst", async () => {
  const collected: boolean[] = [];
  let rss = SOFT_LIMIT_BYTES - 1;
  const pressure = new HeapPressure((full) => collected.push(full), () => rss);
  pressure.noteWork(WORK_PER_CHECK - 1);
  assert.deepEqual(collected, []);
  // Enough work, but memory low: no collection yet.
  pressure.noteWork(1);
  assert.deepEqual(collected, []);
  rss = SOFT_LIMIT_BYTES + 1;
  pressure.noteWork(WORK_PER_CHECK);
  assert.deepEqual(collected, [true]);
  // More work after it, then quiet: one more collection once the burst is over, which gives
  // memory back. (The wait is a guard against a hang, not a measure of speed.)
  pressure.noteWork(10);
  for (let waited = 0; collected.length < 2 && waited < 30_000; waited += 100) {
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  assert.deepEqual(collected, [true, true]);
});

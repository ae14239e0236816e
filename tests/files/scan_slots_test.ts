import assert from "node:assert/strict";
import { test } from "node:test";
import { Slots } from "../../tools/files/_lib/scan_slots.ts";

test("slots are handed out in the order they were asked for, and only as they free", async () => {
  const slots = new Slots(2);
  const first = await slots.take();
  const second = await slots.take();
  const order: number[] = [];
  const third = slots.take().then((release) => (order.push(3), release));
  const fourth = slots.take().then((release) => (order.push(4), release));
  await Promise.resolve();
  assert.deepEqual(order, []);
  second();
  second(); // a second release of the same slot gives nothing more
  await third;
  await Promise.resolve();
  assert.deepEqual(order, [3]);
  first();
  (await fourth)();
  assert.deepEqual(order, [3, 4]);
});

test("a wait given up by its signal leaves the line, and the slot goes to the next", async () => {
  const slots = new Slots(1);
  const held = await slots.take();
  const controller = new AbortController();
  const abandoned = slots.take(controller.signal);
  const next = slots.take();
  controller.abort(new Error("cancelled"));
  await assert.rejects(abandoned, /cancelled/);
  held();
  const release = await next;
  release();
  // Everything released: a slot is free at once.
  (await slots.take())();
});

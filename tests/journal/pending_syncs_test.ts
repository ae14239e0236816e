/** A restore's syncs: a few at a time, all done before drain() returns, a failure passed on. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { PendingSyncs } from "../../tools/journal/_lib/pending_syncs.ts";

test("no more than the limit run at once, and drain waits for every one", async () => {
  const syncs = new PendingSyncs(3);
  let running = 0;
  let most = 0;
  let done = 0;
  for (let i = 0; i < 20; i++) {
    await syncs.add(async () => {
      most = Math.max(most, ++running);
      await new Promise((resolve) => setTimeout(resolve, 1 + (i % 4)));
      running--;
      done++;
    });
  }
  await syncs.drain();
  assert.equal(done, 20);
  assert.equal(most, 3);
});

test("a failed sync fails the next add or the drain, after the others ended", async () => {
  const syncs = new PendingSyncs(4);
  let ended = 0;
  await syncs.add(() => Promise.reject(new Error("EIO: the disk failed")));
  const slow = () => new Promise<void>((resolve) => setTimeout(() => (ended++, resolve()), 5));
  await syncs.add(slow).catch(() => {});
  await assert.rejects(syncs.drain(), /EIO: the disk failed/);
  assert.equal(ended, 1);
});

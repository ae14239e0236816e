/** The pool's own behaviour, with a worker of a line; each pool's use is tested through its tool. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { createWorkerPool } from "../../tools/_lib/workers/worker_pool.ts";

/** A worker that doubles the number it is sent. */
const DOUBLER = "data:application/javascript," +
  encodeURIComponent(
    "self.onmessage = (e) => self.postMessage({ id: e.data.id, n: e.data.n * 2 });",
  );

test("prepare starts one worker before any job, and the first job runs on it", async () => {
  const pool = createWorkerPool<number, number>({
    workerUrl: () => DOUBLER,
    cancelled: () => new Error("cancelled"),
    message: (id, n) => ({ message: { id, n } }),
    reply: (data) => ({ result: (data as unknown as { n: number }).n }),
    crashed: (_n, message) => new Error(message),
  });
  try {
    assert.equal(pool.count(), 0);
    pool.prepare();
    assert.equal(pool.count(), 1);
    pool.prepare(); // none more while one runs
    assert.equal(pool.count(), 1);
    assert.equal(await pool.run(21), 42);
    assert.equal(pool.count(), 1);
  } finally {
    pool.stop();
  }
});

/**
 * Where a pool finds its worker: beside the pool from source, under its path from the project's
 * root in the compiled binary (whose modules all share the binary's root as import.meta.url).
 * The binary itself is driven by the e2e tests that convert pages, extract documents and grep
 * without rg.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { workerModule } from "../../tools/_lib/workers/worker_pool.ts";

test("from source the worker is the pool's neighbour", () => {
  const url = workerModule(
    "file:///home/u/toolhost/tools/search/_lib/grep_pool.ts",
    "tools/search/_lib/grep_worker.ts",
  );
  assert.equal(url(), "file:///home/u/toolhost/tools/search/_lib/grep_worker.ts");
});

test("in the binary the worker is its entry point, under its path from the root", () => {
  const url = workerModule("file:///$bunfs/root/toolhost", "tools/_lib/documents/worker.ts");
  assert.equal(url(), "file:///$bunfs/root/tools/_lib/documents/worker.ts");
});

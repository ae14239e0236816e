import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  blobDir,
  keepBytes,
  openBlob,
  pruneNow,
  touchBlob,
} from "../../tools/journal/_lib/snapshots.ts";
import { posixOnly } from "../helpers/posix_only.ts";

function store(): string {
  const project = mkdtempSync(join(tmpdir(), "toolhost-blobs-"));
  mkdirSync(blobDir(project));
  return project;
}

test("a kept blob whose digest checks out is opened", async () => {
  const project = store();
  const sha = createHash("sha256").update("kept\n").digest("hex");
  writeFileSync(join(blobDir(project), sha), "kept\n");
  const handle = await openBlob(project, sha);
  assert.ok(handle);
  await handle.close();
});

test(
  "a FIFO or a link in the blob store counts as not kept (undo is not held)",
  posixOnly("makes a FIFO"),
  async () => {
    const project = store();
    const sha = createHash("sha256").update("kept\n").digest("hex");
    const outside = join(project, "elsewhere");
    writeFileSync(outside, "kept\n");
    symlinkSync(outside, join(blobDir(project), sha));
    assert.equal(await openBlob(project, sha), undefined);
    const fifoSha = createHash("sha256").update("other\n").digest("hex");
    execFileSync("mkfifo", [join(blobDir(project), fifoSha)]);
    assert.equal(await openBlob(project, fifoSha), undefined);
  },
);

test("the budget drops blobs in the order they were kept, even those kept within one clock tick", async () => {
  const project = store();
  // A budget the prune below enforces, large enough that keeping never prunes on its own.
  const keep = { projectDir: project, budget: 1_000_000 };
  const kept: string[] = [];
  for (let i = 0; i < 40; i++) kept.push(await keepBytes(keep, new TextEncoder().encode(`b${i}`)));
  // Reused, the first becomes the newest.
  assert.equal(await touchBlob(project, kept[0]), true);
  const order = [...kept.slice(1), kept[0]];
  await pruneNow(project, 2 * 20); // each blob is 2 or 3 bytes: about the 15 newest stay
  const left = order.map((sha) => existsSync(join(blobDir(project), sha)));
  const firstKept = left.indexOf(true);
  assert.ok(firstKept > 0, "some were dropped");
  assert.deepEqual(left.slice(firstKept), order.slice(firstKept).map(() => true), "newest kept");
  assert.deepEqual(left.slice(0, firstKept), order.slice(0, firstKept).map(() => false));
});

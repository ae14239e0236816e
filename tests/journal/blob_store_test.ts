import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { blobDir, openBlob } from "../../tools/journal/_lib/snapshots.ts";
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

/**
 * undo's steps carried out (undo_apply.ts): a step that took away what its path held and then
 * failed to put the earlier state back reports that removal, with what was kept of it, so the
 * undo journals it and undoing that undo brings it back.
 */
import assert from "node:assert/strict";
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { CallWrites, type ToolContext } from "../../mcp/tool/mod.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { Transaction } from "../../tools/_lib/transaction/mod.ts";
import type { Entry } from "../../tools/journal/_lib/journal.ts";
import { blobDir, keepBytes, openBlob } from "../../tools/journal/_lib/snapshots.ts";
import { keepTree } from "../../tools/journal/_lib/tree_manifest.ts";
import { missingBlob } from "../../tools/journal/_lib/tree_restore.ts";
import { loadManifest } from "../../tools/journal/_lib/tree_manifest.ts";
import { apply, StoppedAfterRemoving } from "../../tools/journal/_lib/undo_apply.ts";
import type { Step, Undoing } from "../../tools/journal/_lib/undo_steps.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

test(
  "a tree removed by force before the earlier file failed to come back is reported as removed, and kept",
  posixOnly("held directories"),
  async () => {
    const root = scratchDir("toolhost-undo-apply-");
    const project = scratchDir("toolhost-undo-apply-state-");
    const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
    const keep = { projectDir: project, budget: 1 << 30 };
    // What the path holds now: a tree, kept as force keeps it before removing it.
    const path = join(root, "p");
    mkdirSync(join(path, "sub"), { recursive: true });
    writeFileSync(join(path, "sub", "f.txt"), "someone's work\n");
    const { racy: _, ...kept } = await keepTree(sandbox, path, keep, {
      entries: 10_000,
      bytes: 1 << 30,
    });
    // The earlier file, whose blob changes in the store after undo checked it.
    const earlier = new TextEncoder().encode("earlier\n");
    const sha = await keepBytes(keep, earlier);
    const blob = await openBlob(project, sha);
    assert.ok(blob);
    writeFileSync(join(blobDir(project), sha), "tampered");
    // Named through the transaction, as undo names what it restores (it keeps it itself).
    const ctx = {
      roots: () => Promise.resolve([root]),
      writes: new CallWrites({ atRunTime: true }, {}),
    } as unknown as ToolContext;
    const tx = new Transaction(ctx, sandbox);
    const named = await tx.name([{ path, kind: "replaces", link: true, kept: true }]);
    const targets = new Map(named.map((target) => [target.real, target]));
    const u: Undoing = { sandbox, projectDir: project, keep, force: true, tx, targets };
    const step: Step = {
      entry: { id: "e1", tool: "write_file" } as Entry,
      change: {
        path,
        before: { kind: "file", sha, mode: 0o644, size: earlier.length },
        after: { kind: "absent" },
      },
      now: { state: kept, matches: false, clear: "tree" },
      blob,
    };
    try {
      const failure = await apply(u, step).then(() => undefined, (error) => error);
      assert.ok(failure instanceof StoppedAfterRemoving, String(failure));
      assert.match(failure.message, /changed in the undo store/);
      assert.deepEqual(failure.done.changes, [{ path, before: kept, after: { kind: "absent" } }]);
      assert.equal(existsSync(path), false);
      // What was removed can be put back: its manifest and every blob are kept.
      const manifest = await loadManifest(project, kept.manifest);
      assert.ok(manifest);
      assert.equal(await missingBlob(project, manifest), undefined);
    } finally {
      await blob.close();
    }
  },
);

/**
 * tree_restore's primitives: a restored directory's mode is set on that directory itself. Where
 * directories are addressed by path (macOS; here a Dir made by name stands in for one), a link
 * swapped in for the directory is refused, never followed to its target.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { Dir } from "../../tools/_lib/sandbox/_beneath.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { keepTree, loadManifest } from "../../tools/journal/_lib/tree_manifest.ts";
import { removePath, restoreTree } from "../../tools/journal/_lib/tree_restore.ts";
import { scratchDir } from "../helpers/file_tools.ts";

const posix = process.platform !== "win32";

test(
  "Dir.chmod on a directory addressed by path sets its mode",
  { skip: !posix && "POSIX modes" },
  async () => {
    const root = scratchDir("restore-chmod");
    mkdirSync(join(root, "made"));
    const dir = Dir.named(join(root, "made"));
    await dir.chmod(0o750);
    assert.equal(statSync(join(root, "made")).mode & 0o7777, 0o750);
  },
);

test("Dir.chmod on a path that became a link refuses, and leaves the link's target alone", {
  skip: !posix && "POSIX modes and links",
}, async () => {
  const root = scratchDir("restore-chmod-link");
  const outside = join(root, "outside");
  mkdirSync(outside);
  chmodSync(outside, 0o755);
  symlinkSync(outside, join(root, "made"));
  const dir = Dir.named(join(root, "made"));
  await assert.rejects(dir.chmod(0o777));
  assert.equal(statSync(outside).mode & 0o7777, 0o755);
});

test(
  "a restore stopped after what was at the path was taken away does not say it was left as it was",
  {
    skip: !posix && "held directories",
  },
  async () => {
    const root = scratchDir("restore-taken");
    const project = scratchDir("restore-taken-state");
    const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
    const keep = { projectDir: project, budget: 1 << 30 };
    const path = join(root, "tree");
    mkdirSync(path);
    writeFileSync(join(path, "kept.txt"), "kept\n");
    const { manifest: sha } = await keepTree(sandbox, path, keep, { entries: 100, bytes: 1 << 20 });
    const manifest = await loadManifest(project, sha);
    assert.ok(manifest);
    // The path holds something else now; it is taken away, and then the name is taken again.
    writeFileSync(join(path, "kept.txt"), "someone else's\n");
    const failure = await restoreTree(sandbox, path, manifest, project, undefined, async () => {
      await removePath(sandbox, path);
      writeFileSync(path, "taken meanwhile");
    }).then(() => undefined, (error: Error) => error);
    assert.ok(failure);
    assert.match(failure.message, /was taken while the tree was being restored/);
    assert.doesNotMatch(failure.message, /left as it was/);
    // Nothing half restored is left beside it.
    assert.deepEqual(readdirSync(root), ["tree"]);
    assert.ok(existsSync(path));
  },
);

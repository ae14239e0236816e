/**
 * Keeping a directory tree for undo and putting it back, beneath a held root: modes, links
 * (one pointing outside the roots, kept as text and never followed), empty directories; the
 * bounds (entries, bytes, a FIFO); a tree changed while it is kept; shapes that tell a tree
 * left alone from one touched.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { treeDifferences } from "../../tools/journal/_lib/tree_compare.ts";
import {
  keepTree,
  loadManifest,
  NotKept,
  shapeOf,
} from "../../tools/journal/_lib/tree_manifest.ts";
import { missingBlob, removePath, restoreTree } from "../../tools/journal/_lib/tree_restore.ts";
import { blobDir } from "../../tools/journal/_lib/snapshots.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const BIG = { entries: 10_000, bytes: 1 << 30 };

async function setup() {
  const root = scratchDir("toolhost-tree-");
  const project = scratchDir("toolhost-tree-state-");
  const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
  return { root, project, sandbox, keep: { projectDir: project, budget: 1 << 30 } };
}

/** Every entry below `dir`: path, kind, mode, content or link target. */
function listing(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const p = rel ? `${rel}/${name}` : name;
    const info = lstatSync(join(dir, p));
    const mode = (info.mode & 0o7777).toString(8);
    if (info.isSymbolicLink()) out.push(`${p} -> ${readlinkSync(join(dir, p))}`);
    else if (info.isDirectory()) out.push(`${p}/ ${mode}`, ...listing(dir, p));
    else out.push(`${p} ${mode} ${readFileSync(join(dir, p), "utf8")}`);
  }
  return out;
}

function makeTree(top: string) {
  mkdirSync(join(top, "src/deep/er"), { recursive: true });
  mkdirSync(join(top, "empty"));
  writeFileSync(join(top, "README"), "hello\n");
  writeFileSync(join(top, "src/a.ts"), "export const a = 1;\n");
  writeFileSync(join(top, "src/deep/er/same.txt"), "hello\n"); // same content: one blob
  writeFileSync(join(top, "run.sh"), "#!/bin/sh\n");
  chmodSync(join(top, "run.sh"), 0o750);
  chmodSync(join(top, "src/deep"), 0o700);
  symlinkSync("../README", join(top, "src/readme-link"));
  symlinkSync("/etc/passwd", join(top, "outside")); // out of the roots: kept as text
  symlinkSync("nowhere", join(top, "dangling"));
}

test(
  "a tree kept whole comes back exactly: modes, empty directories, links as links",
  posixOnly("POSIX modes and symlinks"),
  async () => {
    const { root, sandbox, keep, project } = await setup();
    const top = join(root, "tree");
    mkdirSync(top);
    makeTree(top);
    chmodSync(top, 0o751);
    const was = listing(top);
    const state = await keepTree(sandbox, top, keep, BIG);
    assert.equal(state.content, true);
    assert.equal(state.entries, 11);
    assert.equal(state.bytes, 6 + 20 + 6 + 10);
    await removePath(sandbox, top);
    assert.throws(() => lstatSync(top));
    const manifest = (await loadManifest(project, state.manifest))!;
    assert.equal(await missingBlob(project, manifest), undefined);
    await restoreTree(sandbox, top, manifest, project);
    assert.deepEqual(listing(top), was);
    assert.equal(statSync(top).mode & 0o777, 0o751);
    assert.equal(readlinkSync(join(top, "outside")), "/etc/passwd");
    // Kept again, the same tree gives the same manifest.
    assert.equal((await keepTree(sandbox, top, keep, BIG)).manifest, state.manifest);
  },
);

test("a restore refuses a taken path and a blob that no longer checks out, leaving nothing", async () => {
  const { root, sandbox, keep, project } = await setup();
  const top = join(root, "t");
  mkdirSync(top);
  writeFileSync(join(top, "f.txt"), "content\n");
  const state = await keepTree(sandbox, top, keep, BIG);
  const manifest = (await loadManifest(project, state.manifest))!;
  await assert.rejects(restoreTree(sandbox, top, manifest, project), /taken/);
  rmSync(top, { recursive: true });
  const blob = manifest.items.find((i) => i.t === "f")!.s!;
  writeFileSync(join(blobDir(project), blob), "CONTENT\n"); // same size, other bytes
  await assert.rejects(restoreTree(sandbox, top, manifest, project), /changed in the undo store/);
  assert.deepEqual(readdirSync(root), []); // no temporary directory left behind
  rmSync(join(blobDir(project), blob));
  assert.equal(await missingBlob(project, manifest), "f.txt");
});

test("bounds: too many entries, too many bytes, a FIFO: not kept, and nothing kept", async () => {
  const { root, sandbox, keep, project } = await setup();
  const top = join(root, "t");
  mkdirSync(top);
  for (let i = 0; i < 5; i++) writeFileSync(join(top, `f${i}`), "x".repeat(100));
  await assert.rejects(
    keepTree(sandbox, top, keep, { entries: 4, bytes: 1 << 20 }),
    (e) => e instanceof NotKept && /more than 4 entries/.test(e.message),
  );
  await assert.rejects(
    keepTree(sandbox, top, keep, { entries: 100, bytes: 499 }),
    (e) => e instanceof NotKept && /over the undo budget/.test(e.message),
  );
  assert.throws(() => readdirSync(blobDir(project)));
  if (process.platform !== "win32") {
    execFileSync("mkfifo", [join(top, "pipe")]);
    await assert.rejects(
      keepTree(sandbox, top, keep, BIG),
      (e) => e instanceof NotKept && /pipe.*cannot recreate/.test(e.message),
    );
  }
});

test("a tree written to while it is kept is not kept", async () => {
  const { root, sandbox, keep } = await setup();
  const top = join(root, "t");
  mkdirSync(top);
  writeFileSync(join(top, "a"), "one\n");
  writeFileSync(join(top, "b"), "two\n");
  let n = 0;
  // Each write changes the size: times alone may not move within the clock tick.
  const meddling = { ...keep, opened: () => writeFileSync(join(top, "b"), "x".repeat(5 + n++)) };
  await assert.rejects(
    keepTree(sandbox, top, meddling, BIG),
    (e) => e instanceof NotKept && /changed while it was being kept/.test(e.message),
  );
  // A file added once, during the first attempt only: the second attempt keeps the new tree.
  let added = false;
  const once = {
    ...keep,
    opened: () => {
      if (!added) writeFileSync(join(top, "c"), "three\n");
      added = true;
    },
  };
  const state = await keepTree(sandbox, top, once, BIG);
  assert.equal(state.entries, 3);
});

test("a shape is the same for a tree left alone and differs once anything in it is touched", async () => {
  const { root, sandbox, keep, project } = await setup();
  const top = join(root, "t");
  mkdirSync(join(top, "sub"), { recursive: true });
  writeFileSync(join(top, "sub/f"), "1");
  const first = await shapeOf(sandbox, top, keep);
  assert.equal((await shapeOf(sandbox, top)).sha, first.sha);
  assert.equal(first.state!.manifest, first.sha);
  assert.ok(await loadManifest(project, first.sha));
  writeFileSync(join(top, "sub/f"), "22");
  writeFileSync(join(top, "new"), "");
  const now = await shapeOf(sandbox, top);
  assert.notEqual(now.sha, first.sha);
  assert.deepEqual(await treeDifferences(first.manifest, now.manifest), [
    "new added",
    "sub/f changed",
  ]);
});

test(
  "a subdirectory swapped for a link to outside the roots while it is kept is kept as the link",
  posixOnly("symlinks"),
  async () => {
    const { root, sandbox, keep, project } = await setup();
    const outside = scratchDir("toolhost-tree-outside-");
    writeFileSync(join(outside, "secret"), "outside the roots\n");
    const top = join(root, "t");
    mkdirSync(join(top, "sub"), { recursive: true });
    writeFileSync(join(top, "a"), "a\n");
    writeFileSync(join(top, "sub/b"), "b\n");
    let swapped = false;
    const swapping = {
      ...keep,
      opened: () => {
        if (swapped) return;
        swapped = true;
        rmSync(join(top, "sub"), { recursive: true });
        symlinkSync(outside, join(top, "sub"));
      },
    };
    const state = await keepTree(sandbox, top, swapping, BIG);
    const manifest = (await loadManifest(project, state.manifest))!;
    assert.deepEqual(manifest.items.map((i) => `${i.p} ${i.t}`), [" d", "a f", "sub l"]);
    for (const name of readdirSync(blobDir(project))) {
      assert.doesNotMatch(readFileSync(join(blobDir(project), name), "utf8"), /outside the roots/);
    }
  },
);

test("a tree past the shape's entry limit is judged by its top level only", async () => {
  const { root, sandbox } = await setup();
  const top = join(root, "t");
  mkdirSync(join(top, "deep"), { recursive: true });
  for (let i = 0; i < 12; i++) writeFileSync(join(top, "deep", `f${i}`), "x");
  writeFileSync(join(top, "top.txt"), "x");
  const first = await shapeOf(sandbox, top, undefined, 10);
  assert.equal(first.manifest.partial, true);
  assert.deepEqual(first.manifest.items.map((i) => i.p), ["", "deep", "top.txt"]);
  writeFileSync(join(top, "deep/f0"), "y");
  assert.equal((await shapeOf(sandbox, top, undefined, 10)).sha, first.sha);
  writeFileSync(join(top, "top.txt"), "yy");
  assert.notEqual((await shapeOf(sandbox, top, undefined, 10)).sha, first.sha);
});

test("a same-size rewrite right after the shape was taken, within the clock tick, is found by content", async () => {
  const { root, sandbox } = await setup();
  const top = join(root, "t");
  mkdirSync(top);
  writeFileSync(join(top, "f"), "1");
  const first = await shapeOf(sandbox, top, undefined, undefined, 1 << 20);
  assert.ok(first.manifest.at !== undefined && first.manifest.items[1].s);
  writeFileSync(join(top, "f"), "2"); // its times may well not move: same tick
  const dir = (await sandbox.directory(top)).dir;
  try {
    const now = await shapeOf(sandbox, top);
    assert.deepEqual(await treeDifferences(first.manifest, now.manifest, dir), ["f changed"]);
    writeFileSync(join(top, "f"), "1");
    const again = await shapeOf(sandbox, top);
    assert.deepEqual(await treeDifferences(first.manifest, again.manifest, dir), []);
  } finally {
    await dir.close();
  }
});

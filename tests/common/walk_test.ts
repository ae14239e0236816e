/** The directory walk: order, skipped directories, symlinks, and its limits. */
import assert from "node:assert/strict";
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  realpathSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { Walk, type WalkOptions } from "../../tools/_lib/walk/walk.ts";

function tree(files: string[]): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-walk-")));
  for (const path of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), "x");
  }
  return root;
}

async function walk(root: string, options: Partial<WalkOptions> = {}) {
  const w = new Walk({
    respectIgnores: true,
    maxEntries: 10_000,
    deadline: Date.now() + 10_000,
    ...options,
  });
  const entries: string[] = [];
  for await (const entry of w.entries(root)) entries.push(`${entry.kind}:${entry.rel}`);
  return { entries, stopped: w.stopped, seen: w.seen };
}

test("entries come depth first, names in byte order (as rg --sort path lists them)", async () => {
  const root = tree(["a.txt", "a-b", "a/b", "B", "z", "é", "a/c/d"]);
  const { entries } = await walk(root);
  assert.deepEqual(entries, [
    "file:B",
    "directory:a",
    "file:a/b",
    "directory:a/c",
    "file:a/c/d",
    "file:a-b",
    "file:a.txt",
    "file:z",
    "file:é",
  ]);
});

test(".git and node_modules are skipped unless ignores are off; hidden files are kept", async () => {
  const root = tree([".git/HEAD", "node_modules/p/i.js", "src/node_modules/q.js", ".env", "a"]);
  assert.deepEqual((await walk(root)).entries, ["file:.env", "file:a", "directory:src"]);
  const all = (await walk(root, { respectIgnores: false })).entries;
  assert.ok(all.includes("file:.git/HEAD") && all.includes("file:node_modules/p/i.js"));
  assert.ok(all.includes("file:src/node_modules/q.js"));
});

test("symbolic links are reported, never followed", async () => {
  const root = tree(["real/inside.txt"]);
  symlinkSync(join(root, "real"), join(root, "link"));
  symlinkSync("/etc", join(root, "etc-link"));
  const { entries } = await walk(root);
  assert.deepEqual(entries, [
    "symlink:etc-link",
    "symlink:link",
    "directory:real",
    "file:real/inside.txt",
  ]);
});

test("the walk stops at its entry limit, its deadline, or when cancelled, and says so", async () => {
  const root = tree(Array.from({ length: 50 }, (_, i) => `d${i % 5}/f${i}`));
  const limited = await walk(root, { maxEntries: 10 });
  assert.equal(limited.stopped, "entry limit");
  assert.equal(limited.entries.length, 10);
  assert.equal((await walk(root, { deadline: Date.now() - 1 })).stopped, "time limit");
  const controller = new AbortController();
  controller.abort();
  const cancelled = await walk(root, { signal: controller.signal });
  assert.deepEqual([cancelled.stopped, cancelled.entries], ["cancelled", []]);
  assert.equal((await walk(root)).stopped, undefined);
});

test("enter decides which directories are walked into", async () => {
  const root = tree(["src/a/x.ts", "src/b.ts", "lib/c.ts"]);
  const { entries } = await walk(root, { enter: (rel) => rel === "src" });
  assert.deepEqual(entries, ["directory:lib", "directory:src", "directory:src/a", "file:src/b.ts"]);
});

test("wanted leaves entries out but still walks into their directories and counts them", async () => {
  const root = tree(["src/a/x.ts", "src/a/y.md", "src/b.ts", "c.md", "build/z.ts"]);
  writeFileSync(join(root, ".gitignore"), "build/\n");
  const judged: string[] = [];
  const { entries, seen } = await walk(root, {
    wanted: (rel, kind) => {
      judged.push(rel);
      return kind === "file" && rel.endsWith(".ts");
    },
  });
  assert.deepEqual(entries, ["file:src/a/x.ts", "file:src/b.ts"]);
  // Every entry met is counted against the limit, wanted or not (build/ is not entered).
  assert.equal(seen, 8);
  assert.ok(!judged.some((rel) => rel.startsWith("build/")));
});

test("batches hold the same entries in the same order, each run's directories still open", async () => {
  const root = tree(["a/b/c/d.txt", "a/b/e.txt", "a/f.txt", "g.txt", "h/i.txt"]);
  const options = { respectIgnores: true, maxEntries: 10_000, deadline: Date.now() + 10_000 };
  const one: string[] = [];
  for await (const entry of new Walk(options).entries(root)) one.push(entry.rel);
  const runs: string[][] = [];
  for await (const batch of new Walk(options).batches(root)) {
    runs.push(batch.map((entry) => entry.rel));
    // Each address is usable while its run is handled: the directory holding it is open.
    for (const entry of batch) assert.ok(lstatSync(entry.at));
  }
  assert.deepEqual(runs.flat(), one);
  assert.ok(runs.length > 1 && runs.every((run) => run.length > 0));
});

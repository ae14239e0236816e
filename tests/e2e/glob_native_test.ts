/**
 * glob and the built-in grep through the binary with its native calls (sandbox/_beneath_native.ts:
 * openat, statx and getdents64 on the held directories) and without them (TOOLHOST_FFI=off: node:fs
 * by /proc address and by path): the same answers, in the same order, on a tree with tied and
 * sub-millisecond-apart times, links, a FIFO, names that are not ASCII, a directory too big for
 * one getdents64 call, an ignore file and a second root.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { e2eFixture } from "../helpers/e2e.ts";
import { RawClient } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const test = posixOnlyTest("the tree holds a FIFO and the lookups compared are Linux's");

const e2e = e2eFixture();

const FILES = [
  "a.ts",
  "b.ts",
  "c.md",
  ".hidden.ts",
  "sub/d.ts",
  "sub/e.md",
  "sub/deeper/f.ts",
  "sub/deeper/g.md",
  "sub/deeper/ü ñ.ts",
  "x/y/z/w.ts",
  "build/out.ts",
];

function fixture(): { root: string; other: string } {
  const top = e2e.scratch("glob-native");
  const root = join(top, "root");
  const other = join(top, "other");
  const base = Date.UTC(2026, 0, 1) / 1000;
  FILES.forEach((path, i) => {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, path);
    // Three share one time exactly (the order falls back to the path); the rest are 1.37 ms
    // apart, so the sub-millisecond part of each time counts too.
    const time = i < 3 ? base : base + i * 0.001_37;
    utimesSync(file, time, time);
  });
  writeFileSync(join(root, ".gitignore"), "build/\n");
  // About 90 KB of directory entries: several getdents64 calls.
  mkdirSync(join(root, "many"));
  for (let i = 0; i < 1500; i++) {
    writeFileSync(
      join(root, "many", `file-with-a-long-name-${String(i).padStart(5, "0")}.txt`),
      "",
    );
  }
  symlinkSync("/etc/hostname", join(root, "sub/link.ts"));
  symlinkSync(join(root, "sub"), join(root, "sub-link"));
  execFileSync("mkfifo", [join(root, "sub/fifo.ts")]);
  mkdirSync(join(other, "in"), { recursive: true });
  writeFileSync(join(other, "in/o.ts"), "o");
  return { root, other };
}

function start(root: string, other: string, env: Record<string, string>): RawClient {
  env = { TOOLHOST_GREP: "builtin", ...env };
  const c = e2e.server({ args: ["--root", root, "--root", other], env });
  return c;
}

test("glob answers alike with native lookups and without, newest first, ties by path", async () => {
  const { root, other } = fixture();
  const native = start(root, other, {});
  const plain = start(root, other, { TOOLHOST_FFI: "off" });
  const calls: Record<string, unknown>[] = [
    { pattern: "**/*.ts" },
    { pattern: "**" },
    { pattern: "*.ts" },
    { pattern: "**/*.{md,ts}", path: "sub" },
    { pattern: "deeper/*", path: "sub" },
    { pattern: "**/*.ts", include_ignored: true },
    { pattern: "**/*.ts", path: other },
    { pattern: "many/*" },
  ];
  for (const args of calls) {
    assert.deepEqual(
      await callTool(native, "glob", args),
      await callTool(plain, "glob", args),
      JSON.stringify(args),
    );
  }
  assert.equal((await callTool(native, "glob", { pattern: "many/*" })).data.total, 1500);
  for (const args of [{ pattern: "." }, { pattern: "sub", output_mode: "content" }]) {
    const [ours, theirs] = await Promise.all(
      [native, plain].map(async (c) => JSON.stringify((await callTool(c, "grep", args)).result)),
    );
    assert.deepEqual(ours, theirs, JSON.stringify(args));
    assert.match(ours, /sub\/deeper\/ü ñ\.ts/);
  }
  const ts = await callTool(native, "glob", { pattern: "**/*.ts" });
  assert.deepEqual((ts.data.paths as string[]).filter((path) => path !== "sub/link.ts"), [
    "x/y/z/w.ts",
    "sub/deeper/ü ñ.ts",
    "sub/deeper/f.ts",
    "sub/d.ts",
    ".hidden.ts",
    "a.ts",
    "b.ts",
  ]);
  // A match under another root is shown by its full path, as every path outside the first root.
  assert.deepEqual(
    (await callTool(native, "glob", { pattern: "**/*.ts", path: other })).data.paths,
    [
      join(other, "in/o.ts"),
    ],
  );
  assert.deepEqual(
    (await callTool(native, "glob", { pattern: "*", path: "sub/deeper" })).data.paths,
    [
      "sub/deeper/ü ñ.ts",
      "sub/deeper/g.md",
      "sub/deeper/f.ts",
    ],
  );
});

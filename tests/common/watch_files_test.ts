/**
 * Watching directories for change notifications: missing and replaced directories, one
 * directory by two paths, resources released on stop, and a process left free to exit.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import {
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { after, before, test } from "node:test";
import { startWatch, WATCH_LIMITS, watchDirectory } from "../../tools/_lib/watch/watch_files.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { waitUntil } from "../helpers/processes.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const savedPollMs = WATCH_LIMITS.pollMs;
before(() => (WATCH_LIMITS.pollMs = 100));
after(() => (WATCH_LIMITS.pollMs = savedPollMs));

/** Calls of a watch's `changed`, and a wait for the next one (at most 1.5 s). */
function recorder() {
  let calls = 0;
  return {
    changed: () => void calls++,
    get calls() {
      return calls;
    },
    async notices(what: string, change: () => void): Promise<void> {
      const seen = calls;
      change();
      assert.ok(await waitUntil(() => calls > seen, 1500), `not noticed: ${what}`);
    },
  };
}

test("a directory that does not exist yet is noticed when it appears, then its files", async () => {
  const dir = join(scratchDir("toolhost-watch-"), "a", "b");
  const r = recorder();
  const stop = watchDirectory(dir, (name) => name === "x.json", r.changed);
  try {
    await r.notices("the directory appearing", () => mkdirSync(dir, { recursive: true }));
    // The watch is in place once the appearance was told.
    await r.notices("a file written", () => writeFileSync(join(dir, "x.json"), "1"));
    await r.notices("the directory removed", () => rmSync(dir, { recursive: true }));
  } finally {
    stop();
  }
});

test("only the names asked for count; a file replaced by rename does", async () => {
  const dir = scratchDir("toolhost-watch-");
  const r = recorder();
  const stop = watchDirectory(dir, (name) => name === "x.json", r.changed);
  try {
    writeFileSync(join(dir, "other.txt"), "1");
    await r.notices("x.json replaced", () => {
      writeFileSync(join(dir, ".x.tmp"), "2");
      renameSync(join(dir, ".x.tmp"), join(dir, "x.json"));
    });
    const before = r.calls;
    const control = recorder();
    const stopControl = watchDirectory(dir, () => true, control.changed);
    await control.notices("another file", () => writeFileSync(join(dir, "other.txt"), "3"));
    stopControl();
    assert.equal(r.calls, before, "a change to another name was told");
  } finally {
    stop();
  }
});

test("a directory replaced by another of its name is followed", async () => {
  const dir = join(scratchDir("toolhost-watch-"), "d");
  mkdirSync(dir);
  const r = recorder();
  const stop = watchDirectory(dir, (name) => name === "y", r.changed);
  try {
    // Told once the watch has moved to the new directory.
    await r.notices("the directory replaced", () => {
      renameSync(dir, `${dir}.old`);
      mkdirSync(dir);
    });
    await r.notices("a file in the new directory", () => writeFileSync(join(dir, "y"), "1"));
  } finally {
    stop();
  }
});

test(
  "one directory watched by two paths: stopping one leaves the other hearing",
  posixOnly("counts inotify watches in /proc/self/fdinfo"),
  async () => {
    const real = scratchDir("toolhost-watch-");
    const link = join(scratchDir("toolhost-watch-link-"), "link");
    symlinkSync(real, link);
    const byLink = recorder();
    const byReal = recorder();
    const stopLink = watchDirectory(link, () => true, byLink.changed);
    const stopReal = watchDirectory(real, () => true, byReal.changed);
    try {
      await byLink.notices("a file, through the link", () => writeFileSync(join(real, "a"), "1"));
      stopReal();
      await byLink.notices(
        "a file after the other watch stopped",
        () => writeFileSync(join(real, "b"), "1"),
      );
    } finally {
      stopLink();
      stopReal();
    }
  },
);

/** inotify watches this process holds (Linux), from /proc/self/fdinfo. */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      if (!readlinkSync(`/proc/self/fd/${fd}`).includes("inotify")) continue;
      count += readFileSync(`/proc/self/fdinfo/${fd}`, "utf8").split("\n")
        .filter((line) => line.startsWith("inotify wd:")).length;
    } catch {
      // closed while we looked
    }
  }
  return count;
}

test("stopping releases the OS watches", { skip: process.platform !== "linux" }, async () => {
  const root = scratchDir("toolhost-watch-");
  const before = inotifyWatches();
  const stops = ["a", "b", "c"].map((name) => {
    mkdirSync(join(root, name));
    return watchDirectory(join(root, name), () => true, () => {});
  });
  assert.ok(await waitUntil(() => inotifyWatches() >= before + 3, 1500), "no watches were made");
  for (const stop of stops) stop();
  assert.ok(
    await waitUntil(() => inotifyWatches() === before, 1500),
    `${inotifyWatches() - before} watches left after stopping`,
  );
});

test("watches left running do not keep the process alive", async () => {
  const root = scratchDir("toolhost-watch-");
  const script = join(root, "child.ts");
  const module = new URL("../../tools/_lib/watch/watch_files.ts", import.meta.url).pathname;
  writeFileSync(
    script,
    `import { watchDirectory } from ${JSON.stringify(module)};\n` +
      `watchDirectory(${JSON.stringify(root)}, () => true, () => {});\n` +
      `watchDirectory(${JSON.stringify(join(root, "missing"))}, () => true, () => {});\n`,
  );
  const args = process.versions.bun ? [script] : ["run", "--allow-all", script];
  const code = await new Promise<number | null>((resolve) => {
    const child = execFile(process.execPath, args, { timeout: 10_000 }, () => {});
    child.once("exit", (code) => resolve(code));
  });
  assert.equal(code, 0, "the child did not exit by itself");
});

test("a watch whose setup fails says so in the log; one stopped early stops what comes later", async () => {
  const logged: unknown[] = [];
  const ctx = {
    roots: () => Promise.reject(new Error("no roots")),
    log: (_level: string, data: unknown) => logged.push(data),
  };
  await startWatch(ctx, "the thing", async () => {
    await ctx.roots();
  }).ready;
  assert.deepEqual(logged, ["changes to the thing will not be noticed: no roots"]);

  let stopped = 0;
  const watch = startWatch(ctx, "the other thing", async (group) => {
    await new Promise((resolve) => setTimeout(resolve, 10));
    group.add(() => stopped++);
  });
  watch();
  await watch.ready;
  assert.equal(stopped, 1);
});

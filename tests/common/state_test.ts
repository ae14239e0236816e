/** The state directory and its lock: per project, atomic, and safe across processes. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { basename, join, resolve } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { stateDirectory } from "../../config/paths.ts";
import { projectStateDir, readState, withLock, writeState } from "../../tools/_lib/state.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const scratch = (prefix: string) => mkdtempSync(join(tmpdir(), prefix));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("the state directory is the configured one, else XDG_STATE_HOME's, else the platform's", () => {
  const home = "/home/u";
  assert.equal(stateDirectory("/x/state", { XDG_STATE_HOME: "/xdg" }, home, "linux"), "/x/state");
  assert.equal(stateDirectory("", { XDG_STATE_HOME: "/xdg" }, home, "linux"), "/xdg/toolhost");
  assert.equal(stateDirectory("", {}, home, "linux"), "/home/u/.local/state/toolhost");
  assert.equal(
    stateDirectory("", {}, home, "darwin"),
    "/home/u/Library/Application Support/toolhost",
  );
  assert.equal(
    stateDirectory("", { LOCALAPPDATA: "C:\\Users\\u\\AppData\\Local" }, "C:\\Users\\u", "win32"),
    "C:\\Users\\u\\AppData\\Local\\toolhost",
  );
});

test("a relative state directory is made absolute; a relative XDG_STATE_HOME is ignored", () => {
  assert.equal(stateDirectory("some/state", {}, "/home/u", "linux"), resolve("some/state"));
  // The XDG spec: a relative path there is invalid and must be ignored.
  assert.equal(
    stateDirectory("", { XDG_STATE_HOME: "relative/xdg" }, "/home/u", "linux"),
    "/home/u/.local/state/toolhost",
  );
});

test("each project gets its own readable directory", async () => {
  const state = scratch("toolhost-state-");
  const a = await projectStateDir(state, "/work/my app");
  const b = await projectStateDir(state, "/other/my app");
  assert.notEqual(a, b);
  assert.match(a, /\/projects\/my_app-[0-9a-f]{12}$/);
});

test("a very long root name is cut in the name of its state directory", async () => {
  const dir = await projectStateDir(scratch("toolhost-state-"), `/work/${"a".repeat(250)}`);
  assert.match(basename(dir), /^a{64}-[0-9a-f]{12}$/);
  assert.ok(existsSync(dir));
});

test(
  "a state directory reached through a symlink is given as its real path, and written",
  posixOnly("expects a POSIX path (real/projects/) through a symlink"),
  async () => {
    const real = realpathSync(scratch("toolhost-state-"));
    const link = join(scratch("toolhost-link-"), "state");
    symlinkSync(real, link);
    const dir = await projectStateDir(link, "/work/app");
    assert.ok(dir.startsWith(`${real}/projects/`), dir);
    const file = join(dir, "x.json");
    await withLock(file, () => writeState(file, { ok: true }));
    assert.deepEqual(await readState(file, null), { ok: true });
  },
);

test("read-modify-write under the lock loses no update, even across processes", async () => {
  const dir = scratch("toolhost-lock-");
  const file = join(dir, "counter.json");
  const bump = () =>
    withLock(file, async () => {
      const n = await readState(file, 0);
      await sleep(1);
      await writeState(file, n + 1);
    });
  // Another process doing the same at the same time, through the same module.
  const script = join(dir, "other.ts");
  writeFileSync(
    script,
    `import { readState, withLock, writeState } from ${
      JSON.stringify(new URL("../../tools/_lib/state.ts", import.meta.url).href)
    };\n` +
      `for (let i = 0; i < 40; i++) await withLock(${
        JSON.stringify(file)
      }, async () => { const n = await readState(${JSON.stringify(file)}, 0); await writeState(${
        JSON.stringify(file)
      }, n + 1); });\n`,
  );
  const other = spawn(process.execPath, ["run", "-A", script], { stdio: "inherit" });
  const otherDone = new Promise((resolve) => other.once("exit", resolve));
  await Promise.all(Array.from({ length: 40 }, bump));
  assert.equal(await otherDone, 0);
  assert.equal(await readState(file, 0), 80);
});

test("a lock left by a dead process is taken over", async () => {
  const file = join(scratch("toolhost-lock-"), "x.json");
  writeFileSync(`${file}.lock`, "999999999");
  const started = Date.now();
  await withLock(file, () => writeState(file, { ok: true }));
  // Not taken over, the wait would give up at 10 s: a bound well below that holds under load.
  assert.ok(Date.now() - started < 8_000, `${Date.now() - started} ms`);
  assert.deepEqual(await readState(file, null), { ok: true });
  assert.equal(existsSync(`${file}.lock`), false);
});

/**
 * Processes started together, each doing `rounds` read-modify-writes under the lock, after a
 * process died holding it: all of them find the dead lock at once and race to take it over.
 */
async function contend(processes: number, rounds: number): Promise<number> {
  const dir = scratch("toolhost-lock-");
  const file = join(dir, "counter.json");
  writeFileSync(`${file}.lock`, "999999999");
  const go = join(dir, "go");
  const script = join(dir, "bump.ts");
  writeFileSync(
    script,
    `import { existsSync, writeFileSync } from "node:fs";\n` +
      `import process from "node:process";\n` +
      `import { readState, withLock, writeState } from ${
        JSON.stringify(new URL("../../tools/_lib/state.ts", import.meta.url).href)
      };\n` +
      `const file = ${JSON.stringify(file)};\n` +
      `writeFileSync(file + ".ready-" + process.pid, "");\n` +
      `while (!existsSync(${JSON.stringify(go)})) await new Promise((r) => setTimeout(r, 1));\n` +
      `for (let i = 0; i < ${rounds}; i++) {\n` +
      `  await withLock(file, async () => {\n` +
      `    const n = await readState(file, 0);\n` +
      `    await new Promise((r) => setTimeout(r, 2));\n` +
      `    await writeState(file, n + 1);\n` +
      `  });\n` +
      `}\n`,
  );
  const children = Array.from(
    { length: processes },
    () => spawn(process.execPath, ["run", "-A", script], { stdio: "inherit" }),
  );
  const exits = children.map((child) =>
    new Promise<number | null>((resolve) => child.once("exit", resolve))
  );
  const ready = () => children.every((child) => existsSync(`${file}.ready-${child.pid}`));
  for (const started = Date.now(); !ready(); await sleep(5)) {
    if (Date.now() - started > 30_000) throw new Error("the contending processes did not start");
  }
  writeFileSync(go, "");
  assert.deepEqual(await Promise.all(exits), children.map(() => 0));
  assert.equal(existsSync(`${file}.lock`), false);
  assert.equal(existsSync(`${file}.lock.break`), false);
  return await readState(file, 0);
}

test("processes that find a dead process's lock at once take it over one at a time", async () => {
  for (let trial = 0; trial < 5; trial++) {
    assert.equal(await contend(6, 10), 60, `trial ${trial + 1}`);
  }
});

test("a lock whose holder is alive is waited for, however old it is", async () => {
  const file = join(scratch("toolhost-lock-"), "x.json");
  const lock = `${file}.lock`;
  writeFileSync(lock, String(process.pid));
  const longAgo = new Date(Date.now() - 120_000);
  utimesSync(lock, longAgo, longAgo);
  let ran = false;
  const done = withLock(file, () => {
    ran = true;
    return Promise.resolve();
  });
  await sleep(500);
  assert.equal(ran, false, "the live holder's lock was broken");
  rmSync(lock);
  await done;
  assert.equal(ran, true);
});

test("a lock file without a pid is waited for a few seconds, then taken over", async () => {
  const file = join(scratch("toolhost-lock-"), "x.json");
  const lock = `${file}.lock`;
  // Left by a holder that died between creating the file and writing its pid into it.
  writeFileSync(lock, "");
  let ran = false;
  const done = withLock(file, () => {
    ran = true;
    return Promise.resolve();
  });
  await sleep(500);
  assert.equal(ran, false, "a lock just being written was broken");
  const earlier = new Date(Date.now() - 6_000);
  utimesSync(lock, earlier, earlier);
  const started = Date.now();
  await done;
  // Taken at the next look once stale; never taken, the wait gives up at 10 s.
  assert.ok(Date.now() - started < 8_000, `${Date.now() - started} ms`);
});

test("releasing leaves alone a lock that is no longer ours", async () => {
  const file = join(scratch("toolhost-lock-"), "x.json");
  const lock = `${file}.lock`;
  await withLock(file, () => {
    rmSync(lock);
    writeFileSync(lock, "1 someone-else");
    return Promise.resolve();
  });
  assert.equal(readFileSync(lock, "utf8"), "1 someone-else");
});

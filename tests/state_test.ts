/** The state directory and its lock: per project, atomic, and safe across processes. */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import {
  projectStateDir,
  readState,
  stateRoot,
  withLock,
  writeState,
} from "../tools/_lib/state.ts";

test("the state root follows TOOLHOST_STATE_DIR, else XDG_STATE_HOME on Linux", () => {
  const saved = { ...process.env };
  try {
    process.env.TOOLHOST_STATE_DIR = "/x/state";
    assert.equal(stateRoot(), "/x/state");
    delete process.env.TOOLHOST_STATE_DIR;
    process.env.XDG_STATE_HOME = "/xdg";
    if (process.platform === "linux") assert.equal(stateRoot(), "/xdg/toolhost");
  } finally {
    process.env = saved;
  }
});

test("each project gets its own readable directory", async () => {
  const saved = process.env.TOOLHOST_STATE_DIR;
  process.env.TOOLHOST_STATE_DIR = mkdtempSync(join(tmpdir(), "toolhost-state-"));
  try {
    const a = await projectStateDir("/work/my app");
    const b = await projectStateDir("/other/my app");
    assert.notEqual(a, b);
    assert.match(a, /\/projects\/my_app-[0-9a-f]{12}$/);
  } finally {
    if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
    else process.env.TOOLHOST_STATE_DIR = saved;
  }
});

test("read-modify-write under the lock loses no update, even across processes", async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-lock-"));
  const file = join(dir, "counter.json");
  const bump = () =>
    withLock(file, async () => {
      const n = await readState(file, 0);
      await new Promise((r) => setTimeout(r, 1));
      await writeState(file, n + 1);
    });
  // Another process doing the same at the same time, through the same module.
  const script = join(dir, "other.ts");
  writeFileSync(
    script,
    `import { readState, withLock, writeState } from ${
      JSON.stringify(new URL("../tools/_lib/state.ts", import.meta.url).href)
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
  const dir = mkdtempSync(join(tmpdir(), "toolhost-lock-"));
  const file = join(dir, "x.json");
  writeFileSync(`${file}.lock`, "999999999");
  const started = Date.now();
  await withLock(file, () => writeState(file, { ok: true }));
  assert.ok(Date.now() - started < 2000);
  assert.deepEqual(await readState(file, null), { ok: true });
});

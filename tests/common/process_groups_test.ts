/**
 * process_groups: the TOOLHOST_RUN mark found in an environment block, and a group's stop
 * reaching a descendant that left the group (Linux: it reads /proc).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { spawn } from "node:child_process";
import {
  holds,
  signalOwned,
  spawnInGroup,
  terminateGroup,
} from "../../tools/_lib/processes/_process_groups.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";

const test = posixOnlyTest("process groups, signals, /proc and the /bin/sh watchdog");

const bytes = (text: string) => new TextEncoder().encode(text);

/** Groups are what is tested here; confined ones, through the binary (tests/e2e). */
const UNCONFINED = { confinement: { unconfined: "a unit test of process groups" } };

test("holds: a whole variable, or the start of one, never the middle of another", () => {
  const environ = bytes("A=1\0TOOLHOST_RUN=abc.12\0B=xTOOLHOST_RUN=zzz.1\0");
  assert.equal(holds(environ, bytes("TOOLHOST_RUN=abc.12"), true), true);
  assert.equal(holds(environ, bytes("TOOLHOST_RUN=abc.1"), true), false);
  assert.equal(holds(environ, bytes("TOOLHOST_RUN=abc."), false), true);
  assert.equal(holds(environ, bytes("TOOLHOST_RUN=zzz."), false), false);
  assert.equal(holds(bytes("TOOLHOST_RUN=abc.3"), bytes("TOOLHOST_RUN=abc.3"), true), true);
  assert.equal(holds(bytes(""), bytes("TOOLHOST_RUN=abc."), false), false);
});

test("stopping a group also stops what left it with setsid, and only that run's processes", {
  skip: process.platform !== "linux" && "reads /proc",
}, async () => {
  const m = String(30000 + Math.floor(Math.random() * 9999));
  const other = spawnInGroup("/bin/sh", ["-c", `setsid sleep ${m}3 >/dev/null 2>&1 & wait`], {
    stdio: "ignore",
  }, UNCONFINED);
  const child = spawnInGroup(
    "/bin/sh",
    [
      "-c",
      `setsid sleep ${m}1 >/dev/null 2>&1 & sleep ${m}2`,
    ],
    { stdio: "ignore" },
    UNCONFINED,
  );
  const sleeps = (n: string) =>
    processesWith(`sleep ${m}${n}`).filter((line) => /^\d+: sleep /.test(line)).length;
  assert.ok(await waitUntil(() => sleeps("1") + sleeps("2") + sleeps("3") === 3, 5000));
  await terminateGroup(child.pid!, 200);
  assert.ok(await waitUntil(() => sleeps("1") + sleeps("2") === 0, 2000), "the run is gone");
  assert.equal(sleeps("3"), 1, "another run's setsid process is left alone");
  await terminateGroup(other.pid!, 0, "SIGKILL");
  assert.ok(await waitUntil(() => sleeps("3") === 0, 2000));
});

test(
  "signalOwned: a group whose members lack the run's mark is never signalled (a recycled pgid)",
  {
    skip: process.platform !== "linux" && "reads /proc",
  },
  async () => {
    const m = String(30000 + Math.floor(Math.random() * 9999));
    const mark = bytes(`TOOLHOST_RUN=ownedtest${m}.1`);
    const sleeps = (n: string) =>
      processesWith(`sleep ${m}${n}`).filter((line) => /^\d+: \S*sleep /.test(line)).length;
    const start = (script: string, marked: boolean) =>
      spawn("/bin/sh", ["-c", script], {
        stdio: "ignore",
        detached: true,
        env: marked ? { ...process.env, TOOLHOST_RUN: `ownedtest${m}.1` } : { ...process.env },
      });
    // Someone else's group (as after a pgid is recycled): nothing in it carries the mark.
    const foreign = start(`sleep ${m}1`, false);
    assert.ok(await waitUntil(() => sleeps("1") === 1, 5000));
    assert.equal(signalOwned(new Map([[foreign.pid!, mark]]), "SIGKILL"), 0);
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(sleeps("1"), 1, "a foreign group is left alone");
    // Our group while its marked leader lives: the whole group, a member without the mark too.
    const ours = start(`env -u TOOLHOST_RUN sleep ${m}2 & exec sleep ${m}3`, true);
    assert.ok(await waitUntil(() => sleeps("2") + sleeps("3") === 2, 5000));
    assert.equal(signalOwned(new Map([[ours.pid!, mark]]), "SIGKILL"), 1);
    assert.ok(await waitUntil(() => sleeps("2") + sleeps("3") === 0, 2000), "the group is gone");
    // Our group after its leader exited: only the members that carry the mark, each by pid.
    const left = start(`sleep ${m}4 & env -u TOOLHOST_RUN sleep ${m}5 &`, true);
    assert.ok(
      await waitUntil(() => sleeps("4") + sleeps("5") === 2 && left.exitCode !== null, 5000),
    );
    assert.equal(signalOwned(new Map([[left.pid!, mark]]), "SIGKILL"), 1);
    assert.ok(await waitUntil(() => sleeps("4") === 0, 2000), "the marked member is gone");
    assert.equal(sleeps("5"), 1, "the residual: a member without the mark, its leader gone");
    for (const pgid of [foreign.pid!, left.pid!]) process.kill(-pgid, "SIGKILL");
    assert.ok(await waitUntil(() => sleeps("1") + sleeps("5") === 0, 2000));
  },
);

/**
 * process_groups: the TOOLHOST_RUN mark found in an environment block, and a group's stop
 * reaching a descendant that left the group (Linux: it reads /proc).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { holds, spawnInGroup, terminateGroup } from "../../tools/_lib/process_groups.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";

const test = posixOnlyTest("process groups, signals, /proc and the /bin/sh watchdog");

const bytes = (text: string) => new TextEncoder().encode(text);

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
  });
  const child = spawnInGroup("/bin/sh", [
    "-c",
    `setsid sleep ${m}1 >/dev/null 2>&1 & sleep ${m}2`,
  ], { stdio: "ignore" });
  const sleeps = (n: string) =>
    processesWith(`sleep ${m}${n}`).filter((line) => /^\d+: sleep /.test(line)).length;
  assert.ok(await waitUntil(() => sleeps("1") + sleeps("2") + sleeps("3") === 3, 5000));
  await terminateGroup(child.pid!, 200);
  assert.ok(await waitUntil(() => sleeps("1") + sleeps("2") === 0, 2000), "the run is gone");
  assert.equal(sleeps("3"), 1, "another run's setsid process is left alone");
  await terminateGroup(other.pid!, 0, "SIGKILL");
  assert.ok(await waitUntil(() => sleeps("3") === 0, 2000));
});

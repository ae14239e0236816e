/** The Windows kill plan: taskkill over the whole tree, forcibly, and what its exit code means. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { treeKillOutcome, treeKillPlan } from "../../tools/_lib/processes/_windows_tree_kill.ts";

test("taskkill /PID <pid> /T /F from System32", () => {
  assert.deepEqual(treeKillPlan(4242, { SystemRoot: "D:\\Win" }), {
    file: "D:\\Win\\System32\\taskkill.exe",
    args: ["/PID", "4242", "/T", "/F"],
  });
  assert.equal(treeKillPlan(1, {}).file, "C:\\Windows\\System32\\taskkill.exe");
  assert.throws(() => treeKillPlan(0, {}), RangeError);
  assert.throws(() => treeKillPlan(-5, {}), RangeError);
});

test("exit codes: 0 killed, 128 already gone, others failed", () => {
  assert.equal(treeKillOutcome(0), "killed");
  assert.equal(treeKillOutcome(128), "gone");
  assert.equal(treeKillOutcome(1), "failed");
  assert.equal(treeKillOutcome(255), "failed");
  assert.equal(treeKillOutcome(null), "failed");
});

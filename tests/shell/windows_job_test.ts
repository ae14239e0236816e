/**
 * The Job Object's limit block, checked byte for byte on any machine; jobs themselves need
 * Windows and bun:ffi (tests/e2e/windows_shell_test.ts on the Windows job; tried under Wine).
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import {
  EXTENDED_LIMIT_SIZE,
  JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE,
  jobFor,
  jobsAvailable,
  jobsReady,
  killOnCloseLimits,
} from "../../tools/_lib/processes/_windows_job.ts";

test("the limit block is JOBOBJECT_EXTENDED_LIMIT_INFORMATION (x64) with only kill-on-close set", () => {
  const block = killOnCloseLimits();
  assert.equal(block.length, EXTENDED_LIMIT_SIZE);
  assert.equal(EXTENDED_LIMIT_SIZE, 144);
  // LimitFlags follows two LARGE_INTEGER time limits: bytes 16..19, little-endian 0x2000.
  assert.deepEqual([...block.subarray(16, 20)], [0x00, 0x20, 0x00, 0x00]);
  assert.equal(JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE, 0x2000);
  assert.equal(block.reduce((sum, byte) => sum + byte, 0), 0x20, "nothing else is set");
});

test("off Windows no job is made: the taskkill path stands alone", {
  skip: process.platform === "win32" && "on Windows jobs are made",
}, async () => {
  await jobsReady();
  assert.equal(jobsAvailable(), false);
  assert.equal(jobFor(process.pid), undefined);
});

/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against
 * dist/toolhost-conformance over Streamable HTTP, through scripts/conformance.ts: every active
 * scenario must pass with an empty baseline, and the 2026-07-28 draft scenarios must fail only
 * where tests/conformance/expected_failures_draft.yaml says why.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { promisify } from "node:util";
import { binary, ROOT } from "../helpers/raw_client.ts";

const run = promisify(execFile);
const CONFORMANCE_BINARY = `${ROOT}dist/toolhost-conformance`;

async function suite(...args: string[]) {
  try {
    const { stdout } = await run(
      `${ROOT}node_modules/.bin/deno`,
      ["run", "--allow-all", "scripts/conformance.ts", binary(CONFORMANCE_BINARY), ...args],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

test("every active scenario of the official conformance suite passes, with nothing excused", async () => {
  const baseline = readFileSync(`${ROOT}tests/conformance/expected_failures.yaml`, "utf8");
  assert.match(baseline, /^server: \[\]$/m);
  const { code, stdout } = await suite();
  assert.equal(code, 0, stdout);
  const total = stdout.match(/conformance: (\d+) checks passed, (\d+) failed/);
  assert.ok(total, stdout);
  assert.equal(total[2], "0", stdout);
  assert.ok(Number(total[1]) >= 70, stdout);
  assert.equal((stdout.match(/^ {2}\d+\. /gm) ?? []).length, 31, "31 active scenarios ran");
});

test("the 2026-07-28 draft scenarios fail only where the draft baseline says why", async () => {
  const { code, stdout } = await suite("--", "--suite", "draft");
  assert.equal(code, 0, stdout);
  assert.match(stdout, /conformance: \d+ checks passed/);
});

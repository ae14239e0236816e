/**
 * The official MCP conformance suite (@modelcontextprotocol/conformance) against
 * dist/toolhost-conformance over Streamable HTTP, through scripts/conformance.ts: every scenario
 * of `--suite all` (the active ones, the 2026-07-28 draft and the tasks extension) must pass,
 * with both baselines empty. One run of the whole suite takes seconds.
 */
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { promisify } from "node:util";
import { binary, ROOT } from "../helpers/raw_client.ts";
import { DENO, distBinary } from "../../scripts/toolchain.ts";

const run = promisify(execFile);
const CONFORMANCE_BINARY = distBinary("toolhost-conformance");

async function suite(...args: string[]) {
  try {
    const { stdout } = await run(
      DENO,
      ["run", "--allow-all", "scripts/conformance.ts", binary(CONFORMANCE_BINARY), ...args],
      { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

test("every scenario of the official conformance suite passes (--suite all: active, draft and extensions), with nothing excused", async () => {
  for (const file of ["expected_failures.yaml", "expected_failures_draft.yaml"]) {
    const baseline = readFileSync(`${ROOT}tests/conformance/${file}`, "utf8");
    assert.match(baseline, /^server: \[\]$/m, `${file} lists nothing`);
  }
  const { code, stdout } = await suite("--", "--suite", "all");
  assert.equal(code, 0, stdout);
  const total = stdout.match(/conformance: (\d+) checks passed, (\d+) failed/);
  assert.ok(total, stdout);
  assert.equal(total[2], "0", stdout);
  assert.ok(Number(total[1]) >= 229, stdout);
  const ran = stdout.match(/^ {2}\d+\. /gm) ?? [];
  assert.ok(ran.length >= 65, `65 scenarios ran, not ${ran.length}`);
  for (
    const scenario of [
      "tasks-lifecycle",
      "tasks-mrtr-input",
      "input-required-result-ignore-extra-params",
    ]
  ) {
    assert.match(stdout, new RegExp(`\\. ${scenario}$`, "m"), `${scenario} ran`);
  }
});

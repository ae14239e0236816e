/** The command line of dist/toolhost. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { binary, PRODUCT_BINARY, ROOT } from "../helpers/raw_client.ts";

const run = (...args: string[]) =>
  spawnSync(binary(PRODUCT_BINARY), args, { encoding: "utf8", input: "" });

test("--version prints the package version and the commit", () => {
  const { version } = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8"));
  const out = run("--version");
  assert.equal(out.status, 0);
  // The build records the commit ("+changes" when the work tree differs; "unknown" without git).
  const commit = "([0-9a-f]{12}(\\+changes)?|unknown)";
  const expected = `^toolhost ${version.replaceAll(".", "\\.")} \\(commit ${commit}\\)\n$`;
  assert.match(out.stdout, new RegExp(expected));
});

test("--help describes the options and exits 0", () => {
  const out = run("--help");
  assert.equal(out.status, 0);
  assert.match(out.stdout, /--max-line-mb/);
  assert.match(out.stdout, /2026-07-28/);
});

test("--list-tools lists bash", () => {
  const out = run("--list-tools");
  assert.equal(out.status, 0);
  assert.match(out.stdout, /^bash\s+Run a shell command$/m);
});

test("an unknown flag or a bad value is an error on stderr with exit 2 and nothing on stdout", () => {
  for (
    const args of [
      ["--bogus"],
      ["--max-line-mb", "zero"],
      ["--max-line-mb", "Infinity"],
      ["--log-level", "loud"],
      ["--root", "/no/such/dir"],
      ["extra"],
    ]
  ) {
    const out = run(...args);
    assert.equal(out.status, 2, args.join(" "));
    assert.equal(out.stdout, "");
    // Flag values are checked by the configuration loader, which reports them in its own words.
    assert.match(
      out.stderr,
      /^toolhost: (.+\nRun toolhost --help for the options|the configuration has problems:\n.+)\.?\n$/,
    );
  }
});

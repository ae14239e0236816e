/**
 * What a result says the sandbox refused: the path on a failure line in the spellings of the
 * shell, coreutils, Python, Node and Go, checked against the policy; only what the policy
 * refuses is named, with the setting; bounded.
 */
import assert from "node:assert/strict";
import { mkdtempSync, realpathSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import process from "node:process";
import { join } from "node:path";
import { test } from "node:test";
import { explainRefusals } from "../../tools/_lib/confine/_refusals.ts";
import type { Policy } from "../../tools/_lib/confine/_policy.ts";

const base = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-refusals-")));
const home = join(base, "home");
const root = join(base, "root");
/** Outside the roots and not in /tmp (whose refusals name $TMPDIR), writable by this user. */
const outside = join(homedir(), `.toolhost-refusals-test-${process.pid}`);

const policy: Policy = {
  kind: "command",
  mode: "workspace-write",
  roots: [root],
  writable: [root, "/tmp/toolhost-1/s"],
  writableFiles: [],
  readOnly: [{ path: join(root, "secrets"), why: "sandbox.deny_write" }],
  pinned: [],
  hidden: [{ path: join(home, ".ssh"), why: "credentials", setting: "sandbox.allow_read" }],
  temp: "/tmp/toolhost-1/s",
  env: {},
  caches: [],
};

const explain = (output: string, cwd = root) => explainRefusals(output, policy, cwd, home);

test("each program's spelling of a refused write names the path and the setting", () => {
  const want =
    `sandbox: refused writing ${outside}/x (outside the roots; allow with sandbox.allow_write)`;
  for (
    const line of [
      `/usr/bin/bash: line 1: ${outside}/x: Permission denied`,
      `touch: cannot touch '${outside}/x': Permission denied`,
      `mkdir: cannot create directory ‘${outside}/x’: Permission denied`,
      `PermissionError: [Errno 13] Permission denied: '${outside}/x'`,
      `Error: EACCES: permission denied, open '${outside}/x'`,
      `open ${outside}/x: permission denied`,
    ]
  ) {
    assert.deepEqual(explain(`noise\n${line}\nmore`), [want], line);
  }
});

test("a relative name is taken from the directory the command ran in", () => {
  assert.deepEqual(
    explain(`bash: line 1: ${"../".repeat(8)}${outside.slice(1)}/y: Permission denied`),
    [
      `sandbox: refused writing ${outside}/y (outside the roots; allow with sandbox.allow_write)`,
    ],
  );
});

test("credentials read, protected paths, /tmp and a read-only mode each name their setting", () => {
  assert.deepEqual(explain("cat: ~/.ssh/id_rsa: Permission denied"), [
    "sandbox: refused reading ~/.ssh/id_rsa (credentials; sandbox.allow_read)",
  ]);
  assert.deepEqual(explain(`sh: 1: cannot create ${root}/secrets/k: Read-only file system`), [
    `sandbox: refused writing ${root}/secrets/k (protected: sandbox.deny_write; sandbox.deny_write)`,
  ]);
  assert.deepEqual(explain("bash: /tmp/out.log: Permission denied"), [
    "sandbox: refused writing /tmp/out.log (outside the roots; use $TMPDIR (/tmp/toolhost-1/s) or sandbox.allow_write)",
  ]);
  const readOnly = { ...policy, mode: "read-only" as const, writable: [] };
  assert.deepEqual(
    explainRefusals("bash: line 1: a.txt: Permission denied", readOnly, root, home),
    [
      `sandbox: refused writing ${root}/a.txt (the sandbox is read-only; sandbox.mode)`,
    ],
  );
});

test("what the policy allows, or the user's own modes refuse, is not blamed on the sandbox", () => {
  assert.deepEqual(explain(`bash: ${root}/run.sh: Permission denied`), []);
  assert.deepEqual(explain("bash: /proc/sys/kernel/x: Permission denied"), []);
  assert.deepEqual(explain("kill: (1) - Operation not permitted"), []);
  assert.deepEqual(explain("toolhost-confine: cannot run /x (errno 13): Permission denied"), []);
  assert.deepEqual(explain("all is well"), []);
});

test("bounded: five lines at most, each path cut and made safe to show", () => {
  const lines = Array.from({ length: 20 }, (_, i) => `bash: ${outside}/f${i}: Permission denied`);
  assert.equal(explain(lines.join("\n")).length, 5);
  const long = `${outside}/${"n".repeat(3000)}`;
  const [said] = explain(`bash: ${long}: Permission denied`);
  assert.ok(said.length < 600, `${said.length} characters`);
  const [escaped] = explain(`touch: cannot touch '${outside}/a\x1b[31mb': Permission denied`);
  assert.ok(!escaped.includes("\x1b"), escaped);
});

test("a refusal the policy does not make names nothing, not the shell that said it", () => {
  // The shell's own path stands before the name it failed on (another process's /proc entry,
  // refused by the kernel, not by the policy): neither is named.
  const said = explain(`/usr/bin/bash: line 1: /proc/1/environ: Permission denied`);
  assert.deepEqual(said, [], said.join("\n"));
});

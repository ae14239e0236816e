import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { commandEnv, parseEnvOutput } from "../../tools/shell/_lib/login_env.ts";
import { defaultSettings } from "../../config/settings.ts";

const test = posixOnlyTest("the login environment comes from a POSIX login shell");

/**
 * What commandEnv reads of a call: its settings, where a warning goes, and what the sandbox the
 * login shell runs in needs (roots, a state directory of its own).
 */
function callWith(shellEnv: "inherit" | "login", warnings: string[] = []) {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-login-call-"));
  return {
    config: { ...defaultSettings(), shellEnv },
    serverLog: (_level: string, _logger: string, data: unknown) => warnings.push(String(data)),
    roots: () => Promise.resolve([dir]),
    state: { dir: join(dir, "state") },
  };
}

test("env output is read between the marks, NUL-separated or line by line", () => {
  const mark = "__toolhost_env_7f3a__";
  assert.deepEqual(parseEnvOutput(`motd noise${mark}A=1\0B=x=y\0MULTI=a\nb\0${mark}`), {
    A: "1",
    B: "x=y",
    MULTI: "a\nb",
  });
  assert.deepEqual(parseEnvOutput(`${mark}A=1\nPATH=/bin\n${mark}`), { A: "1", PATH: "/bin" });
  assert.equal(parseEnvOutput("no marks at all"), undefined);
});

test('shell_env "login": commands get what the login shell sets; otherwise our own environment', async () => {
  assert.equal(await commandEnv(callWith("inherit")), process.env, "inherit is the default");
  const dir = mkdtempSync(join(tmpdir(), "toolhost-login-"));
  const shell = join(dir, "fake-login-shell");
  // Called as: shell -l -i -c SCRIPT. It sets what a ~/.profile would, then runs the script.
  writeFileSync(
    shell,
    '#!/bin/sh\nFROM_PROFILE=yes PATH="/opt/custom/bin:$PATH" exec /bin/sh -c "$4"\n',
  );
  chmodSync(shell, 0o755);
  const saved = process.env.SHELL;
  process.env.SHELL = shell;
  const warnings: string[] = [];
  try {
    const env = await commandEnv(callWith("login", warnings));
    assert.equal(env.FROM_PROFILE, "yes");
    assert.match(env.PATH ?? "", /^\/opt\/custom\/bin:/);
    assert.deepEqual(warnings, []);
  } finally {
    process.env.SHELL = saved;
  }
});

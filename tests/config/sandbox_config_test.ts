/**
 * The `sandbox` keys: defaults, the string shorthand, the environment and --sandbox, their checks,
 * and a project file that may only make the sandbox stricter.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, type ConfigFlags, loadConfig } from "../../config/load.ts";
import { confinedMode } from "../../tools/_lib/confine/mod.ts";

function load(
  files: { user?: string; project?: string },
  env: Record<string, string> = {},
  flags: ConfigFlags = {},
) {
  const base = mkdtempSync(join(tmpdir(), "toolhost-sandbox-config-"));
  const xdg = join(base, "home", ".config");
  mkdirSync(join(xdg, "toolhost"), { recursive: true });
  mkdirSync(join(base, "project"));
  if (files.user) writeFileSync(join(xdg, "toolhost", "config.jsonc"), files.user);
  if (files.project) writeFileSync(join(base, "project", ".toolhost.jsonc"), files.project);
  return {
    base,
    run: () =>
      loadConfig({
        flags,
        env: { XDG_CONFIG_HOME: xdg, ...env },
        cwd: join(base, "project"),
        home: join(base, "home"),
        platform: "linux",
      }),
  };
}

function problems(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.message;
  }
  assert.fail("the configuration loaded");
}

test("sandbox: on by default, with no extra places, shared caches, not required", () => {
  const { settings, origins } = load({}).run();
  assert.deepEqual(settings.sandbox, {
    mode: "workspace-write",
    allowWrite: [],
    denyWrite: [],
    denyRead: [],
    allowRead: [],
    allowNetwork: [],
    caches: "shared",
    required: false,
  });
  assert.equal(origins.get("sandbox.mode"), "default");
});

test('"sandbox": "read-only" is the mode alone; the object form sets each key, paths from the file', () => {
  const short = load({ user: '{ "sandbox": "read-only" }' }).run();
  assert.equal(short.settings.sandbox.mode, "read-only");
  assert.match(short.origins.get("sandbox.mode")!, /^user file .*config\.jsonc:1$/);
  const user = JSON.stringify({
    sandbox: {
      mode: "off",
      allow_write: ["~/data", "rel"],
      deny_read: ["~/.config/mytool"],
      allow_read: ["~/.npmrc"],
      allow_network: ["registry.npmjs.org", "*.pypi.org", "localhost:5432", "*"],
      caches: "session",
      required: true,
    },
  });
  const { base, run } = load({ user });
  const { sandbox } = run().settings;
  const home = join(base, "home");
  assert.deepEqual(sandbox.allowWrite, [
    join(home, "data"),
    join(home, ".config", "toolhost", "rel"),
  ]);
  assert.deepEqual(sandbox.denyRead, [join(home, ".config", "mytool")]);
  assert.deepEqual(sandbox.allowRead, [join(home, ".npmrc")]);
  assert.deepEqual(sandbox.allowNetwork, [
    "registry.npmjs.org",
    "*.pypi.org",
    "localhost:5432",
    "*",
  ]);
  assert.equal(sandbox.caches, "session");
  assert.equal(sandbox.required, true);
  assert.equal(sandbox.mode, "off");
});

test("sandbox values are checked: a mode, a host, a key, each said with what is allowed", () => {
  const message = problems(load({ user: '{ "sandbox": "strict" }' }).run);
  assert.match(
    message,
    /:1:\d+: sandbox is "strict", which does not match the pattern; allowed: one of "workspace-write", "read-only", "off", or an object with the keys mode, allow_write, deny_write, deny_read, allow_read, allow_network, caches, required$/m,
  );
  const hosts = problems(
    load({ user: '{ "sandbox": { "allow_network": ["http://x.org/"] } }' }).run,
  );
  assert.match(hosts, /sandbox\.allow_network\[0\] is "http:\/\/x\.org\/", which does not match/);
  const key = problems(load({ user: '{ "sandbox": { "allow_writes": [] } }' }).run);
  assert.match(key, /unknown key "allow_writes" in sandbox; did you mean "allow_write"\?/);
});

test("TOOLHOST_SANDBOX and --sandbox set the mode, the flag over the variable over the files", () => {
  const env = load({ user: '{ "sandbox": "off" }' }, { TOOLHOST_SANDBOX: "read-only" }).run();
  assert.equal(env.settings.sandbox.mode, "read-only");
  assert.equal(env.origins.get("sandbox.mode"), "env TOOLHOST_SANDBOX");
  const flag = load({}, { TOOLHOST_SANDBOX: "read-only" }, { sandbox: "off" }).run();
  assert.equal(flag.settings.sandbox.mode, "off");
  assert.equal(flag.origins.get("sandbox.mode"), "flag --sandbox");
  assert.match(
    problems(load({}, {}, { sandbox: "loose" }).run),
    /flag --sandbox: sandbox\.mode is the string "loose"; allowed: one of "workspace-write", "read-only", "off"/,
  );
  const more = load({}, {
    TOOLHOST_SANDBOX_ALLOW_NETWORK: "a.org, b.org",
    TOOLHOST_SANDBOX_REQUIRED: "yes",
    TOOLHOST_SANDBOX_CACHES: "session",
  }).run().settings.sandbox;
  assert.deepEqual([more.allowNetwork, more.required, more.caches], [
    ["a.org", "b.org"],
    true,
    "session",
  ]);
});

test("--read-only and the read-only profile mean the read-only sandbox for every process", () => {
  assert.equal(confinedMode(load({}).run().settings), "workspace-write");
  assert.equal(confinedMode(load({}, {}, { read_only: true }).run().settings), "read-only");
  assert.equal(confinedMode(load({}, {}, { profile: "read-only" }).run().settings), "read-only");
  // Even where the sandbox was turned off: read-only is read-only.
  const off = load({ user: '{ "sandbox": "off" }' }, {}, { read_only: true }).run();
  assert.equal(confinedMode(off.settings), "read-only");
});

test("a project file may make the sandbox stricter and add to the denied places", () => {
  const user = JSON.stringify({ sandbox: { deny_write: ["~/keep"], deny_read: ["~/secret"] } });
  const project = JSON.stringify({
    sandbox: { mode: "read-only", deny_write: ["secrets/"], deny_read: ["keys"], required: true },
  });
  const { base, run } = load({ user, project });
  const { settings, origins } = run();
  const home = join(base, "home");
  assert.equal(settings.sandbox.mode, "read-only");
  assert.equal(settings.sandbox.required, true);
  assert.deepEqual(settings.sandbox.denyWrite, [
    join(home, "keep"),
    join(base, "project", "secrets"),
  ]);
  assert.deepEqual(settings.sandbox.denyRead, [
    join(home, "secret"),
    join(base, "project", "keys"),
  ]);
  assert.match(origins.get("sandbox.deny_write")!, /^user file .* and project file .*/);
});

test("a project file cannot loosen the sandbox: allow_*, caches, a looser mode, required false", () => {
  const project = JSON.stringify({
    sandbox: {
      mode: "off",
      allow_write: ["/"],
      allow_read: ["~/.ssh"],
      allow_network: ["*"],
      caches: "session",
    },
  });
  const message = problems(load({ project }).run);
  for (
    const [key, why] of [
      ["sandbox.allow_write", "let commands write outside the project"],
      ["sandbox.allow_read", "let commands read your credentials"],
      ["sandbox.allow_network", "let commands reach the network"],
      ["sandbox.caches", "change where commands may write"],
    ]
  ) {
    assert.match(
      message,
      new RegExp(
        `a project file cannot set ${
          key.replace(".", "\\.")
        }: it would ${why}; allowed: set it in the user file`,
      ),
    );
  }
  assert.match(
    message,
    /a project file cannot set sandbox\.mode to off: it would loosen the sandbox \(workspace-write by default\); allowed: a stricter mode/,
  );
  const user = '{ "sandbox": { "mode": "read-only", "required": true } }';
  const looser = problems(
    load({ user, project: '{ "sandbox": { "mode": "workspace-write", "required": false } }' }).run,
  );
  assert.match(
    looser,
    /cannot set sandbox\.mode to workspace-write: .*\(read-only in the user file\)/,
  );
  assert.match(looser, /cannot set sandbox\.required to false: the user file requires a sandbox/);
  // The shorthand is held to the same rule.
  assert.match(problems(load({ project: '{ "sandbox": "off" }' }).run), /sandbox\.mode to off/);
  // A file the user names is the user's: it may set anything.
  const named = load({}, {}, {}).base;
  writeFileSync(join(named, "mine.jsonc"), '{ "sandbox": "off" }');
  const mine = loadConfig({
    flags: { config: join(named, "mine.jsonc") },
    env: { XDG_CONFIG_HOME: join(named, "home", ".config") },
    cwd: join(named, "project"),
    home: join(named, "home"),
    platform: "linux",
  });
  assert.equal(mine.settings.sandbox.mode, "off");
});

test("the files toolhost reads are named in the settings, so commands never write them", () => {
  const { base, run } = load({ project: "{}" });
  assert.deepEqual(run().settings.configFiles, [
    join(base, "home", ".config", "toolhost", "config.jsonc"),
    join(base, "project", ".toolhost.jsonc"),
  ]);
});

/**
 * `sandbox.allow_network`: empty by default, the user's to set (file or
 * TOOLHOST_SANDBOX_ALLOW_NETWORK), never a project file's, and each entry checked by the schema.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { ConfigError, loadConfig } from "../../config/load.ts";

const made: string[] = [];
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function load(files: { user?: unknown; project?: unknown }, env: Record<string, string> = {}) {
  const base = mkdtempSync(join(tmpdir(), "toolhost-sandbox-net-config-"));
  made.push(base);
  const xdg = join(base, "home", ".config");
  mkdirSync(join(xdg, "toolhost"), { recursive: true });
  mkdirSync(join(base, "project"));
  const write = (path: string, value: unknown) => writeFileSync(path, JSON.stringify(value));
  if (files.user) write(join(xdg, "toolhost", "config.jsonc"), files.user);
  if (files.project) write(join(base, "project", ".toolhost.jsonc"), files.project);
  return loadConfig({
    flags: {},
    env: { XDG_CONFIG_HOME: xdg, ...env },
    cwd: join(base, "project"),
    home: join(base, "home"),
    platform: "linux",
  });
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

const allow = (list: unknown) => ({ sandbox: { allow_network: list } });

test("sandbox.allow_network: empty by default; names, suffixes, ports, addresses and * from the user file", () => {
  assert.deepEqual(load({}).settings.sandbox.allowNetwork, []);
  const list = [
    "registry.npmjs.org",
    "*.pypi.org",
    "localhost:5432",
    "127.0.0.1:8080",
    "10.0.0.7",
    "[::1]:5432",
    "*",
  ];
  const loaded = load({ user: allow(list) });
  assert.deepEqual(loaded.settings.sandbox.allowNetwork, list);
  assert.match(loaded.origins.get("sandbox.allow_network")!, /^user file .*config\.jsonc:1$/);
});

test("sandbox.allow_network: refused in a project file, which comes with the repository", () => {
  assert.match(
    problems(() => load({ project: allow(["evil.example"]) })),
    /a project file cannot set sandbox\.allow_network: it would let commands reach the network/,
  );
});

test("sandbox.allow_network: TOOLHOST_SANDBOX_ALLOW_NETWORK, comma-separated, wins over the file", () => {
  const loaded = load({ user: allow(["a.example"]) }, {
    TOOLHOST_SANDBOX_ALLOW_NETWORK: " b.example , *.c.example:443 ",
  });
  assert.deepEqual(loaded.settings.sandbox.allowNetwork, ["b.example", "*.c.example:443"]);
  assert.equal(loaded.origins.get("sandbox.allow_network"), "env TOOLHOST_SANDBOX_ALLOW_NETWORK");
});

test("sandbox.allow_network: an entry that names no host is refused, saying what is allowed", () => {
  for (
    const bad of ["https://example.com", "example.com/path", "exa mple.com", "*example.com", ""]
  ) {
    assert.match(
      problems(() => load({ user: allow([bad]) })),
      /sandbox\.allow_network\[0\] is .*allowed: /,
      bad,
    );
  }
  assert.match(problems(() => load({ user: { sandbox: { allow_netwrok: [] } } })), /allow_network/);
});

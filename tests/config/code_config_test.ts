/** The `code` keys: defaults, the environment, language servers (user file only), their checks. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../config/load.ts";

function load(files: { user?: string; project?: string }, env: Record<string, string> = {}) {
  const base = mkdtempSync(join(tmpdir(), "toolhost-code-config-"));
  const xdg = join(base, "home", ".config");
  mkdirSync(join(xdg, "toolhost"), { recursive: true });
  mkdirSync(join(base, "project"));
  if (files.user) writeFileSync(join(xdg, "toolhost", "config.jsonc"), files.user);
  if (files.project) writeFileSync(join(base, "project", ".toolhost.jsonc"), files.project);
  return {
    base,
    run: () =>
      loadConfig({
        flags: {},
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

test("code: defaults, and the environment turns diagnostics after edits off", () => {
  const { code } = load({}).run().settings;
  assert.deepEqual(code, {
    diagnosticsAfterEdit: true,
    serverIdleSeconds: 600,
    serverMemoryMb: 4096,
    diagnosticsWaitSeconds: 2,
    queryWaitSeconds: 45,
    startOnRead: true,
    languageServers: {},
  });
  const off = load({}, {
    TOOLHOST_CODE_DIAGNOSTICS: "no",
    TOOLHOST_CODE_DIAGNOSTICS_WAIT_SECONDS: "30",
    TOOLHOST_CODE_QUERY_WAIT_SECONDS: "5",
    TOOLHOST_CODE_START_ON_READ: "0",
  }).run().settings.code;
  assert.equal(off.diagnosticsAfterEdit, false);
  assert.equal(off.diagnosticsWaitSeconds, 30);
  assert.equal(off.queryWaitSeconds, 5);
  assert.equal(off.startOnRead, false);
});

test("code.language_servers from the user file; a relative program is the file's neighbour", () => {
  const user = JSON.stringify({
    code: {
      language_servers: {
        lua: { command: ["./bin/lua-ls", "--stdio"], extensions: [".lua"], env: { A: "1" } },
      },
    },
  });
  const { base, run } = load({ user });
  const lua = run().settings.code.languageServers.lua;
  assert.deepEqual(lua.command, [
    join(base, "home", ".config", "toolhost", "bin", "lua-ls"),
    "--stdio",
  ]);
  assert.deepEqual(lua.extensions, [".lua"]);
});

test("code.language_servers is checked like every key, and refused in a project file", () => {
  const bad = JSON.stringify({ code: { language_servers: { lua: { command: [] } } } });
  const message = problems(load({ user: bad }).run);
  assert.match(
    message,
    /:1:\d+: code\.language_servers\.lua has no "extensions", which is required/,
  );
  assert.match(message, /code\.language_servers\.lua\.command is empty/);
  const project = JSON.stringify({
    code: { language_servers: { x: { command: ["x"], extensions: ["x"] } } },
  });
  assert.match(
    problems(load({ project }).run),
    /a project file cannot set code\.language_servers: it would run its programs/,
  );
  const idle = JSON.stringify({ code: { server_idle_seconds: 1 } });
  assert.match(
    problems(load({ user: idle }).run),
    /code\.server_idle_seconds is 1, below the minimum 10/,
  );
});

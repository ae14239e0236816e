/**
 * The `http.auth` keys and `http.origins`: defaults, the user file only, the schema's checks, and what
 * mcp/http/auth_settings.ts checks at start-up (loopback-only http, distinct scopes, the
 * introspection client's secret taken out of the environment).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError, loadConfig } from "../../config/load.ts";
import { authPlan } from "../../mcp/http/auth_settings.ts";

function load(files: { user?: string; project?: string }) {
  const base = mkdtempSync(join(tmpdir(), "toolhost-auth-config-"));
  const xdg = join(base, "home", ".config");
  mkdirSync(join(xdg, "toolhost"), { recursive: true });
  mkdirSync(join(base, "project"));
  if (files.user) writeFileSync(join(xdg, "toolhost", "config.jsonc"), files.user);
  if (files.project) writeFileSync(join(base, "project", ".toolhost.jsonc"), files.project);
  return () =>
    loadConfig({
      flags: {},
      env: { XDG_CONFIG_HOME: xdg },
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

const auth = (value: Record<string, unknown>) => JSON.stringify({ http: { auth: value } });

test("http.auth: off by default, read from the user file with its defaults", () => {
  assert.equal(load({})().settings.http.auth.issuer, undefined);
  const loaded = load({ user: auth({ issuer: "https://as.example" }) })();
  assert.deepEqual(loaded.settings.http.auth, {
    issuer: "https://as.example",
    readScope: "toolhost:read",
    writeScope: "toolhost:write",
    jwksCooldownSeconds: 30,
  });
  assert.match(loaded.places.get("http.auth.issuer")!, /config\.jsonc:1:\d+$/);
});

test("http.auth: refused in a project file, and checked by the schema", () => {
  assert.match(
    problems(load({ project: auth({ issuer: "https://as.example" }) })),
    /a project file cannot set http\.auth\.issuer: it would decide who may use toolhost over HTTP/,
  );
  const bad = problems(load({
    user: auth({ issuer: "ftp://as", read_scope: "two words", jwks_cooldown_seconds: 0, other: 1 }),
  }));
  assert.match(bad, /http\.auth\.issuer/);
  assert.match(bad, /http\.auth\.read_scope/);
  assert.match(bad, /http\.auth\.jwks_cooldown_seconds is 0, below the minimum 1/);
  assert.match(bad, /unknown key "other" in http\.auth/);
});

test("http.origins: from the user file, refused in a project file, origins only", () => {
  assert.deepEqual(load({})().settings.http.origins, []);
  const origins = (value: unknown) => JSON.stringify({ http: { origins: value } });
  const loaded = load({ user: origins(["https://app.example.com", "http://localhost:5173"]) })();
  assert.deepEqual(loaded.settings.http.origins, [
    "https://app.example.com",
    "http://localhost:5173",
  ]);
  assert.match(
    problems(load({ project: origins(["https://app.example.com"]) })),
    /a project file cannot set http\.origins: it would let pages of other origins drive toolhost/,
  );
  assert.match(problems(load({ user: origins(["app.example.com/path"]) })), /http\.origins/);
});

test("start-up checks: http only on loopback, distinct scopes, the secret taken from the environment", () => {
  const settings = (extra: Record<string, unknown>) => ({
    readScope: "toolhost:read",
    writeScope: "toolhost:write",
    jwksCooldownSeconds: 30,
    ...extra,
  });
  const where = (key: string) => `here(${key})`;
  assert.equal(authPlan(settings({}), where, {}), undefined);
  const remote = authPlan(settings({ issuer: "http://as.example" }), where, {});
  assert.ok(Array.isArray(remote));
  assert.match(remote[0], /^here\(http\.auth\.issuer\): .* must be https, or http on a loopback/);
  const same = authPlan(
    settings({ issuer: "http://127.0.0.1:4000", writeScope: "toolhost:read" }),
    where,
    {},
  );
  assert.ok(Array.isArray(same) && /must differ/.test(same[0]));
  const fragment = authPlan(
    settings({ issuer: "https://as.example", resource: "https://me.example/mcp#x" }),
    where,
    {},
  );
  assert.ok(Array.isArray(fragment) && /has a fragment/.test(fragment[0]));
  // Listening on 0.0.0.0 or a LAN address, the resource cannot be guessed from the address.
  const open = authPlan(settings({ issuer: "https://as.example" }), where, {}, false);
  assert.ok(
    Array.isArray(open) && /http\.auth\.resource must be set when --http listens/.test(
      open[0],
    ),
  );
  const named = authPlan(
    settings({ issuer: "https://as.example", resource: "https://tools.example/mcp" }),
    where,
    {},
    false,
  );
  assert.ok(named && !Array.isArray(named));
  const env: Record<string, string | undefined> = { TOOLHOST_HTTP_AUTH_CLIENT_SECRET: "s3cret" };
  const plan = authPlan(
    settings({
      issuer: "https://as.example",
      introspectionUrl: "https://as.example/introspect",
      clientId: "toolhost",
    }),
    where,
    env,
  );
  assert.ok(plan && !Array.isArray(plan));
  assert.deepEqual(plan.introspection, {
    url: "https://as.example/introspect",
    clientId: "toolhost",
    clientSecret: "s3cret",
  });
  assert.equal(plan.cooldownMs, 30_000);
  assert.equal(env.TOOLHOST_HTTP_AUTH_CLIENT_SECRET, undefined, "commands will not see it");
});

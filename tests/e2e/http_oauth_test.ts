/**
 * The binary as an OAuth 2.1 protected resource (`http.auth.*` in the user config), driven with
 * raw fetch requests against a small issuer on 127.0.0.1 (tests/helpers/oauth_issuer.ts): the
 * metadata document, 401s that name it, a token's call, expired / wrong-audience / forged
 * tokens, key rotation (a new kid is fetched; one that never appears is refused), 403 for a
 * missing scope, tools/list narrowed for a read token, introspection, the start-up refusal of
 * --http-token beside an issuer, and no token text on stderr. The flow with a real
 * authorization server and the SDK client is h/oauth-e2e's test.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { before, test } from "node:test";
import {
  type HttpServer,
  postModern,
  sseMessages,
  startHttpServer,
} from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, PRODUCT_BINARY } from "../helpers/raw_client.ts";
import {
  newKey,
  type SigningKey,
  signToken,
  startIssuer,
  type TestIssuer,
} from "../helpers/oauth_issuer.ts";

const e2e = e2eFixture();

const READ = "toolhost:read";
const WRITE = "toolhost:write";
const SECRET_VARIABLE = "TOOLHOST_HTTP_AUTH_CLIENT_SECRET";

let issuer: TestIssuer;
let key: SigningKey;
let server: HttpServer;
let root: string;
let configHome: string;
/** Every token this file made: none may appear on the server's stderr. */
const tokens: string[] = [];

/** A user config file (XDG_CONFIG_HOME) with `auth` as http.auth. */
function userConfig(auth: Record<string, unknown>): string {
  const home = e2e.file.scratch("oauth-config");
  mkdirSync(join(home, "toolhost"));
  writeFileSync(join(home, "toolhost", "config.jsonc"), JSON.stringify({ http: { auth } }));
  return home;
}

before(async () => {
  key = await newKey("k1");
  issuer = await startIssuer([key]);
  root = e2e.file.scratch("oauth-root");
  writeFileSync(join(root, "hello.txt"), "hello over oauth\n");
  configHome = userConfig({
    issuer: issuer.issuer,
    introspection_url: issuer.introspectionUrl,
    client_id: issuer.client.id,
    jwks_cooldown_seconds: 1,
  });
  server = await startHttpServer(
    PRODUCT_BINARY,
    ["--root", root],
    { XDG_CONFIG_HOME: configHome, [SECRET_VARIABLE]: issuer.client.secret },
    root,
  );
});

e2e.file.cleanup(async () => {
  await server.terminate();
  await issuer.close();
});

async function token(
  claims: Parameters<typeof signToken>[2],
  by = key,
): Promise<string> {
  const made = await signToken(by, issuer.issuer, { aud: server.url, ...claims });
  tokens.push(made);
  return made;
}

/** A 2026-07-28 request with `bearer` as its access token. */
function call(
  method: string,
  params: Record<string, unknown>,
  bearer?: string,
): Promise<Response> {
  const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {};
  return postModern(server.url, 1, method, params, headers);
}

/** The JSON-RPC reply in a response, JSON or an event stream. */
async function reply(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if ((response.headers.get("content-type") ?? "").includes("text/event-stream")) {
    return sseMessages(text).at(-1)!;
  }
  return JSON.parse(text);
}

function challenge(response: Response): Record<string, string> {
  const header = response.headers.get("www-authenticate") ?? "";
  assert.match(header, /^Bearer /);
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

const prmUrl = () => server.url.replace(/\/mcp$/, "/.well-known/oauth-protected-resource/mcp");

/** Waits until the issuer's key set may be fetched again (the server's cooldown is 1 s). */
async function pastCooldown(): Promise<void> {
  const wait = issuer.lastJwksFetch + 1_200 - Date.now();
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
}

test("the metadata document names this server and its issuer, and a 401 points to it", async () => {
  const response = await fetch(prmUrl());
  assert.equal(response.status, 200);
  assert.deepEqual(await response.json(), {
    resource: server.url,
    authorization_servers: [issuer.issuer],
    scopes_supported: [READ, WRITE],
    bearer_methods_supported: ["header"],
    resource_name: "toolhost",
  });
  const root = await fetch(server.url.replace(/\/mcp$/, "/.well-known/oauth-protected-resource"));
  assert.equal((await root.json()).resource, server.url);

  const refused = await call("tools/list", {});
  assert.equal(refused.status, 401);
  const params = challenge(refused);
  assert.equal(params.resource_metadata, prmUrl());
  assert.equal(params.scope, `${READ} ${WRITE}`);
  assert.equal(params.error, undefined);
  await refused.body?.cancel();
});

test("a write token calls a tool that changes files; a read token gets 403 for it", async () => {
  const write = await token({ scope: `${READ} ${WRITE}` });
  const done = await call("tools/call", {
    name: "write_file",
    arguments: { path: "made.txt", content: "by oauth\n" },
  }, write);
  assert.equal(done.status, 200);
  const result = (await reply(done)).result as { isError?: boolean };
  assert.notEqual(result.isError, true, JSON.stringify(result));
  assert.equal(readFileSync(join(root, "made.txt"), "utf8"), "by oauth\n");

  const read = await token({ scope: READ });
  const refused = await call("tools/call", {
    name: "write_file",
    arguments: { path: "not.txt", content: "no\n" },
  }, read);
  assert.equal(refused.status, 403);
  const params = challenge(refused);
  assert.equal(params.error, "insufficient_scope");
  assert.equal(params.scope, WRITE);
  assert.equal(params.resource_metadata, prmUrl());
  // The same JSON-RPC code as on a channel (-32600: MCP defines none for a refused scope).
  const error = (await reply(refused)).error as { code: number; message: string };
  assert.equal(error.code, -32600);
  assert.match(error.message, /toolhost:write/);

  const allowed = await call(
    "tools/call",
    { name: "read_file", arguments: { path: "hello.txt" } },
    read,
  );
  assert.equal(allowed.status, 200);
  assert.match(JSON.stringify(await reply(allowed)), /hello over oauth/);

  const listed = (await reply(await call("tools/list", {}, read))).result as {
    tools: { name: string; annotations?: { readOnlyHint?: boolean } }[];
  };
  const names = listed.tools.map((tool) => tool.name);
  assert.ok(names.includes("read_file") && names.includes("grep"), names.join(" "));
  assert.ok(!names.includes("write_file") && !names.includes("bash"), names.join(" "));
  assert.ok(listed.tools.every((tool) => tool.annotations?.readOnlyHint === true));
  const all = (await reply(await call("tools/list", {}, write))).result as { tools: unknown[] };
  assert.ok(all.tools.length > listed.tools.length);
});

test("a read token cannot write a file through a read-only tool's writing argument (fetch_url save_to)", async () => {
  const read = await token({ scope: READ });
  const refused = await call("tools/call", {
    name: "fetch_url",
    arguments: {
      url: `${server.url.replace(/\/mcp$/, "")}/.well-known/oauth-protected-resource/mcp`,
      save_to: "saved.json",
    },
  }, read);
  assert.equal(refused.status, 403);
  assert.equal(challenge(refused).scope, WRITE);
  assert.throws(() => readFileSync(join(root, "saved.json")));
});

test("expired, wrong-audience and forged tokens get 401 invalid_token", async () => {
  const forger = await newKey("k1"); // the right kid, another key
  const cases: [string, string][] = [
    ["expired", await token({ scope: WRITE, expiresIn: -120 })],
    ["wrong audience", await token({ scope: WRITE, aud: "http://127.0.0.1:1/mcp" })],
    ["forged", await token({ scope: WRITE }, forger)],
  ];
  for (const [name, bad] of cases) {
    const response = await call("tools/list", {}, bad);
    assert.equal(response.status, 401, name);
    const params = challenge(response);
    assert.equal(params.error, "invalid_token", name);
    assert.equal(params.resource_metadata, prmUrl(), name);
    const body = await response.text();
    for (const part of bad.split(".").slice(1)) assert.ok(!body.includes(part), name);
  }
});

test("a key added by rotation is fetched and accepted; a key that never appears is refused", async () => {
  const first = await token({ scope: READ });
  assert.equal((await call("tools/list", {}, first)).status, 200);
  const rotated = await newKey("k2");
  issuer.published = [key, rotated];
  await pastCooldown();
  const before = issuer.jwksFetches;
  const fresh = await call("tools/list", {}, await token({ scope: READ }, rotated));
  assert.equal(fresh.status, 200);
  await fresh.body?.cancel();
  assert.equal(issuer.jwksFetches, before + 1, "one fetch for the new kid");

  await pastCooldown();
  const stranger = await newKey("k3");
  const unknown = await call("tools/list", {}, await token({ scope: READ }, stranger));
  assert.equal(unknown.status, 401);
  assert.equal(challenge(unknown).error, "invalid_token");
  assert.equal(issuer.jwksFetches, before + 2, "one more fetch, then refused");
  await unknown.body?.cancel();
});

test("opaque tokens are introspected: active ones pass with their scope, inactive ones get 401", async () => {
  const active = "opaque-e2e-active-6611";
  const inactive = "opaque-e2e-inactive-6612";
  tokens.push(active, inactive);
  const exp = Math.floor(Date.now() / 1000) + 300;
  issuer.opaque.set(active, {
    active: true,
    scope: READ,
    aud: server.url,
    iss: issuer.issuer,
    exp,
  });
  const ok = await call("tools/list", {}, active);
  assert.equal(ok.status, 200);
  await ok.body?.cancel();
  const forbidden = await call("tools/call", {
    name: "write_file",
    arguments: { path: "x.txt", content: "x" },
  }, active);
  assert.equal(forbidden.status, 403);
  await forbidden.body?.cancel();
  const refused = await call("tools/list", {}, inactive);
  assert.equal(refused.status, 401);
  assert.equal(challenge(refused).error, "invalid_token");
  await refused.body?.cancel();
  assert.ok(issuer.bodies.some((body) => body.includes("token=opaque-e2e-active")));
});

test("a WebSocket opened with a read token gets a JSON-RPC error for a tool that changes files", async () => {
  const read = await token({ scope: READ });
  const url = `ws://127.0.0.1:${server.port}/mcp`;
  // Deno's WebSocket takes request headers (a browser's cannot send Authorization at all).
  const open = (headers: Record<string, string>) =>
    new (WebSocket as unknown as new (
      url: string,
      options: { protocols: string[]; headers: Record<string, string> },
    ) => WebSocket)(url, { protocols: ["mcp"], headers });
  const refused = open({});
  const outcome = await new Promise((resolve) => {
    refused.onopen = () => resolve("open");
    refused.onerror = () => resolve("refused");
  });
  assert.equal(outcome, "refused", "no token: the handshake is refused (401)");

  const socket = open({ authorization: `Bearer ${read}` });
  const received: Record<string, unknown>[] = [];
  let wake = () => {};
  socket.onmessage = (event) => {
    received.push(JSON.parse(event.data));
    wake();
  };
  await new Promise((resolve, reject) => {
    socket.onopen = resolve;
    socket.onerror = reject;
  });
  const ask = async (message: Record<string, unknown>) => {
    const before = received.length;
    socket.send(JSON.stringify({ jsonrpc: "2.0", ...message }));
    while (received.length === before) await new Promise<void>((resolve) => (wake = resolve));
    return received.at(-1)!;
  };
  const init = await ask({
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  });
  assert.ok(init.result, JSON.stringify(init));
  socket.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
  const denied = await ask({
    id: 1,
    method: "tools/call",
    params: { name: "write_file", arguments: { path: "ws.txt", content: "no" } },
  });
  const error = denied.error as { code: number; message: string };
  assert.equal(error.code, -32600);
  assert.match(error.message, /needs the scope "toolhost:write"/);
  const listed = await ask({ id: 2, method: "tools/list" });
  const names = (listed.result as { tools: { name: string }[] }).tools.map((tool) => tool.name);
  assert.ok(names.includes("read_file") && !names.includes("write_file"), names.join(" "));
  socket.close();
});

/** Starts the binary with `args` and this file's user config; its exit code and stderr. */
async function startFails(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(binary(PRODUCT_BINARY), args, {
    cwd: root,
    env: { ...process.env, ...isolatedEnv(), XDG_CONFIG_HOME: configHome, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  return { code, stderr };
}

test("start-up refuses --http-token beside http.auth.issuer, and introspection without its secret", async () => {
  const both = await startFails(
    ["--http", "127.0.0.1:0", "--http-token", "static-token-7781"],
    { [SECRET_VARIABLE]: issuer.client.secret },
  );
  assert.equal(both.code, 2, both.stderr);
  assert.match(both.stderr, /--http-token .* and http\.auth\.issuer .* cannot both be set/);
  assert.ok(!both.stderr.includes("static-token-7781"));
  const secretless = await startFails(["--http", "127.0.0.1:0"], {});
  assert.equal(secretless.code, 2, secretless.stderr);
  assert.match(
    secretless.stderr,
    /config\.jsonc:\d+:\d+: http\.auth\.introspection_url needs http\.auth\.client_id and the client's secret in TOOLHOST_HTTP_AUTH_CLIENT_SECRET/,
  );
});

test("no token text on the server's stderr; refusals are logged by reason", () => {
  assert.ok(tokens.length >= 8);
  const stderr = server.stderr();
  assert.match(stderr, /refused an access token: the token has expired/);
  for (const made of tokens) {
    for (const part of made.split(".").filter((p) => p.length > 8)) {
      assert.ok(!stderr.includes(part), "a piece of a token is on stderr");
    }
  }
  assert.equal(server.stdout(), "");
});

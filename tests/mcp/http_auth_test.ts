/**
 * OAuth on the HTTP transport, in process, against a small authorization server on 127.0.0.1
 * (tests/helpers/oauth_issuer.ts) with jose-made keys: the metadata document, 401 challenges,
 * JWT checks (signature, issuer, expiry, audience, algorithm), key rotation and its cooldown,
 * introspection, scopes on Streamable HTTP and on the 2024-11-05 SSE channel, bounded fetches,
 * and no token text in any reply or log line. (tests/e2e/http_oauth_test.ts: the binary.)
 */
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { after, before, test } from "node:test";
import { SignJWT, UnsecuredJWT } from "jose";
import { createAuthorizer } from "../../mcp/http/auth/mod.ts";
import { HttpGuard } from "../../mcp/http/guard.ts";
import { HttpTransport } from "../../mcp/http/transport.ts";
import type { Logger } from "../../mcp/wire/mod.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { defineTool } from "../../mcp/tool/mod.ts";
import {
  newKey,
  type SigningKey,
  signToken,
  startIssuer,
  type TestIssuer,
} from "../helpers/oauth_issuer.ts";

const BASE = "http://127.0.0.1:9";
const RESOURCE = `${BASE}/mcp`;
const PRM = `${BASE}/.well-known/oauth-protected-resource/mcp`;
const READ = "toolhost:read";
const WRITE = "toolhost:write";

const look = defineTool({
  name: "look",
  description: "reads",
  input: { type: "object", properties: {} },
  annotations: { readOnlyHint: true },
  run: () => Promise.resolve("looked"),
});
const change = defineTool({
  name: "change",
  description: "writes",
  input: { type: "object", properties: {} },
  run: () => Promise.resolve("changed"),
});

let issuer: TestIssuer;
let key: SigningKey;
/** Every log line of every transport made here, and every token handed out. */
const logLines: string[] = [];
const tokens: string[] = [];

before(async () => {
  key = await newKey("k1");
  issuer = await startIssuer([key]);
});
after(() => issuer.close());

function transport(
  options: {
    cooldownMs?: number;
    introspection?: boolean;
    bounds?: { timeoutMs: number; maxBytes: number };
    jwksUri?: string;
    issuer?: string;
  } = {},
): HttpTransport {
  const logger: Logger = { log: (level, text) => logLines.push(`${level} ${text}`) };
  const service = new McpService({
    info: { name: "t", version: "1" },
    tools: [look, change],
    logger,
    roots: { fixed: [], fallback: [process.cwd()] },
  });
  const auth = createAuthorizer({
    issuer: options.issuer ?? issuer.issuer,
    resource: () => RESOURCE,
    jwksUri: options.jwksUri,
    readScope: READ,
    writeScope: WRITE,
    cooldownMs: options.cooldownMs ?? 0,
    logger,
    bounds: options.bounds,
    introspection: options.introspection
      ? {
        url: issuer.introspectionUrl,
        clientId: issuer.client.id,
        clientSecret: issuer.client.secret,
      }
      : undefined,
  });
  return new HttpTransport({
    service,
    logger,
    guard: new HttpGuard({ host: "127.0.0.1", origins: [], auth }),
    maxBodyBytes: 1 << 20,
  });
}

async function token(claims: Parameters<typeof signToken>[2], by = key): Promise<string> {
  const made = await signToken(by, issuer.issuer, { aud: RESOURCE, ...claims });
  tokens.push(made);
  return made;
}

const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

/** A 2026-07-28 request with its headers, and `bearer` as the access token when given. */
function modern(
  t: HttpTransport,
  method: string,
  params: Record<string, unknown>,
  bearer?: string,
): Promise<Response> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (typeof params.name === "string") headers["mcp-name"] = params.name;
  if (bearer !== undefined) headers.authorization = `Bearer ${bearer}`;
  return t.handle(
    new Request(RESOURCE, {
      method: "POST",
      headers,
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method,
        params: { ...params, _meta: MODERN_META },
      }),
    }),
  );
}

/** The challenge's parameters, by name. */
function challenge(response: Response): Record<string, string> {
  const header = response.headers.get("www-authenticate") ?? "";
  assert.match(header, /^Bearer /);
  return Object.fromEntries([...header.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
}

/** Headers and body, to look for what must not be there. */
async function text(response: Response): Promise<string> {
  const body = await response.text();
  return [...response.headers.entries()].map(([k, v]) => `${k}: ${v}`).join("\n") + "\n" + body;
}

test("the metadata document is served on both well-known paths, without a token, to any origin", async () => {
  const t = transport();
  for (
    const path of [
      "/.well-known/oauth-protected-resource/mcp",
      "/.well-known/oauth-protected-resource",
    ]
  ) {
    const response = await t.handle(
      new Request(`${BASE}${path}`, { headers: { origin: "https://elsewhere.example" } }),
    );
    assert.equal(response.status, 200, path);
    assert.equal(response.headers.get("access-control-allow-origin"), "*");
    assert.deepEqual(await response.json(), {
      resource: RESOURCE,
      authorization_servers: [issuer.issuer],
      scopes_supported: [READ, WRITE],
      bearer_methods_supported: ["header"],
      resource_name: "toolhost",
    });
  }
  assert.equal(
    (await t.handle(new Request(`${BASE}/.well-known/oauth-protected-resource/other`))).status,
    404,
  );
  await t.close();
});

test("no token, or no Bearer one: 401 naming the metadata document and the scopes, no error code", async () => {
  const t = transport();
  for (const authorization of [undefined, "Basic dXNlcjpwdw==", "Bearer", "Bearer two words"]) {
    const headers: Record<string, string> = {
      "content-type": "application/json",
      accept: "application/json",
    };
    if (authorization) headers.authorization = authorization;
    const response = await t.handle(new Request(RESOURCE, { method: "POST", headers, body: "{}" }));
    assert.equal(response.status, 401, String(authorization));
    const params = challenge(response);
    assert.equal(params.resource_metadata, PRM);
    assert.equal(params.scope, `${READ} ${WRITE}`);
    assert.equal(params.error, undefined);
    assert.match((await response.json()).error.message, /needs an OAuth access token|not `Bearer/);
  }
  // Every way in is guarded: the legacy SSE stream and a WebSocket handshake too.
  for (
    const [path, headers] of [
      ["/sse", { accept: "text/event-stream" }],
      ["/mcp", { upgrade: "websocket", "sec-websocket-protocol": "mcp" }],
    ] as const
  ) {
    const response = await t.handle(new Request(`${BASE}${path}`, { headers }));
    assert.equal(response.status, 401, path);
    assert.equal(challenge(response).resource_metadata, PRM);
  }
  await t.close();
});

test("a valid write token calls any tool; the key set is fetched once and kept", async () => {
  const t = transport({ cooldownMs: 60_000 });
  const before = issuer.jwksFetches;
  const write = await token({ scope: `${READ} ${WRITE}` });
  const response = await modern(t, "tools/call", { name: "change", arguments: {} }, write);
  assert.equal(response.status, 200, await response.clone().text());
  assert.equal((await response.json()).result.content[0].text, "changed");
  const again = await modern(t, "tools/call", { name: "look", arguments: {} }, write);
  assert.equal((await again.json()).result.content[0].text, "looked");
  assert.equal(issuer.jwksFetches - before, 1);
  const listed = await (await modern(t, "tools/list", {}, write)).json();
  assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name), [
    "change",
    "look",
  ]);
  await t.close();
});

test("tokens that must not pass: expired, another audience, another issuer, forged, symmetric, unsigned", async () => {
  const t = transport({ cooldownMs: 60_000 });
  const other = await newKey("k1"); // the right kid, another key
  const hs = await new SignJWT({ scope: WRITE }).setProtectedHeader({ alg: "HS256", kid: "k1" })
    .setIssuer(issuer.issuer).setAudience(RESOURCE).setExpirationTime("5m")
    .sign(new TextEncoder().encode("a shared secret of thirty-two bytes!"));
  const none = new UnsecuredJWT({ scope: WRITE }).setIssuer(issuer.issuer).setAudience(RESOURCE)
    .setExpirationTime("5m").encode();
  tokens.push(hs, none);
  const cases: [string, string, RegExp][] = [
    ["expired", await token({ scope: WRITE, expiresIn: -120 }), /expired/],
    [
      "wrong audience",
      await token({ scope: WRITE, aud: "http://127.0.0.1:9/other" }),
      /not issued for this resource/,
    ],
    [
      "no audience",
      await signToken(key, issuer.issuer, { scope: WRITE }),
      /not issued for this resource|claim/,
    ],
    ["wrong issuer", await token({ scope: WRITE, iss: "http://127.0.0.1:1" }), /configured issuer/],
    ["forged signature", await token({ scope: WRITE }, other), /signature/],
    ["HS256", hs, /algorithm/],
    ["alg none", none, /algorithm|well-formed/],
    ["not a JWT", "opaque-token-without-dots", /not a JWT/],
  ];
  for (const [name, bad, why] of cases) {
    const response = await modern(t, "tools/call", { name: "look", arguments: {} }, bad);
    assert.equal(response.status, 401, name);
    const params = challenge(response);
    assert.equal(params.error, "invalid_token", name);
    assert.equal(params.resource_metadata, PRM, name);
    assert.match(params.error_description, why, name);
    const whole = await text(response);
    for (const part of bad.split(".").filter((p) => p.length > 8)) {
      assert.ok(!whole.includes(part), `${name}: no token text in the headers or body`);
    }
  }
  await t.close();
});

test("a new key after rotation is fetched once; a key that never appears costs one fetch per cooldown", async () => {
  const rotated = await newKey("k2");
  const t = transport({ cooldownMs: 0 });
  const first = await token({ scope: READ });
  assert.equal((await modern(t, "tools/list", {}, first)).status, 200);
  const fetched = issuer.jwksFetches;
  issuer.published = [key, rotated];
  const fresh = await token({ scope: READ }, rotated);
  assert.equal((await modern(t, "tools/list", {}, fresh)).status, 200);
  assert.equal(issuer.jwksFetches, fetched + 1, "one refetch for the unknown kid");
  const stranger = await newKey("k3");
  const unknown = await token({ scope: READ }, stranger);
  const refused = await modern(t, "tools/list", {}, unknown);
  assert.equal(refused.status, 401);
  assert.match(challenge(refused).error_description, /key the issuer does not publish/);
  assert.equal(issuer.jwksFetches, fetched + 2);
  await t.close();

  // With a cooldown, unknown kids right after a fetch cost nothing: the set is not fetched again.
  const cool = transport({ cooldownMs: 60_000 });
  assert.equal((await modern(cool, "tools/list", {}, first)).status, 200);
  const now = issuer.jwksFetches;
  for (let i = 0; i < 5; i++) {
    assert.equal((await modern(cool, "tools/list", {}, unknown)).status, 401);
  }
  assert.equal(issuer.jwksFetches, now);
  issuer.published = [key];
  await cool.close();
});

test("read scope: read-only tools and listings pass, other tools get 403 insufficient_scope, tools/list is narrowed", async () => {
  const t = transport({ cooldownMs: 60_000 });
  const read = await token({ scope: READ });
  const refused = await modern(t, "tools/call", { name: "change", arguments: {} }, read);
  assert.equal(refused.status, 403);
  const params = challenge(refused);
  assert.equal(params.error, "insufficient_scope");
  assert.equal(params.scope, WRITE);
  assert.equal(params.resource_metadata, PRM);
  const body = await refused.json();
  assert.equal(body.id, 1);
  assert.match(body.error.message, /needs the scope "toolhost:write"/);
  const allowed = await modern(t, "tools/call", { name: "look", arguments: {} }, read);
  assert.equal((await allowed.json()).result.content[0].text, "looked");
  const listed = await (await modern(t, "tools/list", {}, read)).json();
  assert.deepEqual(listed.result.tools.map((tool: { name: string }) => tool.name), ["look"]);
  assert.equal(listed.result.cacheScope, "private");
  // A token with neither scope can do nothing, a ping included.
  const neither = await token({ scope: "profile" });
  const none = await modern(t, "tools/list", {}, neither);
  assert.equal(none.status, 403);
  assert.equal(challenge(none).scope, READ);
  await t.close();
});

test("a legacy session checks each POST's own token; the SSE channel answers a JSON-RPC error", async () => {
  const t = transport({ cooldownMs: 60_000 });
  const read = await token({ scope: READ });
  const write = await token({ scope: WRITE });
  const post = (body: unknown, bearer: string, session?: string) =>
    t.handle(
      new Request(RESOURCE, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          accept: "application/json, text/event-stream",
          authorization: `Bearer ${bearer}`,
          ...(session ? { "mcp-session-id": session } : {}),
        },
        body: JSON.stringify(body),
      }),
    );
  const init = await post({
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  }, read);
  assert.equal(init.status, 200);
  const session = init.headers.get("mcp-session-id")!;
  await init.text();
  const call = {
    jsonrpc: "2.0",
    id: 2,
    method: "tools/call",
    params: { name: "change", arguments: {} },
  };
  assert.equal((await post(call, read, session)).status, 403);
  const done = await post(call, write, session);
  assert.equal(done.status, 200);
  assert.match(await done.text(), /changed/);
  // The session belongs to the subject whose token opened it.
  const stranger = await token({ scope: WRITE, sub: "someone-else" });
  const taken = await post(call, stranger, session);
  assert.equal(taken.status, 404);
  assert.match((await taken.json()).error.message, /another user's token opened it/);
  // Tokens that name no subject are told apart by the token itself, never all "nobody".
  const nameless = await token({ scope: WRITE, sub: null });
  const opened = await post({
    ...call,
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "c", version: "1" },
    },
  }, nameless);
  const theirs = opened.headers.get("mcp-session-id")!;
  await opened.text();
  assert.equal((await post(call, nameless, theirs)).status, 200);
  const otherNameless = await token({ scope: WRITE, sub: null, expiresIn: 301 });
  assert.equal((await post(call, otherNameless, theirs)).status, 404);

  // 2024-11-05 HTTP+SSE: the call is not its own request, so the error comes on the stream.
  const stream = await t.handle(
    new Request(`${BASE}/sse`, {
      headers: { accept: "text/event-stream", authorization: `Bearer ${read}` },
    }),
  );
  assert.equal(stream.status, 200);
  const reader = stream.body!.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  const nextData = async (): Promise<string> => {
    for (;;) {
      const match = buffer.match(/data: ?(.*)\n\n/);
      if (match) {
        buffer = buffer.slice(match.index! + match[0].length);
        return match[1];
      }
      const { value, done } = await reader.read();
      if (done) throw new Error("the stream ended");
      buffer += value;
    }
  };
  const endpoint = await nextData();
  const message = (body: unknown, bearer: string) =>
    t.handle(
      new Request(`${BASE}${endpoint}`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${bearer}` },
        body: JSON.stringify(body),
      }),
    );
  assert.equal(
    (await message({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2024-11-05",
        capabilities: {},
        clientInfo: { name: "c", version: "1" },
      },
    }, read)).status,
    202,
  );
  assert.equal(JSON.parse(await nextData()).id, 0);
  assert.equal((await message(call, read)).status, 202);
  const refused = JSON.parse(await nextData());
  assert.equal(refused.id, 2);
  assert.equal(refused.error.code, -32600);
  assert.match(refused.error.message, /needs the scope "toolhost:write"/);
  assert.equal((await message({ ...call, id: 3 }, write)).status, 202);
  assert.match(await nextData(), /changed/);
  const bad = await message({ ...call, id: 4 }, "not-a-token");
  assert.equal(bad.status, 401);
  assert.equal((await message({ ...call, id: 5 }, stranger)).status, 404);
  await reader.cancel();
  await t.close();
});

test("introspection: active tokens pass with their scopes, inactive ones get 401, answers are cached", async () => {
  const t = transport({ introspection: true, cooldownMs: 60_000 });
  const active = "opaque-active-token-5512";
  const readOnly = "opaque-read-token-5513";
  const otherAudience = "opaque-other-audience-5514";
  tokens.push(active, readOnly, otherAudience, "opaque-inactive-5515");
  const exp = Math.floor(Date.now() / 1000) + 300;
  issuer.opaque.set(active, { active: true, scope: WRITE, aud: RESOURCE, iss: issuer.issuer, exp });
  issuer.opaque.set(readOnly, { active: true, scope: READ, aud: [RESOURCE], exp });
  issuer.opaque.set(otherAudience, {
    active: true,
    scope: WRITE,
    aud: "https://other.example/mcp",
    exp,
  });
  const asked = () => issuer.bodies.filter((body) => body.startsWith("token=")).length;
  const start = asked();
  const ok = await modern(t, "tools/call", { name: "change", arguments: {} }, active);
  assert.equal(ok.status, 200);
  assert.equal((await modern(t, "tools/list", {}, active)).status, 200);
  assert.equal(asked() - start, 1, "the second request used the cache");
  // Opaque tokens with two dots (no JOSE header in them) are introspected, not refused as JWTs.
  const dotted = "opaque.dotted.token-5516";
  tokens.push(dotted);
  issuer.opaque.set(dotted, { active: true, scope: READ, aud: RESOURCE, exp });
  assert.equal((await modern(t, "tools/list", {}, dotted)).status, 200);
  assert.equal(
    (await modern(t, "tools/call", { name: "change", arguments: {} }, readOnly)).status,
    403,
  );
  const inactive = await modern(t, "tools/list", {}, "opaque-inactive-5515");
  assert.equal(inactive.status, 401);
  assert.match(challenge(inactive).error_description, /not active/);
  const wrong = await modern(t, "tools/list", {}, otherAudience);
  assert.equal(wrong.status, 401);
  assert.match(challenge(wrong).error_description, /not issued for this resource/);
  await t.close();
});

test("made-up opaque tokens in a flood from one client: its burst and rate introspected, the rest 429", async () => {
  const t = transport({ introspection: true });
  const asked = () => issuer.bodies.filter((body) => body.startsWith("token=")).length;
  const before = asked();
  const started = Date.now();
  const answers = await Promise.all(
    Array.from({ length: 200 }, (_, i) => modern(t, "tools/list", {}, `made-up-${i}-${started}`)),
  );
  const seconds = (Date.now() - started) / 1000;
  const statuses = answers.map((response) => response.status);
  await Promise.all(answers.map((response) => response.body?.cancel()));
  // A client's allowance: 20 saved up, then 5 a second.
  assert.ok(asked() - before <= 20 + 5 * Math.ceil(seconds), `${asked() - before} asked`);
  assert.ok(statuses.includes(429), "past its allowance a client's new token is not checked now");
  assert.ok(statuses.every((status) => status === 401 || status === 429));
  const refused = answers.find((response) => response.status === 429)!;
  assert.ok(Number(refused.headers.get("retry-after")) >= 1);
  await t.close();
});

test("an authorization server that hangs or answers too much gives 503, not a hang or a 401", async () => {
  const sockets = new Set<import("node:net").Socket>();
  const server = createServer((req, res) => {
    if (req.url === "/huge") {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(`{"keys":[],"pad":"${"x".repeat(300_000)}"}`);
      return;
    }
    // /slow: never answers.
  });
  server.on("connection", (socket) => sockets.add(socket));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const read = await token({ scope: READ });
  for (const path of ["/huge", "/slow"]) {
    const t = transport({
      jwksUri: `${base}${path}`,
      bounds: { timeoutMs: 300, maxBytes: 100_000 },
    });
    const response = await modern(t, "tools/list", {}, read);
    assert.equal(response.status, 503, path);
    assert.match((await response.json()).error.message, /cannot be checked right now/);
    await t.close();
  }
  for (const socket of sockets) socket.destroy();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

test("an issuer configured with another spelling (a trailing slash) is a 503 naming the configuration, not 'try again'", async () => {
  assert.ok(!issuer.issuer.endsWith("/"));
  const t = transport({ issuer: `${issuer.issuer}/` });
  const response = await modern(t, "tools/list", {}, await token({ scope: READ }));
  assert.equal(response.status, 503);
  assert.equal(response.headers.get("retry-after"), null);
  assert.match((await response.json()).error.message, /http\.auth\.issuer does not match/);
  assert.ok(logLines.some((line) => line.includes(`It calls itself "${issuer.issuer}"`)));
  await t.close();
});

test("no token text in any log line of this file", () => {
  assert.ok(tokens.length > 10);
  const logs = logLines.join("\n");
  assert.match(logs, /refused an access token: the token has expired/);
  for (const made of tokens) {
    for (const part of made.split(".").filter((p) => p.length > 8)) {
      assert.ok(!logs.includes(part), "a piece of a token appears in the log");
    }
  }
});

/**
 * The tokens toolhost must refuse, as raw HTTP against the binary with OAuth on: each answered
 * 401 with `error="invalid_token"` and nothing of the token in the reply or the log; a key the
 * authorization server announces by rotation is taken once it is in the JWKS; every transport on
 * the listener asks for a token. The tokens come from the real authorization server of
 * tests/helpers/authorization_server.ts or are signed as it signs, with one thing wrong.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { decodeJwt, type JWTPayload } from "jose";
import {
  type AuthorizationServer,
  READ_SCOPE,
  startAuthorizationServer,
  WRITE_SCOPE,
} from "../helpers/authorization_server.ts";
import { connectModern, oauthUserConfig, TestOAuthProvider } from "../helpers/oauth_client.ts";
import { type HttpServer, postModern, rawHttp, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

let as: AuthorizationServer;
let server: HttpServer;
let configEnv: Record<string, string>;
/** A token the server issued for toolhost, and its claims: what the bad tokens are made from. */
let good: string;
let claims: JWTPayload;
/** Every token sent: none may show in a reply or in toolhost's stderr. */
const sent: string[] = [];

before(async () => {
  as = await startAuthorizationServer();
  e2e.file.cleanup(() => as.close());
  const project = e2e.file.scratch("oauth-tokens");
  writeFileSync(join(project, "notes.txt"), "hello\n");
  configEnv = oauthUserConfig(e2e.file.scratch("config"), { issuer: as.issuer });
  server = await startHttpServer(PRODUCT_BINARY, ["--root", project], configEnv);
  as.resources.add(server.url);
  good = await as.issue({ resource: server.url, scope: `${READ_SCOPE} ${WRITE_SCOPE}` });
  claims = decodeJwt(good);
});

e2e.file.cleanup(() => server?.terminate());

/** tools/list with `token` as the bearer token; the reply's status, challenge and body. */
async function listWith(token: string, url = server.url) {
  sent.push(token);
  const response = await postModern(url, 1, "tools/list", {}, {
    authorization: `Bearer ${token}`,
  });
  const body = await response.text();
  return { status: response.status, challenge: response.headers.get("www-authenticate"), body };
}

/** Asserts a 401 invalid_token that echoes nothing of `token`. */
async function assertInvalid(token: string, what: string) {
  const reply = await listWith(token);
  assert.equal(reply.status, 401, `${what}: ${reply.body}`);
  const challenge = reply.challenge ?? "";
  assert.match(challenge, /^Bearer /, what);
  assert.match(challenge, /error="invalid_token"/, `${what}: ${challenge}`);
  assert.match(challenge, /resource_metadata="[^"]+oauth-protected-resource/, what);
  for (const part of [token, ...token.split(".").filter((piece) => piece.length >= 16)]) {
    assert.ok(!reply.body.includes(part) && !challenge.includes(part), `${what}: token echoed`);
  }
}

const now = () => Math.floor(Date.now() / 1000);
const jwksFetches = () => as.requests.filter((line) => line === "GET /jwks").length;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

test("a token the authorization server issued for toolhost is served", async () => {
  const reply = await listWith(good);
  assert.equal(reply.status, 200, reply.body);
  assert.match(reply.body, /"read_file"/);
});

test("an expired token is 401 invalid_token", async () => {
  const expired = await as.sign({ ...claims, iat: now() - 7200, exp: now() - 3600 });
  await assertInvalid(expired, "expired an hour ago");
});

test("a token for another resource (a real one from the server) is 401 invalid_token", async () => {
  const other = `http://127.0.0.1:9/other/mcp`;
  as.resources.add(other);
  const token = await as.issue({ resource: other, scope: `${READ_SCOPE} ${WRITE_SCOPE}` });
  assert.equal(decodeJwt(token).aud, other);
  await assertInvalid(token, "audience of another resource");
  await assertInvalid(await as.sign({ ...claims, aud: undefined }), "no audience");
});

test("a token from another issuer, signed with the same key, is 401 invalid_token", async () => {
  await assertInvalid(await as.sign({ ...claims, iss: "http://127.0.0.1:9" }), "another issuer");
});

test("forged: a token of the same kid signed by another key, and one whose claims were changed, are 401 invalid_token", async () => {
  await assertInvalid(await as.sign(claims, "forged"), "forged signature");
  const [header, , signature] = good.split(".");
  const payload = btoa(JSON.stringify({ ...claims, sub: "someone-else" }))
    .replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  await assertInvalid(`${header}.${payload}.${signature}`, "claims changed after signing");
  const unsigned =
    [{ alg: "none", typ: "at+jwt" }, claims].map((part) =>
      btoa(JSON.stringify(part)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
    ).join(".") + ".";
  await assertInvalid(unsigned, "alg none");
  await assertInvalid("not-a-jwt-at-all-but-long-enough", "not a JWT");
});

test("a token is taken from the Authorization header only, never from the URL or the body", async () => {
  const inQuery = await postModern(`${server.url}?access_token=${good}`, 1, "tools/list");
  assert.equal(inQuery.status, 401, await inQuery.text());
  const inBody = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ access_token: good }),
  });
  assert.equal(inBody.status, 401, await inBody.text());
});

test("a token with neither scope can do nothing", async () => {
  const token = await as.sign({ ...claims, scope: "openid" });
  const reply = await listWith(token);
  assert.equal(reply.status, 403, reply.body);
  assert.match(reply.challenge ?? "", /error="insufficient_scope"/);
  assert.match(reply.challenge ?? "", /scope="toolhost:read"/);
});

test("unknown kids right after a fetch of the key set cost no fetch: ten tokens, at most one fetch", async () => {
  const before = jwksFetches();
  for (let i = 0; i < 10; i++) {
    const stranger = await as.sign({ ...claims, iat: now() }, "next");
    await assertInvalid(stranger, `a kid not in the JWKS (${i})`);
  }
  assert.ok(
    jwksFetches() - before <= 1,
    `ten unknown-kid tokens: ${jwksFetches() - before} fetches`,
  );
});

test("key rotation: a kid refused after a fresh look at the JWKS is accepted once the authorization server publishes it", async () => {
  // A server of its own with the shortest cooldown (1 s), so that each step below is one look.
  const rotating = await startAuthorizationServer();
  e2e.cleanup(() => rotating.close());
  const env = oauthUserConfig(e2e.scratch("config"), {
    issuer: rotating.issuer,
    jwks_cooldown_seconds: 1,
  });
  const guarded = await startHttpServer(PRODUCT_BINARY, ["--root", e2e.scratch("root")], env);
  e2e.cleanup(() => guarded.terminate());
  rotating.resources.add(guarded.url);
  const fetches = () => rotating.requests.filter((line) => line === "GET /jwks").length;
  const current = await rotating.issue({ resource: guarded.url, scope: READ_SCOPE });
  const next = await rotating.sign({ ...decodeJwt(current), iat: now() }, "next");
  sent.push(current, next);
  // Twenty requests at once on a server that has looked nothing up yet: one look each.
  const looked = () => rotating.requests.filter((line) => line.startsWith("GET /.well-known/"));
  const lookedBefore = looked().length;
  const first = await Promise.all(
    Array.from({ length: 20 }, () => listWith(current, guarded.url)),
  );
  assert.deepEqual(first.map((reply) => reply.status), Array(20).fill(200));
  assert.equal(fetches(), 1, "the key set was fetched once");
  assert.equal(looked().length - lookedBefore, 1, `metadata looked up: ${looked().join()}`);

  await sleep(1100); // past the cooldown: an unknown kid is worth one more look, which fails
  const early = await listWith(next, guarded.url);
  assert.equal(early.status, 401, early.body);
  assert.match(early.challenge ?? "", /error="invalid_token"/);
  assert.equal(fetches(), 2, "the key set was fetched again for the unknown kid");

  rotating.rotate();
  await sleep(1100);
  const late = await listWith(next, guarded.url);
  assert.equal(late.status, 200, `after rotation: ${late.body}`);
  assert.equal(fetches(), 3);
  assert.equal((await listWith(current, guarded.url)).status, 200, "the old key still works");
  assert.equal(fetches(), 3);
  for (const token of [current, next]) assert.ok(!guarded.stderr().includes(token.split(".")[2]));
});

test("an SDK client holding an expired token is sent through the flow again and gets served", async () => {
  const provider = new TestOAuthProvider(as);
  const expired = await as.sign({ ...claims, iat: now() - 7200, exp: now() - 3600 });
  sent.push(expired);
  provider.saveTokens({ access_token: expired, token_type: "Bearer", issuer: as.issuer });
  const { client } = await connectModern(server.url, provider);
  try {
    assert.equal(provider.authorizations.length, 1);
    assert.notEqual(provider.accessToken, expired);
    sent.push(provider.accessToken!);
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0);
  } finally {
    await client.close();
  }
});

test("every transport on the listener asks for a token: /sse, /messages and the WebSocket handshake", async () => {
  const sse = await rawHttp(server.port, {
    method: "GET",
    path: "/sse",
    headers: { accept: "text/event-stream" },
  });
  assert.equal(sse.status, 401, sse.body);
  assert.match(String(sse.headers["www-authenticate"]), /resource_metadata=/);
  const messages = await rawHttp(server.port, {
    path: "/messages?sessionId=nope",
    headers: { "content-type": "application/json" },
    body: '{"jsonrpc":"2.0","id":1,"method":"ping"}',
  });
  assert.equal(messages.status, 401, messages.body);
  const socket = await rawHttp(server.port, {
    method: "GET",
    path: "/mcp",
    headers: {
      connection: "Upgrade",
      upgrade: "websocket",
      "sec-websocket-version": "13",
      "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
      "sec-websocket-protocol": "mcp",
    },
  });
  assert.equal(socket.status, 401, socket.body);
  const expired = await as.sign({ ...claims, iat: now() - 7200, exp: now() - 3600 });
  sent.push(expired);
  const sseExpired = await rawHttp(server.port, {
    method: "GET",
    path: "/sse",
    headers: { accept: "text/event-stream", authorization: `Bearer ${expired}` },
  });
  assert.equal(sseExpired.status, 401, sseExpired.body);
  assert.match(String(sseExpired.headers["www-authenticate"]), /error="invalid_token"/);
});

test("nothing of any token sent is in toolhost's stderr", () => {
  assert.ok(sent.length >= 10, `tokens sent: ${sent.length}`);
  const log = server.stderr();
  for (const token of sent) {
    for (const part of [token, ...token.split(".").filter((piece) => piece.length >= 16)]) {
      assert.ok(!log.includes(part.slice(0, 24)), "a piece of a token in the log");
    }
  }
});

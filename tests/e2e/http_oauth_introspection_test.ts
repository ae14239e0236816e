/**
 * Opaque access tokens, checked by introspection (RFC 7662) at a real authorization server
 * (oidc-provider with opaque tokens, tests/helpers/authorization_server.ts): the SDK client's
 * flow and calls, refusals for another resource's token and for one the server never issued,
 * the introspection client's secret kept from the log and from the commands toolhost runs, and a
 * flood of made-up tokens from one client that costs only that client.
 */
import assert from "node:assert/strict";
import { Agent, request as httpRequest } from "node:http";
import { before, test } from "node:test";
import { InsufficientScopeError } from "@modelcontextprotocol/client";
import {
  type AuthorizationServer,
  READ_SCOPE,
  startAuthorizationServer,
  WRITE_SCOPE,
} from "../helpers/authorization_server.ts";
import { connectModern, oauthUserConfig, TestOAuthProvider } from "../helpers/oauth_client.ts";
import {
  type HttpServer,
  MODERN_META,
  modernHeaders,
  postModern,
  startHttpServer,
} from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

let as: AuthorizationServer;
let server: HttpServer;
const sent: string[] = [];

before(async () => {
  as = await startAuthorizationServer({ opaque: true });
  e2e.file.cleanup(() => as.close());
  const env = oauthUserConfig(e2e.file.scratch("config"), {
    issuer: as.issuer,
    introspection_url: as.introspector.url,
    client_id: as.introspector.clientId,
  });
  server = await startHttpServer(PRODUCT_BINARY, ["--root", e2e.file.scratch("introspect")], {
    ...env,
    TOOLHOST_HTTP_AUTH_CLIENT_SECRET: as.introspector.clientSecret,
  });
  as.resources.add(server.url);
});

e2e.file.cleanup(() => server?.terminate());

const introspections = () =>
  as.requests.filter((line) => line === "POST /token/introspection").length;

test("the SDK client's opaque token is introspected and scoped: read tools listed and called, a write tool refused", async () => {
  const provider = new TestOAuthProvider(as, { approve: [READ_SCOPE] });
  const { client } = await connectModern(server.url, provider, { onInsufficientScope: "throw" });
  try {
    const token = provider.accessToken!;
    sent.push(token);
    assert.doesNotMatch(token, /\./, "an opaque token, not a JWT");
    const { tools } = await client.listTools();
    assert.ok(tools.length > 0 && tools.every((tool) => tool.annotations?.readOnlyHint === true));
    assert.ok(introspections() >= 1, "toolhost asked the authorization server");
    const listed = await client.callTool({ name: "list_dir", arguments: { path: "." } });
    assert.notEqual(listed.isError, true, JSON.stringify(listed.content));
    const refused = await client.callTool({
      name: "bash",
      arguments: { command: "echo no" },
    }).then(() => undefined, (error: unknown) => error);
    assert.ok(refused instanceof InsufficientScopeError, String(refused));
    assert.equal(refused.requiredScope, WRITE_SCOPE);
  } finally {
    await client.close();
  }
});

test("commands toolhost runs do not see the introspection client's secret", async () => {
  const provider = new TestOAuthProvider(as);
  const { client } = await connectModern(server.url, provider);
  try {
    sent.push(provider.accessToken!);
    const ran = await client.callTool({
      name: "bash",
      arguments: { command: 'echo "secret:${TOOLHOST_HTTP_AUTH_CLIENT_SECRET:-unset}"' },
    });
    const text = JSON.stringify(ran.content);
    assert.match(text, /secret:unset/);
    assert.ok(!text.includes(as.introspector.clientSecret));
  } finally {
    await client.close();
  }
});

test("an opaque token for another resource, and one the server never issued, are 401 invalid_token", async () => {
  const other = "http://127.0.0.1:9/other/mcp";
  as.resources.add(other);
  const foreign = await as.issue({ resource: other, scope: `${READ_SCOPE} ${WRITE_SCOPE}` });
  const made = "x".repeat(43);
  for (const token of [foreign, made]) {
    sent.push(token);
    const reply = await postModern(server.url, 1, "tools/list", {}, {
      authorization: `Bearer ${token}`,
    });
    const body = await reply.text();
    assert.equal(reply.status, 401, body);
    const challenge = reply.headers.get("www-authenticate") ?? "";
    assert.match(challenge, /error="invalid_token"/);
    assert.ok(!body.includes(token) && !challenge.includes(token));
  }
});

/** A keep-alive connection pool whose requests come from `address` (any of 127.0.0.0/8). */
const from = (address: string) => new Agent({ keepAlive: true, localAddress: address });

/** POSTs a 2026-07-28 tools/list with `token` through `agent`; the HTTP status. */
function listTools(agent: Agent, token: string): Promise<number> {
  const body = JSON.stringify({
    jsonrpc: "2.0",
    id: 1,
    method: "tools/list",
    params: { _meta: MODERN_META },
  });
  return new Promise((resolve, reject) => {
    const req = httpRequest(server.url, {
      method: "POST",
      agent,
      headers: { ...modernHeaders("tools/list"), authorization: `Bearer ${token}` },
    }, (res) => {
      res.resume();
      res.on("end", () => resolve(res.statusCode ?? 0));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(body);
  });
}

test("10,000 made-up opaque tokens from one client get that client 429s; every other request is answered", async () => {
  const resource = server.url;
  const issue = () => as.issue({ resource, scope: READ_SCOPE });
  const [alice, carol, bob] = [await issue(), await issue(), await issue()];
  sent.push(alice, carol, bob);
  const attacker = from("127.0.0.2");
  const users = { alice: from("127.0.0.1"), bob: from("127.0.0.3") };
  // Alice and Carol have used their tokens before; Bob's is new when the flood begins. Carol
  // works from the attacker's own address.
  assert.equal(await listTools(users.alice, alice), 200);
  assert.equal(await listTools(attacker, carol), 200);
  const asked = introspections();

  const attack: Record<number, number> = {};
  let flooding = true;
  const flood = (async () => {
    const made = (n: number) => `made-up-${n}-${"x".repeat(32)}`;
    let next = 0;
    await Promise.all(Array.from({ length: 50 }, async () => {
      while (next < 10_000) {
        const status = await listTools(attacker, made(next++));
        attack[status] = (attack[status] ?? 0) + 1;
      }
    }));
    flooding = false;
  })();
  const answered: Record<string, number[]> = { alice: [], bob: [], carol: [] };
  while (flooding) {
    answered.alice.push(await listTools(users.alice, alice));
    answered.bob.push(await listTools(users.bob, bob));
    answered.carol.push(await listTools(attacker, carol));
  }
  await flood;
  for (const agent of [attacker, users.alice, users.bob]) agent.destroy();

  for (const [user, statuses] of Object.entries(answered)) {
    assert.ok(statuses.length > 0, `${user} made no request during the flood`);
    assert.deepEqual(statuses.filter((status) => status !== 200), [], `${user}: ${statuses}`);
  }
  assert.equal(Object.values(attack).reduce((a, b) => a + b), 10_000);
  assert.ok((attack[429] ?? 0) > 9_000, `the attacker's answers: ${JSON.stringify(attack)}`);
  // What reached the authorization server: the attacker's burst and rate, and Bob's one token.
  const flooded = introspections() - asked;
  console.log(
    `the flood's answers ${JSON.stringify(attack)}, ${flooded} introspections; the users' ` +
      Object.entries(answered).map(([user, statuses]) => `${user} ${statuses.length}`).join(", "),
  );
  assert.ok(flooded < 10_000 / 10, `${flooded} introspections for the flood`);
});

test("neither the tokens nor the introspection secret are in toolhost's stderr", () => {
  const log = server.stderr();
  assert.ok(sent.length >= 4);
  for (const secret of [...sent, as.introspector.clientSecret]) {
    assert.ok(!log.includes(secret.slice(0, 20)), "a secret in the log");
  }
});

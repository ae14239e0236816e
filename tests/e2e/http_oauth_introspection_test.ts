/**
 * Opaque access tokens, checked by introspection (RFC 7662) at a real authorization server
 * (oidc-provider with opaque tokens, tests/helpers/authorization_server.ts): the SDK client's
 * flow and calls, refusals for another resource's token and for one the server never issued,
 * and the introspection client's secret kept from the log and from the commands toolhost runs.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { InsufficientScopeError } from "@modelcontextprotocol/client";
import {
  type AuthorizationServer,
  READ_SCOPE,
  startAuthorizationServer,
  WRITE_SCOPE,
} from "../helpers/authorization_server.ts";
import { connectModern, oauthUserConfig, TestOAuthProvider } from "../helpers/oauth_client.ts";
import { type HttpServer, postModern, startHttpServer } from "../helpers/http_server.ts";
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

test("neither the tokens nor the introspection secret are in toolhost's stderr", () => {
  const log = server.stderr();
  assert.ok(sent.length >= 4);
  for (const secret of [...sent, as.introspector.clientSecret]) {
    assert.ok(!log.includes(secret.slice(0, 20)), "a secret in the log");
  }
});

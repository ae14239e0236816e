// deno-lint-ignore-file no-unused-vars
// Signing the page in under OAuth (http.auth.issuer), as a public client of the authorization
// server /mcp names: its metadata, a client registered for this page's address (RFC 7591, kept
// in localStorage), the authorization code flow with PKCE and the resource indicator, and the
// access token kept in the tab like a pasted one.
const SIGNIN_KEY = "toolhost-signin";

const urlSafeBase64 = (bytes) =>
  btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
const random = (n) => urlSafeBase64(crypto.getRandomValues(new Uint8Array(n)));

async function json(response, what) {
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    throw new Error(
      `${what} failed (${response.status}): ${body.error_description || body.error || ""}`,
    );
  }
  return body;
}

/** The authorization server's metadata: RFC 8414's place, then OpenID Connect's. */
async function serverMetadata(issuer) {
  const url = new URL(issuer);
  const path = url.pathname.replace(/\/$/, "");
  for (
    const place of [
      `/.well-known/oauth-authorization-server${path}`,
      `${path}/.well-known/openid-configuration`,
    ]
  ) {
    const response = await fetch(new URL(place, url.origin)).catch(() => undefined);
    if (response && response.ok) return await response.json();
  }
  throw new Error(`${issuer} publishes no metadata this page can read`);
}

async function signInAt(challenge) {
  say("Signing in…");
  const resource = await json(
    await fetch(challenge.resource_metadata),
    "reading the resource metadata",
  );
  const issuer = (resource.authorization_servers || [])[0];
  if (!issuer) throw new Error("toolhost names no authorization server");
  const server = await serverMetadata(issuer);
  const redirect = location.origin + location.pathname;
  const scope = challenge.scope || (resource.scopes_supported || []).join(" ");
  const kept = `toolhost-client ${issuer} ${redirect}`;
  let clientId = localStorage.getItem(kept);
  if (!clientId) {
    // A page may register only where the server offers registration to browsers (CORS); the
    // way round is a token from any client the server knows, for this resource and its scopes.
    const cannot = (why) =>
      new Error(
        `toolhost could not register this page at ${issuer} (${why}): paste an access token ` +
          `it issued for ${resource.resource} with the scopes ${scope}`,
      );
    if (!server.registration_endpoint) throw cannot("it offers no dynamic registration");
    const response = await fetch(server.registration_endpoint, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "toolhost review",
        redirect_uris: [redirect],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
        scope,
      }),
    }).catch(() => undefined);
    if (!response) throw cannot("it does not take registrations from a browser page");
    const client = await json(response, "registering this page").catch((error) => {
      throw cannot(error.message);
    });
    clientId = client.client_id;
    localStorage.setItem(kept, clientId);
  }
  const verifier = random(32);
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const flow = {
    state: random(16),
    verifier,
    clientId,
    redirect,
    token: server.token_endpoint,
    resource: resource.resource,
  };
  sessionStorage.setItem(SIGNIN_KEY, JSON.stringify(flow));
  const url = new URL(server.authorization_endpoint);
  for (
    const [key, value] of Object.entries({
      response_type: "code",
      client_id: clientId,
      redirect_uri: redirect,
      scope,
      state: flow.state,
      code_challenge: urlSafeBase64(new Uint8Array(digest)),
      code_challenge_method: "S256",
      resource: resource.resource,
    })
  ) url.searchParams.set(key, value);
  location.assign(url.href);
}

/** Back from the authorization server: the code exchanged for the access token. */
async function finishSignIn() {
  const query = new URLSearchParams(location.search);
  const flow = JSON.parse(sessionStorage.getItem(SIGNIN_KEY) || "null");
  if (!flow || !(query.has("code") || query.has("error"))) return;
  sessionStorage.removeItem(SIGNIN_KEY);
  history.replaceState(null, "", location.pathname);
  if (query.get("state") !== flow.state) {
    throw new Error("the sign-in came back for another attempt; sign in again");
  }
  if (query.has("error")) {
    throw new Error(
      `the authorization server refused: ${query.get("error_description") || query.get("error")}`,
    );
  }
  const body = await json(
    await fetch(flow.token, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code: query.get("code"),
        redirect_uri: flow.redirect,
        client_id: flow.clientId,
        code_verifier: flow.verifier,
        resource: flow.resource,
      }),
    }),
    "exchanging the sign-in for a token",
  );
  sessionStorage.setItem(TOKEN_KEY, body.access_token);
  say("Signed in.");
}

/**
 * A real OAuth 2.1 authorization server for tests: oidc-provider on 127.0.0.1, in this process.
 * It offers discovery metadata, dynamic client registration, the authorization code flow with
 * PKCE, resource indicators (RFC 8707) that issue JWT access tokens whose `aud` is the resource,
 * the scopes `toolhost:read` and `toolhost:write`, and a JWKS. Its login and consent page is
 * answered by a program (authorize(), or the test client's provider), not a browser: the "user"
 * approves the scopes the test says.
 *
 * It also makes the tokens a server must refuse, signed as the test says: with the server's own
 * key (an expired token, another audience), with a key of the same kid that is not the server's
 * (a forged signature), or with the next key, which the JWKS lists only after rotate().
 *
 * @example
 * ```ts
 * const as = await startAuthorizationServer();
 * as.resources.add("http://127.0.0.1:8080/mcp"); // the resource servers it issues tokens for
 * // toolhost's user config: { "http": { "auth": { "issuer": as.issuer } } }
 * const token = await as.issue({ resource: "http://127.0.0.1:8080/mcp", scope: "toolhost:read" });
 * const claims = decodeJwt(token); // claims.aud === the resource, claims.scope === "toolhost:read"
 * const expired = await as.sign({ ...claims, exp: claims.exp! - 7200 });
 * await as.close();
 * ```
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type JWK, type JWTPayload, SignJWT } from "jose";
import Provider from "oidc-provider";

export const READ_SCOPE = "toolhost:read";
export const WRITE_SCOPE = "toolhost:write";

/** Which key signs a token the test makes. */
export type SigningKey =
  /** the server's own key, listed in its JWKS from the start */
  | "current"
  /** a new key pair under the current key's kid: a forged signature */
  | "forged"
  /** the next key, listed in the JWKS only after rotate() */
  | "next";

export interface AuthorizationServer {
  /** The issuer, http://127.0.0.1:PORT (no trailing slash). */
  issuer: string;
  /** The resource indicators it issues tokens for; a request for any other is refused. */
  resources: Set<string>;
  /** The kid of each key: the current one (in the JWKS from the start) and the next one. */
  kids: { current: string; next: string };
  /** Whether the next key is in the JWKS yet. */
  rotated: boolean;
  /** The client a resource server introspects tokens as (HTTP Basic), and the endpoint. */
  introspector: { clientId: string; clientSecret: string; url: string };
  /** Every request it answered, as "METHOD /path", in order. */
  requests: string[];
  /** Publishes the next key in the JWKS beside the current one (a key rotation, announced). */
  rotate(): void;
  /** A JWT signed as `key` says, with the header a token of this server has. */
  sign(claims: JWTPayload, key?: SigningKey): Promise<string>;
  /**
   * Runs the whole flow as a plain client (registration, authorization with PKCE, the login and
   * consent a user approving `approve` would give, the code exchange) and returns the access
   * token this server issued.
   */
  issue(options: { resource: string; scope: string } & User): Promise<string>;
  /**
   * Follows an authorization URL as a user agent would, signed in as `user.account` ("tester"
   * unless told) approving `user.approve` (all the scopes asked for unless told), and returns the
   * redirect to the client's redirect_uri.
   */
  authorize(authorizationUrl: URL | string, user?: User): Promise<URL>;
  close(): Promise<void>;
}

/** Who signs in at the login page, and which of the scopes asked for they approve. */
export interface User {
  account?: string;
  approve?: string[];
}

export interface AuthorizationServerOptions {
  /** Lifetime of the access tokens it issues, in seconds (600 unless told). */
  accessTokenTtl?: number;
  /**
   * Opaque access tokens instead of JWTs, checked at the introspection endpoint (RFC 7662) by
   * the confidential client `introspector` names.
   */
  opaque?: boolean;
  /**
   * Dynamic registration open to pages in a browser (CORS on /reg), as some servers allow: a
   * page that signs itself in (the review page) can register. oidc-provider alone does not.
   */
  browserRegistration?: boolean;
}

interface KeyPair {
  privateJwk: JWK;
  publicJwk: JWK;
}

async function keyPair(kid: string): Promise<KeyPair> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  const meta = { kid, alg: "RS256", use: "sig" };
  return {
    privateJwk: { ...await exportJWK(privateKey), ...meta },
    publicJwk: { ...await exportJWK(publicKey), ...meta },
  };
}

/** Starts the server on 127.0.0.1 and a free port. */
export async function startAuthorizationServer(
  options: AuthorizationServerOptions = {},
): Promise<AuthorizationServer> {
  const current = await keyPair(`as-${randomUUID().slice(0, 8)}`);
  const forged = await keyPair(current.publicJwk.kid!);
  const next = await keyPair(`as-${randomUUID().slice(0, 8)}`);
  const resources = new Set<string>();
  const requests: string[] = [];
  let rotated = false;

  // The issuer names the port, so the port comes first and the provider after.
  let handler: (req: IncomingMessage, res: ServerResponse) => void = (_req, res) => {
    res.writeHead(503).end();
  };
  const server = createServer((req, res) => handler(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const issuer = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const introspector = {
    clientId: "toolhost-resource",
    clientSecret: randomUUID(),
    url: `${issuer}/token/introspection`,
  };
  const provider = new Provider(issuer, {
    clients: [{
      client_id: introspector.clientId,
      client_secret: introspector.clientSecret,
      redirect_uris: [],
      response_types: [],
      grant_types: [],
    }],
    jwks: { keys: [current.privateJwk] },
    cookies: { keys: [randomUUID()] },
    scopes: ["openid", "offline_access", READ_SCOPE, WRITE_SCOPE],
    findAccount: (_ctx: unknown, id: string) => ({ accountId: id, claims: () => ({ sub: id }) }),
    interactions: {
      url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}`,
    },
    ttl: {
      AccessToken: () => options.accessTokenTtl ?? 600,
      AuthorizationCode: 60,
      Grant: 3600,
      Interaction: 600,
      Session: 3600,
      RefreshToken: 3600,
      IdToken: 600,
    },
    features: {
      devInteractions: { enabled: false },
      introspection: { enabled: true },
      registration: { enabled: true },
      resourceIndicators: {
        enabled: true,
        defaultResource: (_ctx: unknown, _client: unknown, oneOf?: string) => oneOf,
        useGrantedResource: () => true,
        getResourceServerInfo: (_ctx: unknown, indicator: string) => {
          if (!resources.has(indicator)) throw new Provider.errors.InvalidTarget();
          return {
            scope: `${READ_SCOPE} ${WRITE_SCOPE}`,
            audience: indicator,
            accessTokenTTL: options.accessTokenTtl ?? 600,
            accessTokenFormat: options.opaque ? "opaque" : "jwt",
            jwt: { sign: { alg: "RS256" } },
          };
        },
      },
    },
  });
  const callback = provider.callback();

  handler = (req, res) => {
    const path = new URL(req.url ?? "/", issuer).pathname;
    requests.push(`${req.method} ${path}`);
    const origin = req.headers.origin;
    if (options.browserRegistration && path === "/reg" && origin) {
      res.setHeader("access-control-allow-origin", origin);
      if (req.method === "OPTIONS") {
        res.writeHead(204, {
          "access-control-allow-methods": "POST",
          "access-control-allow-headers": "content-type",
        }).end();
        return;
      }
    }
    if (path.startsWith("/interaction/")) {
      interact(provider, req, res).catch((error) => {
        res.writeHead(500, { "content-type": "text/plain" }).end(String(error));
      });
    } else if (req.method === "GET" && path === "/jwks") {
      // The provider signs with the current key only; rotation announces the next one here.
      const keys = rotated ? [current.publicJwk, next.publicJwk] : [current.publicJwk];
      res.writeHead(200, { "content-type": "application/jwk-set+json" });
      res.end(JSON.stringify({ keys }));
    } else {
      callback(req, res);
    }
  };

  const signers: Record<SigningKey, KeyPair> = { current, forged, next };
  const as: AuthorizationServer = {
    issuer,
    resources,
    kids: { current: current.publicJwk.kid!, next: next.publicJwk.kid! },
    get rotated() {
      return rotated;
    },
    introspector,
    requests,
    rotate() {
      rotated = true;
    },
    async sign(claims, key = "current") {
      const { privateJwk } = signers[key];
      return await new SignJWT(claims)
        .setProtectedHeader({ alg: "RS256", typ: "at+jwt", kid: privateJwk.kid })
        .sign(privateJwk);
    },
    authorize: (url, user) => followAuthorization(new URL(url), user),
    issue: (request) => issueToken(issuer, request),
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return as;
}

/**
 * The login and consent page. GET describes the prompt as JSON ({ prompt, scopes }); a POST of
 * the form `account`, `approve` (space-separated scopes) answers it: login as `account`, consent
 * to the resource scopes asked for that are in `approve` (the rest rejected, so not asked again).
 */
async function interact(provider: Provider, req: IncomingMessage, res: ServerResponse) {
  const details = await provider.interactionDetails(req, res);
  const { prompt, params, session } = details;
  const missing = (prompt.details.missingResourceScopes ?? {}) as Record<string, string[]>;
  if (req.method === "GET") {
    const scopes = String(params.scope ?? "").split(" ").filter(Boolean);
    res.writeHead(200, { "content-type": "application/json" });
    res.end(JSON.stringify({ prompt: prompt.name, client_id: params.client_id, scopes }));
    return;
  }
  const form = new URLSearchParams(await readBody(req));
  const approve = new Set((form.get("approve") ?? "").split(" ").filter(Boolean));
  let result;
  if (prompt.name === "login") {
    result = { login: { accountId: form.get("account") ?? "tester" } };
  } else {
    const grant = details.grantId
      ? (await provider.Grant.find(details.grantId))!
      : new provider.Grant({ accountId: session!.accountId, clientId: String(params.client_id) });
    const oidc = prompt.details.missingOIDCScope as string[] | undefined;
    if (oidc) grant.addOIDCScope(oidc.join(" "));
    for (const [indicator, scopes] of Object.entries(missing)) {
      const yes = scopes.filter((scope) => approve.has(scope));
      const no = scopes.filter((scope) => !approve.has(scope));
      if (yes.length > 0) grant.addResourceScope(indicator, yes.join(" "));
      if (no.length > 0) grant.rejectResourceScope(indicator, no.join(" "));
    }
    result = { consent: { grantId: await grant.save() } };
  }
  await provider.interactionFinished(req, res, result, { mergeWithLastSubmission: false });
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (chunk: string) => {
      body += chunk;
      if (body.length > 65_536) req.destroy(new Error("the form is too large"));
    });
    req.on("end", () => resolve(body));
    req.on("error", reject);
  });
}

/**
 * A user agent's way through the authorization endpoint: redirects followed with the cookies
 * the server set, each login or consent page answered as the user would, until the
 * redirect to the client's redirect_uri, which is returned (never fetched).
 */
async function followAuthorization(authorizationUrl: URL, user: User = {}): Promise<URL> {
  const redirectUri = authorizationUrl.searchParams.get("redirect_uri");
  if (!redirectUri) throw new Error("the authorization URL has no redirect_uri");
  const asked = (authorizationUrl.searchParams.get("scope") ?? "").split(" ");
  const form = new URLSearchParams({
    account: user.account ?? "tester",
    approve: (user.approve ?? asked).join(" "),
  });
  const cookies = new Map<string, string>();
  let url = authorizationUrl;
  let post = false;
  for (let hop = 0; hop < 12; hop++) {
    const response = await fetch(url, {
      method: post ? "POST" : "GET",
      redirect: "manual",
      headers: {
        cookie: [...cookies].map(([name, value]) => `${name}=${value}`).join("; "),
        ...(post ? { "content-type": "application/x-www-form-urlencoded" } : {}),
      },
      body: post ? form : undefined,
    });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair.indexOf("=");
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
    const location = response.headers.get("location");
    if (response.status >= 300 && response.status < 400 && location) {
      await response.body?.cancel();
      const target = new URL(location, url);
      if (`${target.origin}${target.pathname}` === redirectUri) return target;
      url = target;
      post = false;
      continue;
    }
    const text = await response.text();
    if (response.status === 200 && url.pathname.startsWith("/interaction/") && !post) {
      post = true; // the page was shown; now the user answers it
      continue;
    }
    throw new Error(
      `authorization stopped at ${url.pathname}: ${response.status} ${text.slice(0, 300)}`,
    );
  }
  throw new Error("authorization took more than 12 steps");
}

/** The plain client of issue(): registers, authorizes with PKCE, exchanges the code. */
async function issueToken(
  issuer: string,
  request: { resource: string; scope: string } & User,
): Promise<string> {
  const metadata = await json(await fetch(`${issuer}/.well-known/openid-configuration`));
  const redirectUri = "http://127.0.0.1:9/callback";
  const client = await json(
    await fetch(String(metadata.registration_endpoint), {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        client_name: "plain test client",
        redirect_uris: [redirectUri],
        grant_types: ["authorization_code"],
        response_types: ["code"],
        token_endpoint_auth_method: "none",
      }),
    }),
  );
  const verifier = base64url(crypto.getRandomValues(new Uint8Array(32)));
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(verifier));
  const url = new URL(String(metadata.authorization_endpoint));
  url.search = new URLSearchParams({
    response_type: "code",
    client_id: String(client.client_id),
    redirect_uri: redirectUri,
    scope: request.scope,
    resource: request.resource,
    state: randomUUID(),
    code_challenge: base64url(new Uint8Array(digest)),
    code_challenge_method: "S256",
  }).toString();
  const back = await followAuthorization(url, request);
  const code = back.searchParams.get("code");
  if (!code) throw new Error(`no code in the redirect: ${back.search.slice(0, 300)}`);
  const tokens = await json(
    await fetch(String(metadata.token_endpoint), {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({
        grant_type: "authorization_code",
        code,
        redirect_uri: redirectUri,
        code_verifier: verifier,
        client_id: String(client.client_id),
        resource: request.resource,
      }),
    }),
  );
  return String(tokens.access_token);
}

async function json(response: Response): Promise<Record<string, unknown>> {
  const text = await response.text();
  if (!response.ok) throw new Error(`${response.url}: ${response.status} ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

function base64url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(
    /=+$/,
    "",
  );
}

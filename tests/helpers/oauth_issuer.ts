/**
 * A small authorization server on 127.0.0.1 for the OAuth tests: its RFC 8414 metadata, a JWK
 * Set whose keys a test can rotate (every fetch counted), an introspection endpoint for opaque
 * tokens a test registers, and access tokens signed with jose. Not a real AS (no flows): the
 * flow itself is tested against oidc-provider elsewhere.
 */
import { Buffer } from "node:buffer";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { exportJWK, generateKeyPair, type GenerateKeyPairResult, type JWK, SignJWT } from "jose";

export interface SigningKey {
  kid: string;
  privateKey: GenerateKeyPairResult["privateKey"];
  jwk: JWK;
}

export interface TestIssuer {
  /** The issuer identifier (its base URL, no trailing slash). */
  issuer: string;
  jwksUri: string;
  introspectionUrl: string;
  /** How many times the JWK Set was fetched, and when last (ms since the epoch). */
  jwksFetches: number;
  lastJwksFetch: number;
  /** Metadata fetches, by path. */
  metadataFetches: string[];
  /** The keys published now; a test may replace them (rotation). */
  published: SigningKey[];
  /** Opaque tokens the introspection endpoint knows, with its answer for each. */
  opaque: Map<string, Record<string, unknown>>;
  /** The Basic credentials the introspection endpoint wants. */
  client: { id: string; secret: string };
  /** Every request body the server got (tests check what toolhost sent). */
  bodies: string[];
  close(): Promise<void>;
}

export async function newKey(kid: string, alg = "ES256"): Promise<SigningKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
  const jwk = { ...(await exportJWK(publicKey)), kid, alg, use: "sig" };
  return { kid, privateKey, jwk };
}

export interface TokenClaims {
  aud?: string | string[];
  scope?: string;
  iss?: string;
  /** Seconds from now; negative for an expired token. */
  expiresIn?: number;
  /** The subject; null for a token that names none. */
  sub?: string | null;
}

/** An access token signed by `key` (with its kid), claims as given. */
export async function signToken(
  key: SigningKey,
  issuer: string,
  claims: TokenClaims,
  alg = "ES256",
): Promise<string> {
  const now = Math.floor(Date.now() / 1000);
  const jwt = new SignJWT({ scope: claims.scope ?? "" })
    .setProtectedHeader({ alg, kid: key.kid, typ: "at+jwt" })
    .setIssuer(claims.iss ?? issuer)
    .setIssuedAt(now - 5)
    .setExpirationTime(now + (claims.expiresIn ?? 300));
  if (claims.aud !== undefined) jwt.setAudience(claims.aud);
  if (claims.sub !== null) jwt.setSubject(claims.sub ?? "user-1");
  return await jwt.sign(key.privateKey);
}

export async function startIssuer(keys: SigningKey[]): Promise<TestIssuer> {
  const state: Omit<TestIssuer, "issuer" | "jwksUri" | "introspectionUrl" | "close"> = {
    jwksFetches: 0,
    lastJwksFetch: 0,
    metadataFetches: [],
    published: keys,
    opaque: new Map(),
    client: { id: "toolhost", secret: "introspection-secret-77" },
    bodies: [],
  };
  let base = "";
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      if (body) state.bodies.push(body);
      const json = (status: number, value: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(value));
      };
      if (path === "/.well-known/oauth-authorization-server") {
        state.metadataFetches.push(path);
        return json(200, {
          issuer: base,
          jwks_uri: `${base}/jwks`,
          introspection_endpoint: `${base}/introspect`,
          token_endpoint: `${base}/token`,
          authorization_endpoint: `${base}/authorize`,
          code_challenge_methods_supported: ["S256"],
        });
      }
      if (path === "/jwks") {
        state.jwksFetches++;
        state.lastJwksFetch = Date.now();
        return json(200, { keys: state.published.map((key) => key.jwk) });
      }
      if (path === "/introspect" && req.method === "POST") {
        const expected = "Basic " +
          Buffer.from(`${state.client.id}:${state.client.secret}`).toString("base64");
        if (req.headers.authorization !== expected) return json(401, { error: "invalid_client" });
        const token = new URLSearchParams(body).get("token") ?? "";
        return json(200, state.opaque.get(token) ?? { active: false });
      }
      json(404, { error: "not found" });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = Object.assign(state, {
    issuer: base,
    jwksUri: `${base}/jwks`,
    introspectionUrl: `${base}/introspect`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
  return issuer;
}

/**
 * Where the authorization server keeps its signing keys, from its metadata: RFC 8414
 * (/.well-known/oauth-authorization-server) first, then OpenID Connect Discovery. A document
 * whose `issuer` is not exactly the configured one is not used (RFC 8414 §3.3).
 */
import { isHttpsOrLoopback } from "../guard.ts";
import { type FetchBounds, fetchJsonObject } from "./_fetch.ts";
import { Misconfigured } from "./_outcome.ts";

/** The metadata URLs to try for an issuer, in order. */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === "/" ? "" : url.pathname.replace(/\/$/, "");
  const at = (wellKnown: string) => `${url.origin}/.well-known/${wellKnown}${path}`;
  const urls = [at("oauth-authorization-server"), at("openid-configuration")];
  if (path) urls.push(`${url.origin}${path}/.well-known/openid-configuration`);
  return urls;
}

/** The issuer's jwks_uri; throws a sentence saying what was tried and why it failed. */
export async function discoverJwksUri(issuer: string, bounds?: FetchBounds): Promise<string> {
  const problems: string[] = [];
  let named: string | undefined;
  for (const url of metadataUrls(issuer)) {
    let metadata: Record<string, unknown>;
    try {
      metadata = await fetchJsonObject(url, bounds);
    } catch (error) {
      problems.push((error as Error).message);
      continue;
    }
    if (metadata.issuer !== issuer) {
      if (typeof metadata.issuer === "string") named ??= metadata.issuer.slice(0, 200);
      problems.push(`${url} names another issuer, so it is not used`);
      continue;
    }
    const jwks = metadata.jwks_uri;
    if (typeof jwks !== "string" || !isHttpsOrLoopback(jwks)) {
      problems.push(`${url} has no usable jwks_uri (https, or http on a loopback host)`);
      continue;
    }
    return jwks;
  }
  const found = `the authorization server's signing keys could not be found: ${
    problems.join("; ")
  }`;
  // Only a misspelt issuer (a trailing slash, http for https) is the operator's to fix.
  if (named !== undefined) {
    throw new Misconfigured(
      `${found}. It calls itself ${JSON.stringify(named)}, while http.auth.issuer is ` +
        `${JSON.stringify(issuer)}: set http.auth.issuer to exactly what it calls itself`,
    );
  }
  throw new Error(found);
}

/**
 * What clients are told: the protected resource metadata document (RFC 9728) and the
 * `WWW-Authenticate: Bearer` challenges of RFC 6750 that point to it.
 */

export const WELL_KNOWN = "/.well-known/oauth-protected-resource";

/** The metadata document's URL for a resource URI: its path goes after the well-known one. */
export function metadataUrl(resource: string): string {
  const url = new URL(resource);
  const path = url.pathname === "/" ? "" : url.pathname;
  return `${url.origin}${WELL_KNOWN}${path}`;
}

/** The paths this server answers the metadata document on. */
export function metadataPaths(resource: string): string[] {
  const path = new URL(metadataUrl(resource)).pathname;
  return path === WELL_KNOWN ? [WELL_KNOWN] : [path, WELL_KNOWN];
}

export interface ResourceMetadata {
  resource: string;
  authorization_servers: string[];
  scopes_supported: string[];
  bearer_methods_supported: string[];
  resource_name: string;
}

/** One challenge; values are ours (URLs, scope names, fixed phrases), quoted per RFC 7235. */
export function challenge(params: Record<string, string | undefined>): string {
  const parts = Object.entries(params)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([name, value]) => `${name}="${value.replace(/["\\]/g, "")}"`);
  return `Bearer ${parts.join(", ")}`;
}

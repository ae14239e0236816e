/**
 * `http.auth.*` checked at start-up, before anything listens, and turned into what the auth
 * package (mcp/http/auth, loaded only when this says it is on) is made with. Kept apart from
 * that package so checking costs a stdio start-up nothing.
 */
import type { HttpAuthSettings } from "../../config/settings.ts";
import { isHttpsOrLoopback } from "./guard.ts";

/** The variable the introspection client's secret comes from (never a file). */
export const CLIENT_SECRET_VARIABLE = "TOOLHOST_HTTP_AUTH_CLIENT_SECRET";

export interface AuthPlan {
  issuer: string;
  /** Undefined: the URL of /mcp on the address listened on. */
  resource?: string;
  jwksUri?: string;
  introspection?: { url: string; clientId: string; clientSecret: string };
  readScope: string;
  writeScope: string;
  cooldownMs: number;
}

/**
 * The plan, undefined when OAuth is off (no issuer), or the problems, each naming where the key
 * was set (`where`). Takes the client secret out of `env`: commands toolhost runs must not see it.
 *
 * @example
 * ```ts
 * const plan = authPlan(settings.http.auth, (key) => places.get(key) ?? key, process.env);
 * if (Array.isArray(plan)) configError(plan.join("\n"));
 * ```
 */
export function authPlan(
  auth: HttpAuthSettings,
  where: (key: string) => string,
  env: Record<string, string | undefined>,
  loopback = true,
): AuthPlan | string[] | undefined {
  const secret = env[CLIENT_SECRET_VARIABLE];
  delete env[CLIENT_SECRET_VARIABLE];
  if (auth.issuer === undefined) return undefined;
  const problems: string[] = [];
  const urls: [string, string | undefined][] = [
    ["issuer", auth.issuer],
    ["resource", auth.resource],
    ["jwks_uri", auth.jwksUri],
    ["introspection_url", auth.introspectionUrl],
  ];
  for (const [key, value] of urls) {
    if (value !== undefined && !isHttpsOrLoopback(value)) {
      problems.push(
        `${where(`http.auth.${key}`)}: http.auth.${key} ${value} is not allowed: it must be ` +
          "https, or http on a loopback host (127.0.0.1, localhost, ::1)",
      );
    }
  }
  if (
    auth.resource !== undefined && isHttpsOrLoopback(auth.resource) && new URL(auth.resource).hash
  ) {
    problems.push(
      `${where("http.auth.resource")}: http.auth.resource ${auth.resource} has a fragment, ` +
        "which a resource URI may not have (RFC 8707)",
    );
  }
  // Off loopback (0.0.0.0, a LAN address, behind a proxy) clients reach /mcp by a name the
  // listening address does not tell, and tokens must be issued for that name.
  if (!loopback && auth.resource === undefined) {
    problems.push(
      `${where("http.auth.issuer")}: http.auth.resource must be set when --http listens beyond ` +
        "this machine: the URL clients reach /mcp by (like https://tools.example.com/mcp), which " +
        "access tokens name as their audience",
    );
  }
  if (auth.readScope === auth.writeScope) {
    problems.push(
      `${where("http.auth.write_scope")}: http.auth.write_scope is the same as read_scope ` +
        `(${auth.readScope}); they must differ, or reading would allow everything`,
    );
  }
  let introspection: AuthPlan["introspection"];
  if (auth.introspectionUrl !== undefined) {
    if (auth.clientId === undefined || !secret) {
      problems.push(
        `${where("http.auth.introspection_url")}: http.auth.introspection_url needs ` +
          `http.auth.client_id and the client's secret in ${CLIENT_SECRET_VARIABLE}`,
      );
    } else {
      introspection = { url: auth.introspectionUrl, clientId: auth.clientId, clientSecret: secret };
    }
  }
  if (problems.length > 0) return problems;
  return {
    issuer: auth.issuer,
    resource: auth.resource,
    jwksUri: auth.jwksUri,
    introspection,
    readScope: auth.readScope,
    writeScope: auth.writeScope,
    cooldownMs: auth.jwksCooldownSeconds * 1000,
  };
}

/**
 * The official SDK clients' OAuth, driven as a person would with a browser: a test
 * OAuthClientProvider whose redirectToAuthorization follows the authorization URL at the test
 * authorization server (its login and consent answered, approving the scopes the test says) and
 * keeps the redirect to its redirect_uri; connect() then does what an application does on the
 * SDK's UnauthorizedError: finishAuth with that redirect, and connect again.
 *
 * @example
 * ```ts
 * const as = await startAuthorizationServer();
 * const provider = new TestOAuthProvider(as, { approve: [READ_SCOPE] });
 * const { client } = await connectModern("http://127.0.0.1:8080/mcp", provider);
 * await client.listTools(); // with the token the flow gave
 * provider.authorizations.length; // 1: the user was sent to the server once
 * await client.close();
 * ```
 */
import {
  Client,
  type OAuthClientInformationContext,
  type OAuthClientMetadata,
  type OAuthClientProvider,
  type OAuthDiscoveryState,
  type StoredOAuthClientInformation,
  type StoredOAuthTokens,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport as LegacyTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/auth"
import {
  type OAuthClientProvider as LegacyOAuthClientProvider,
  UnauthorizedError as LegacyUnauthorizedError,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuthorizationServer } from "./authorization_server.ts";

/**
 * Writes toolhost's user config file in `configHome` with `http.auth` set to `auth` (`issuer`
 * turns OAuth on) and returns the environment that makes a server read it.
 */
export function oauthUserConfig(
  configHome: string,
  auth: Record<string, unknown>,
): Record<string, string> {
  mkdirSync(join(configHome, "toolhost"), { recursive: true });
  writeFileSync(join(configHome, "toolhost", "config.jsonc"), JSON.stringify({ http: { auth } }));
  return { XDG_CONFIG_HOME: configHome };
}

/** Where the authorization server sends the user back: never fetched, only read. */
export const REDIRECT_URL = "http://127.0.0.1:9/oauth/callback";

export interface TestOAuthOptions {
  /** The scopes the user approves at the consent page: all those asked for unless told. */
  approve?: string[];
  /** Who signs in at the login page: "tester" unless told. */
  account?: string;
  /** The client_name it registers with. */
  name?: string;
}

/** An OAuthClientProvider kept in memory, whose user agent is the test. */
export class TestOAuthProvider implements OAuthClientProvider {
  /** Every authorization URL the SDK sent the user to, in order. */
  readonly authorizations: URL[] = [];
  /** The last redirect back to REDIRECT_URL (code, state, iss). */
  callback?: URL;
  #client?: StoredOAuthClientInformation;
  #tokens?: StoredOAuthTokens;
  #verifier = "";
  #discovery?: OAuthDiscoveryState;

  constructor(
    private readonly as: AuthorizationServer,
    private readonly options: TestOAuthOptions = {},
  ) {}

  get redirectUrl(): string {
    return REDIRECT_URL;
  }

  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.options.name ?? "toolhost e2e",
      redirect_uris: [REDIRECT_URL],
      grant_types: ["authorization_code", "refresh_token"],
      response_types: ["code"],
      token_endpoint_auth_method: "none",
    };
  }

  /** The access token the client holds now, if any. */
  get accessToken(): string | undefined {
    return this.#tokens?.access_token;
  }

  state(): string {
    return crypto.randomUUID();
  }

  clientInformation(_ctx?: OAuthClientInformationContext) {
    return this.#client;
  }

  saveClientInformation(info: StoredOAuthClientInformation) {
    this.#client = info;
  }

  tokens(_ctx?: OAuthClientInformationContext) {
    return this.#tokens;
  }

  saveTokens(tokens: StoredOAuthTokens) {
    this.#tokens = tokens;
  }

  async redirectToAuthorization(url: URL): Promise<void> {
    this.authorizations.push(url);
    this.callback = await this.as.authorize(url, this.options);
  }

  saveCodeVerifier(verifier: string) {
    this.#verifier = verifier;
  }

  codeVerifier(): string {
    return this.#verifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.#discovery = state;
  }

  discoveryState() {
    return this.#discovery;
  }

  /** The redirect the last authorization came back with; fails the test when there is none. */
  takeCallback(): URL {
    const callback = this.callback;
    if (!callback) throw new Error("the SDK never sent the user to the authorization server");
    this.callback = undefined;
    return callback;
  }
}

/**
 * The 2026-era SDK client (@modelcontextprotocol/client) connected to `url` with OAuth: the first
 * connect meets the 401, discovers the authorization server and sends the user there; finishAuth
 * takes the code from the redirect; the second connect holds the token.
 */
export async function connectModern(
  url: string,
  provider: TestOAuthProvider,
  transportOptions: { onInsufficientScope?: "reauthorize" | "throw" } = {},
): Promise<{ client: Client; transport: StreamableHTTPClientTransport }> {
  const open = () => {
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      authProvider: provider,
      ...transportOptions,
    });
    return { client: new Client({ name: "oauth-e2e", version: "1.0.0" }), transport };
  };
  const first = open();
  try {
    await first.client.connect(first.transport);
    return first; // a token was held already
  } catch (error) {
    if (!(error instanceof UnauthorizedError)) throw error;
  }
  await first.transport.finishAuth(provider.takeCallback().searchParams);
  await first.client.close();
  const second = open();
  await second.client.connect(second.transport);
  return second;
}

/** The same with the 2025-era SDK (@modelcontextprotocol/sdk 1.x), whose finishAuth takes the code. */
export async function connectLegacy(
  url: string,
  provider: TestOAuthProvider,
): Promise<{ client: LegacyClient; transport: LegacyTransport }> {
  const authProvider = provider as unknown as LegacyOAuthClientProvider;
  const open = () => ({
    client: new LegacyClient({ name: "oauth-e2e-legacy", version: "1.0.0" }),
    transport: new LegacyTransport(new URL(url), { authProvider }),
  });
  const first = open();
  try {
    await first.client.connect(first.transport);
    return first;
  } catch (error) {
    if (!(error instanceof LegacyUnauthorizedError)) throw error;
  }
  const code = provider.takeCallback().searchParams.get("code");
  if (!code) throw new Error("the redirect back carries no code");
  await first.transport.finishAuth(code);
  await first.client.close();
  const second = open();
  await second.client.connect(second.transport);
  return second;
}

/**
 * The 2025-era SDK's HTTP+SSE client (2024-11-05: GET /sse, POST /messages) with OAuth: the
 * same two connects around finishAuth.
 */
export async function connectLegacySse(
  sseUrl: string,
  provider: TestOAuthProvider,
): Promise<{ client: LegacyClient; transport: SSEClientTransport }> {
  const authProvider = provider as unknown as LegacyOAuthClientProvider;
  const open = () => ({
    client: new LegacyClient({ name: "oauth-e2e-sse", version: "1.0.0" }),
    transport: new SSEClientTransport(new URL(sseUrl), { authProvider }),
  });
  const first = open();
  try {
    await first.client.connect(first.transport);
    return first;
  } catch (error) {
    if (!(error instanceof LegacyUnauthorizedError)) throw error;
  }
  const code = provider.takeCallback().searchParams.get("code");
  if (!code) throw new Error("the redirect back carries no code");
  await first.transport.finishAuth(code);
  await first.client.close();
  const second = open();
  await second.client.connect(second.transport);
  return second;
}

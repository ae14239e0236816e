/**
 * The benchmark's MCP client over Streamable HTTP, the same code for every server: keep-alive
 * connections of http_wire.ts (one per request in flight), requests built by string
 * concatenation, and every reply checked for status, a JSON body and the echoed text.
 */
import { WireConnection, type WireResponse } from "./http_wire.ts";

const LEGACY_VERSION = "2025-11-25";
const MODERN_VERSION = "2026-07-28";
const ACCEPT = "application/json, text/event-stream";

/** Sends echo call number `id` and resolves once its reply has been checked. */
export type EchoCall = (id: number) => Promise<void>;

/** Connections to one server's endpoint, each lent to one request at a time. */
export class HttpClient {
  readonly #idle: WireConnection[] = [];
  readonly #all = new Set<WireConnection>();
  readonly #host: string;
  readonly #port: number;
  readonly #path: string;

  constructor(url: string) {
    const parsed = new URL(url);
    this.#host = parsed.hostname;
    this.#port = Number(parsed.port);
    this.#path = parsed.pathname;
  }

  /** The request line and headers of a request, built once and reused. */
  head(method: string, headers: Record<string, string>): string {
    const lines = [`${method} ${this.#path} HTTP/1.1`, `host: ${this.#host}:${this.#port}`];
    for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
    return lines.join("\r\n") + "\r\n";
  }

  async send(head: string, body = ""): Promise<WireResponse> {
    let connection = this.#idle.pop();
    while (connection && !connection.usable) connection = this.#idle.pop();
    if (!connection) {
      connection = new WireConnection(this.#host, this.#port);
      this.#all.add(connection);
    }
    const response = await connection.request(head, body);
    if (connection.usable) this.#idle.push(connection);
    else this.#all.delete(connection);
    return response;
  }

  close(): void {
    for (const connection of this.#all) connection.close();
  }
}

/** A reply's result (plain JSON or the last event of a stream), or an error naming what came. */
function resultOf(response: WireResponse, what: string): Record<string, unknown> {
  const type = response.headers.get("content-type") ?? "";
  const json = type.startsWith("application/json");
  if (response.status !== 200 || !(json || type.startsWith("text/event-stream"))) {
    throw new Error(`${what}: HTTP ${response.status} ${type}: ${response.body.slice(0, 300)}`);
  }
  const reply = JSON.parse(json ? response.body : lastEventData(response.body));
  if (!reply.result || reply.result.isError) {
    throw new Error(`${what} failed: ${response.body.slice(0, 300)}`);
  }
  return reply.result;
}

function echoCall(client: HttpClient, headers: Record<string, string>, params: string): EchoCall {
  const head = client.head("POST", headers);
  const before = `{"jsonrpc":"2.0","id":`;
  const after = `,"method":"tools/call","params":${params}}`;
  return async (id) => {
    const result = resultOf(await client.send(head, before + id + after), `echo #${id}`);
    const content = result.content as { text?: string }[] | undefined;
    if (content?.[0]?.text !== "hi") {
      throw new Error(`echo #${id} came back altered: ${JSON.stringify(result)}`);
    }
  };
}

export interface LegacySession {
  call: EchoCall;
  /** Ends the session with DELETE, as a client that is done does. */
  close(): Promise<void>;
}

/** initialize, notifications/initialized, then echo calls in that session. */
export async function openLegacySession(client: HttpClient): Promise<LegacySession> {
  const base = { "content-type": "application/json", "accept": ACCEPT };
  const initialize = await client.send(
    client.head("POST", base),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY_VERSION,
        capabilities: {},
        clientInfo: { name: "toolhost-bench", version: "1" },
      },
    }),
  );
  resultOf(initialize, "initialize");
  const id = initialize.headers.get("mcp-session-id");
  if (!id) throw new Error("initialize: no Mcp-Session-Id in the reply");
  const session = { "mcp-session-id": id, "mcp-protocol-version": LEGACY_VERSION };
  const headers = { ...base, ...session };
  const initialized = await client.send(
    client.head("POST", headers),
    `{"jsonrpc":"2.0","method":"notifications/initialized"}`,
  );
  if (initialized.status !== 202) {
    throw new Error(`notifications/initialized: HTTP ${initialized.status}, not 202`);
  }
  return {
    call: echoCall(client, headers, `{"name":"echo","arguments":{"text":"hi"}}`),
    close: async () => void await client.send(client.head("DELETE", session)),
  };
}

/** 2026-07-28 stateless echo calls: no handshake, headers that mirror the body. */
export function modernCall(client: HttpClient): EchoCall {
  const headers = {
    "content-type": "application/json",
    "accept": ACCEPT,
    "mcp-protocol-version": MODERN_VERSION,
    "mcp-method": "tools/call",
    "mcp-name": "echo",
  };
  const meta = JSON.stringify({
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientCapabilities": {},
  });
  return echoCall(client, headers, `{"name":"echo","arguments":{"text":"hi"},"_meta":${meta}}`);
}

/** The data of an SSE body's last event: a stream ends with the reply. */
function lastEventData(body: string): string {
  const data = body.split("\n").filter((line) => line.startsWith("data:"));
  return data.at(-1)?.slice(5).trim() ?? "";
}

/**
 * The HTTP comparison server for the benchmark: the official TypeScript SDK (v1) with its
 * StreamableHTTPServerTransport on node:http, stateful sessions, JSON responses
 * (`enableJsonResponse: true`), the echo server of sdk_echo.ts. It follows the SDK's own
 * jsonResponseStreamableHttp example (one McpServer and transport per session, kept in a map by
 * Mcp-Session-Id), with node:http and a JSON body parse where the example has express.json().
 * Usage: node sdk-http-server.mjs [PORT]; prints `serving MCP at http://127.0.0.1:PORT/mcp` on
 * stderr, as toolhost --http does.
 */
import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import process from "node:process";
// @ts-types="@modelcontextprotocol/sdk/server/streamableHttp"
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import { isInitializeRequest } from "@modelcontextprotocol/sdk/types.js";
import { echoServer } from "./sdk_echo.ts";

const sessions = new Map<string, StreamableHTTPServerTransport>();

function sendError(res: ServerResponse, status: number, code: number, message: string): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ jsonrpc: "2.0", error: { code, message }, id: null }));
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.url !== "/mcp") return sendError(res, 404, -32000, "Not found");
  const sessionId = req.headers["mcp-session-id"] as string | undefined;
  const known = sessionId ? sessions.get(sessionId) : undefined;
  if (req.method !== "POST") {
    if (known) return known.handleRequest(req, res);
    return sendError(res, 400, -32000, "Bad Request: No valid session ID provided");
  }
  let body: unknown;
  try {
    body = await readJson(req);
  } catch {
    return sendError(res, 400, -32700, "Parse error");
  }
  if (known) return known.handleRequest(req, res, body);
  if (sessionId) return sendError(res, 404, -32001, "Session not found");
  if (!isInitializeRequest(body)) {
    return sendError(res, 400, -32000, "Bad Request: No valid session ID provided");
  }
  const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
    sessionIdGenerator: () => randomUUID(),
    enableJsonResponse: true,
    onsessioninitialized: (id) => void sessions.set(id, transport),
  });
  transport.onclose = () => {
    if (transport.sessionId) sessions.delete(transport.sessionId);
  };
  await echoServer().connect(transport);
  await transport.handleRequest(req, res, body);
}

const http = createServer((req, res) => {
  handle(req, res).catch((error) => {
    process.stderr.write(`sdk-http-server: ${error}\n`);
    if (!res.headersSent) sendError(res, 500, -32603, "Internal server error");
  });
});
http.listen(Number(process.argv[2] ?? 0), "127.0.0.1", () => {
  const address = http.address() as { port: number };
  process.stderr.write(`serving MCP at http://127.0.0.1:${address.port}/mcp\n`);
});
process.on("SIGTERM", () => {
  http.close();
  http.closeAllConnections();
  Promise.all([...sessions.values()].map((t) => t.close())).finally(() => process.exit(0));
});

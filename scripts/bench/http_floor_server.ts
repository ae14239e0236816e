/**
 * The benchmark's calibration server: Bun.serve answering the client's requests with the
 * replies it expects and no MCP at all (no sessions, no validation, no dispatch). Its rate is
 * what the client and the runtime's HTTP layer manage together on this machine, the ceiling any
 * Bun-based server could reach here; a toolhost figure near it would mean the client limits.
 * Run with `bun scripts/bench/http_floor_server.ts`; prints where it listens as toolhost does.
 */
import process from "node:process";

interface BunRuntime {
  serve(options: {
    hostname: string;
    port: number;
    fetch(request: Request): Promise<Response>;
  }): { port: number };
}

const headers = { "content-type": "application/json", "mcp-session-id": "floor" };

const server = (globalThis as unknown as { Bun: BunRuntime }).Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(request) {
    const message = JSON.parse(await request.text());
    if (message.id === undefined) return new Response(null, { status: 202 });
    const result = message.method === "tools/call"
      ? { content: [{ type: "text", text: message.params.arguments.text }] }
      : {};
    return new Response(JSON.stringify({ jsonrpc: "2.0", id: message.id, result }), { headers });
  },
});
process.stderr.write(`serving MCP at http://127.0.0.1:${server.port}/mcp\n`);
process.on("SIGTERM", () => process.exit(0));

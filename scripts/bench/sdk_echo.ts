/**
 * The official TypeScript SDK (v1) server the benchmark compares against, with one `echo` tool
 * equivalent to the `echo` fixture in dist/toolhost-test; sdk_server.ts and sdk_http_server.ts
 * put it on stdio and HTTP. Kept as plain as the SDK's own examples so the figures show the SDK
 * as people use it.
 */
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/server/mcp"
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
// zod 4 is installed (the SDK's peer dependency); its root export is the v4 API.
import * as z from "zod";

export function echoServer(): McpServer {
  const server = new McpServer({ name: "sdk-echo", version: "1.0.0" });
  server.registerTool(
    "echo",
    {
      description: "Returns `text` unchanged (benchmarks and payload tests).",
      inputSchema: { text: z.string() },
      annotations: { readOnlyHint: true },
    },
    ({ text }) => ({ content: [{ type: "text", text }] }),
  );
  return server;
}

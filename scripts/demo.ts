/**
 * `deno task demo`: starts dist/toolhost the way an MCP client does (the official client,
 * probing with server/discover and falling back to initialize), and prints what happened.
 */
import { statSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";

const BINARY = fileURLToPath(new URL("../dist/toolhost", import.meta.url));

function say(text = "") {
  process.stdout.write(text + "\n");
}

function indent(text: string) {
  return text.trimEnd().split("\n").map((line) => (line ? `    ${line}` : "")).join("\n");
}

const size = (statSync(BINARY).size / 1e6).toFixed(0);
say(`toolhost demo: ${BINARY} (${size} MB, no runtime needed)`);
say();

const client = new Client(
  { name: "toolhost-demo", version: "1.0.0" },
  { versionNegotiation: { mode: "auto" } },
);
const started = performance.now();
await client.connect(new StdioClientTransport({ command: BINARY, stderr: "pipe" }));
const connectMs = Math.round(performance.now() - started);
const server = client.getServerVersion();
say(`connected in ${connectMs} ms to ${server?.name} ${server?.version}`);
say(
  `  protocol: ${client.getNegotiatedProtocolVersion()} (${client.getProtocolEra()} era` +
    (client.getProtocolEra() === "modern"
      ? ": found by server/discover; every request carries its version, no handshake)"
      : ": initialize handshake)"),
);
say();

const { tools } = await client.listTools();
say(`tools offered (${tools.length}):`);
for (const tool of tools) {
  const hints = tool.annotations?.destructiveHint
    ? " [destructive]"
    : tool.annotations?.readOnlyHint
    ? " [read-only]"
    : "";
  say(`  ${tool.name}: ${tool.title ?? tool.description?.split(". ")[0]}${hints}`);
}
say();

say(`calling bash { "command": "uname -a" }`);
const result = await client.callTool({ name: "bash", arguments: { command: "uname -a" } });
const text = (result.content as { type: string; text?: string }[]).map((c) => c.text ?? "").join(
  "",
);
say(indent(text));
say(`  structuredContent: ${JSON.stringify(result.structuredContent)}`);
await client.close();
say();

say("To use it, add this to your client's .mcp.json:");
say(indent(JSON.stringify({ mcpServers: { toolhost: { command: BINARY } } }, null, 2)));

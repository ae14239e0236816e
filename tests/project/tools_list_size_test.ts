/**
 * Every tool description costs the user context on every turn: the whole tools/list answer, as a
 * 2025-11-25 client gets it from toolhost with default settings, stays within what 23 tools cost
 * (43,377 bytes, the reply line of `dist/toolhost` started in /work/main with home /root) although
 * tools are added, plus the two language-server tools of issue 29 (code_nav about 1,800 and
 * rename_symbol about 1,200 bytes with their output schemas: 2,994 bytes together), 46,371. Computed in-process: the tools assembled from tools/mod.ts as main.ts does,
 * listed through the same service and connection, the reply serialized as the stdio writer does.
 * The skill tool's description names the directories it looked in (the working and home
 * directories): they are counted as on that machine, so the budget does not depend on where the
 * test runs.
 */
import assert from "node:assert/strict";
import { homedir } from "node:os";
import process from "node:process";
import { test } from "node:test";
import { defaultSettings } from "../../config/settings.ts";
import { McpConnection } from "../../mcp/connection.ts";
import { McpService } from "../../mcp/service.ts";
import { receiveLine } from "../../mcp/stdio.ts";
import { assemble } from "../../tools/assemble.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { initializeParams } from "../helpers/in_process.ts";
import type { Message } from "../helpers/raw_client.ts";

const BUDGET = 46_371;

/** The tools/list reply line (with its newline) and each tool's share of it. */
async function toolsListLine(): Promise<{ bytes: number; tools: { name: string }[] }> {
  const settings = defaultSettings();
  const { tools, warnings, removed: _, ...contributions } = await assemble(settings);
  assert.deepEqual(warnings, []);
  const sent: Message[] = [];
  const service = new McpService({
    info: { name: "toolhost", title: "toolhost", version: "0.0.0" },
    tools,
    ...contributions,
    logger: { log: () => {} },
    roots: { fixed: [], fallback: [process.cwd()] },
    config: settings,
    state: { dir: scratchDir("toolhost-list-size-") },
  });
  const server = new McpConnection({
    ...service.options,
    service,
    send: (message) => (sent.push(message as unknown as Message), true),
  });
  const line = (value: unknown) => receiveLine(server, JSON.stringify(value));
  line({ jsonrpc: "2.0", id: 1, method: "initialize", params: initializeParams("2025-11-25") });
  line({ jsonrpc: "2.0", method: "notifications/initialized" });
  line({ jsonrpc: "2.0", id: 2, method: "tools/list" });
  let reply: Message | undefined;
  for (let i = 0; i < 5000 && !reply; i++) {
    await new Promise((resolve) => setTimeout(resolve, 2));
    reply = sent.find((m) => m.id === 2);
  }
  assert.ok(reply?.result, JSON.stringify(reply ?? sent));
  let text = JSON.stringify(reply);
  // As on the reference machine: started in /work/main, home /root.
  const escaped = (s: string) => JSON.stringify(s).slice(1, -1);
  text = text.replaceAll(escaped(process.cwd()), "/work/main").replaceAll(
    escaped(homedir()),
    "/root",
  );
  return {
    bytes: Buffer.byteLength(text) + 1,
    tools: (reply.result as { tools: { name: string }[] }).tools,
  };
}

test("the whole tools/list answer stays within 46,371 bytes", async () => {
  const { bytes, tools } = await toolsListLine();
  const sizes = tools.map((tool) => ({
    name: tool.name,
    bytes: Buffer.byteLength(JSON.stringify(tool)),
  })).sort((a, b) => b.bytes - a.bytes);
  assert.ok(
    bytes <= BUDGET,
    `tools/list is ${bytes} bytes for ${tools.length} tools, ${bytes - BUDGET} over the ` +
      `${BUDGET}-byte budget; the largest: ${
        sizes.slice(0, 8).map((s) => `${s.name} ${s.bytes}`).join(", ")
      }`,
  );
  console.error(`tools/list: ${bytes} bytes for ${tools.length} tools (budget ${BUDGET})`);
});

/**
 * Icons and the order of tools/list, as the assembled tools give them: every tool listed by name
 * (page after page, in every era), each built-in tool with its family's icon where the version
 * has icons (2025-11-25, 2026-07-28) and none before; the server's icon in initialize's and
 * server/discover's serverInfo, not in the serverInfo every 2026-07-28 result carries.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import { defaultSettings } from "../../config/settings.ts";
import { appOnly } from "../../mcp/tool/mod.ts";
import { McpConnection } from "../../mcp/server/connection.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { receiveLine } from "../../mcp/stdio/stdio.ts";
import { assemble } from "../../tools/_catalog/assemble.ts";
import { FAMILY_ICONS, SERVER_ICON } from "../../tools/_catalog/icons.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { initializeParams } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

type Listed = { name: string; icons?: { src: string }[] };

async function server(pageSize = 100) {
  const settings = defaultSettings();
  const { tools, warnings: _, removed: __, ...contributions } = await assemble(settings);
  const sent: Message[] = [];
  const service = new McpService({
    info: { name: "toolhost", version: "0.0.0" },
    icons: [SERVER_ICON],
    tools,
    ...contributions,
    logger: { log: () => {} },
    roots: { fixed: [], fallback: [process.cwd()] },
    config: settings,
    state: { dir: scratchDir("toolhost-icons-") },
    pageSize,
  });
  const connection = new McpConnection({
    ...service.options,
    service,
    send: (message) => (sent.push(JSON.parse(JSON.stringify(message))), true),
  });
  let id = 0;
  const request = async (method: string, params?: Record<string, unknown>) => {
    const mine = ++id;
    receiveLine(connection, JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }));
    for (let i = 0; i < 5000; i++) {
      const reply = sent.find((m) => m.id === mine);
      if (reply) return reply;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`no reply to ${method}`);
  };
  /** Every page of tools/list. */
  const listAll = async (meta?: (p: Record<string, unknown>) => Record<string, unknown>) => {
    const all: Listed[] = [];
    let cursor: unknown;
    do {
      const params = cursor === undefined ? {} : { cursor };
      const reply = await request("tools/list", meta ? meta(params) : params);
      const result = reply.result as { tools: Listed[]; nextCursor?: string };
      all.push(...result.tools);
      cursor = result.nextCursor;
    } while (cursor !== undefined);
    return all;
  };
  return { request, listAll, tools };
}

const byName = (names: string[]) => [...names].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));

test("tools/list is in name order, page after page, and the same every time", async () => {
  const { request, listAll, tools } = await server(5);
  await request("initialize", initializeParams("2025-11-25"));
  const first = (await listAll()).map((tool) => tool.name);
  // A tool meant for apps alone is listed only to clients that render apps; this one does not.
  assert.equal(first.length, tools.filter((tool) => !appOnly(tool.ui)).length);
  assert.ok(first.length > 5, "several pages");
  assert.deepEqual(first, byName(first));
  assert.deepEqual((await listAll()).map((tool) => tool.name), first);
  assert.deepEqual((await listAll(modern)).map((tool) => tool.name), first);
});

test("each built-in tool carries its family's icon in 2025-11-25 and 2026-07-28, none before", async () => {
  const { request, listAll } = await server();
  const icons = new Set(Object.values(FAMILY_ICONS).map((icon) => icon.src));
  await request("initialize", initializeParams("2025-11-25"));
  for (const listed of [await listAll(), await listAll(modern)]) {
    for (const tool of listed) {
      assert.equal(tool.icons?.length, 1, `${tool.name} has one icon`);
      assert.ok(icons.has(tool.icons![0].src), `${tool.name}'s icon is its family's`);
      assert.match(tool.icons![0].src, /^data:image\/svg\+xml;base64,[A-Za-z0-9+/=]+$/);
    }
    const bash = listed.find((tool) => tool.name === "bash")!;
    assert.equal(bash.icons![0].src, FAMILY_ICONS.shell.src);
  }
  const old = await server();
  await old.request("initialize", initializeParams("2025-06-18"));
  for (const tool of await old.listAll()) assert.equal(tool.icons, undefined, tool.name);
});

test("the server's icon is in initialize (2025-11-25) and server/discover, not in every result", async () => {
  const newer = await server();
  const init = (await newer.request("initialize", initializeParams("2025-11-25"))).result!;
  assert.deepEqual((init.serverInfo as { icons: unknown }).icons, [SERVER_ICON]);
  const older = await server();
  const before = (await older.request("initialize", initializeParams("2025-06-18"))).result!;
  assert.equal((before.serverInfo as { icons?: unknown }).icons, undefined);
  const discovered = (await newer.request("server/discover", modern())).result!;
  const info = (discovered._meta as Record<string, { name: string; icons?: unknown }>)[
    "io.modelcontextprotocol/serverInfo"
  ];
  assert.equal(info.name, "toolhost");
  assert.deepEqual(info.icons, [SERVER_ICON]);
  const listed = (await newer.request("tools/list", modern())).result!;
  const plain = (listed._meta as Record<string, { icons?: unknown }>)[
    "io.modelcontextprotocol/serverInfo"
  ];
  assert.equal(plain.icons, undefined);
});

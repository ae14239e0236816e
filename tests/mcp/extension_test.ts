/**
 * The extension contract (mcp/features/extension.ts): a contributed extension is announced under
 * capabilities.extensions in both eras (beside the tasks extension in 2026-07-28), its methods
 * answer in both, an RpcError it throws reaches the client as it is, and a method name the server
 * already answers is refused at start.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import { McpConnection } from "../../mcp/server/connection.ts";
import { defineExtension } from "../../mcp/features/mod.ts";
import { INVALID_PARAMS, RpcError } from "../../mcp/wire/mod.ts";
import { McpService } from "../../mcp/server/mod.ts";
import { receiveLine } from "../../mcp/stdio/stdio.ts";
import { initializeParams } from "../helpers/in_process.ts";
import { type Message, modern } from "../helpers/raw_client.ts";

const echo = defineExtension({
  id: "com.example/echo",
  settings: { loud: true },
  methods: {
    "echo/say": async (params, ctx) => {
      if (typeof params.text !== "string") {
        throw new RpcError(INVALID_PARAMS, "Invalid params: echo/say needs params.text");
      }
      return { said: params.text, era: ctx.era, pageSize: ctx.pageSize, roots: await ctx.roots() };
    },
  },
});

function connection(extensions = [echo]) {
  const sent: Message[] = [];
  const service = new McpService({
    info: { name: "t", version: "1" },
    tools: [],
    extensions,
    logger: { log: () => {} },
    roots: { fixed: [], fallback: [process.cwd()] },
    pageSize: 7,
  });
  const server = new McpConnection({
    ...service.options,
    service,
    send: (m) => (sent.push(JSON.parse(JSON.stringify(m))), true),
  });
  let id = 0;
  return async (method: string, params?: Record<string, unknown>) => {
    const mine = ++id;
    receiveLine(server, JSON.stringify({ jsonrpc: "2.0", id: mine, method, params }));
    for (let i = 0; i < 2000; i++) {
      const reply = sent.find((m) => m.id === mine);
      if (reply) return reply;
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
    throw new Error(`no reply to ${method}`);
  };
}

test("an extension is announced and answers in both eras", async () => {
  const request = connection();
  const init = await request("initialize", initializeParams("2025-06-18"));
  const legacyCaps = init.result!.capabilities as Record<string, unknown>;
  assert.deepEqual(legacyCaps.extensions, { "com.example/echo": { loud: true } });
  const said = await request("echo/say", { text: "hi" });
  assert.deepEqual(said.result, { said: "hi", era: "legacy", pageSize: 7, roots: [process.cwd()] });
  const discovered = await request("server/discover", modern());
  const modernCaps = discovered.result!.capabilities as Record<string, unknown>;
  assert.deepEqual(modernCaps.extensions, { "com.example/echo": { loud: true } });
  const again = await request("echo/say", modern({ text: "yo" }));
  assert.equal(again.result!.era, "modern");
  assert.equal(again.result!.resultType, "complete");
  const refused = await request("echo/say", modern({}));
  assert.equal(refused.error?.code, -32602);
  assert.match(refused.error!.message, /needs params.text/);
});

test("an extension may not take a method the server answers", () => {
  const clash = defineExtension({
    id: "com.example/clash",
    settings: {},
    methods: { "tools/list": () => Promise.resolve({}) },
  });
  assert.throws(() => connection([clash]), /tools\/list is answered already/);
  assert.throws(
    () => defineExtension({ id: "no-prefix", settings: {}, methods: {} }),
    /vendor-prefix/,
  );
});

/**
 * Streamable HTTP through the official clients: the 2025-11-25 SDK client holds a session
 * (Mcp-Session-Id, SSE for what a call sends before its reply, a GET stream for changes), and
 * the 2026-07-28 client talks statelessly, with a subscriptions/listen stream.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/types"
import {
  LoggingMessageNotificationSchema,
  ResourceUpdatedNotificationSchema,
} from "@modelcontextprotocol/sdk/types.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { type HttpServer, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

let server: HttpServer;
let project: string;

before(async () => {
  project = e2e.file.scratch("http");
  writeFileSync(join(project, "notes.txt"), "hello over http\n");
  server = await startHttpServer(PRODUCT_BINARY, ["--root", project]);
});

// Also where the last test, which stops it, is skipped.
e2e.file.cleanup(() => server?.terminate());

async function legacyClient() {
  const client = new Client({ name: "http-legacy", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  return { client, transport };
}

async function modernClient() {
  const client = new ModernClient(
    { name: "http-modern", version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  await client.connect(new ModernTransport(new URL(server.url)));
  return client;
}

test("the 2025-11-25 SDK client holds a session over HTTP: tools, resources, prompts, completion", async () => {
  const { client, transport } = await legacyClient();
  try {
    assert.equal(client.getServerVersion()?.name, "toolhost");
    assert.match(transport.sessionId ?? "", /^[\x21-\x7e]+$/);
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "bash"));
    const run = await client.callTool({ name: "bash", arguments: { command: "echo over-http" } });
    assert.match(JSON.stringify(run.content), /over-http/);
    const uri = pathToFileURL(join(project, "notes.txt")).href;
    const read = await client.readResource({ uri });
    assert.deepEqual(read.contents.map((c) => "text" in c ? c.text : c.blob), [
      "hello over http\n",
    ]);
    const { resourceTemplates } = await client.listResourceTemplates();
    assert.ok(resourceTemplates.some((t) => t.uriTemplate === "file:///{+path}"));
    const done = await client.complete({
      ref: { type: "ref/resource", uri: "file:///{+path}" },
      argument: { name: "path", value: `${project.slice(1)}/no` },
    });
    assert.deepEqual(done.completion.values, [`${project.slice(1)}/notes.txt`]);
    await client.listPrompts();
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test("a legacy HTTP session gets a tool's log lines and progress before its result", async () => {
  const { client, transport } = await legacyClient();
  try {
    const events: string[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (n) => {
      events.push(`log ${n.params.data}`);
    });
    await client.setLoggingLevel("info");
    const result = await client.callTool(
      {
        name: "bash",
        arguments: { command: "sleep 1.3; echo finished", description: "wait a little" },
      },
      undefined,
      { onprogress: (p) => events.push(`progress ${p.progress}`) },
    );
    events.push(`result ${JSON.stringify(result.content).includes("finished")}`);
    assert.deepEqual(events, ["log running: wait a little", "progress 1", "result true"]);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test("legacy resources/subscribe tells of a task list change on the session's GET stream", async () => {
  const { client, transport } = await legacyClient();
  try {
    assert.equal(client.getServerCapabilities()?.resources?.subscribe, true);
    const updated: string[] = [];
    const seen = new Promise<void>((resolve) => {
      client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
        updated.push(n.params.uri);
        resolve();
      });
    });
    await client.subscribeResource({ uri: "toolhost://tasks" });
    await client.callTool({ name: "tasks", arguments: { action: "create", text: "Ship HTTP" } });
    await Promise.race([
      seen,
      new Promise((_, reject) => setTimeout(() => reject(new Error("no update")), 5000)),
    ]);
    assert.deepEqual(updated, ["toolhost://tasks"]);
    await client.unsubscribeResource({ uri: "toolhost://tasks" });
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test("the 2026-07-28 client talks statelessly over HTTP and hears a plan change on listen", async () => {
  const client = await modernClient();
  try {
    assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
    const { tools } = await client.listTools();
    assert.ok(tools.some((t) => t.name === "plan_mode"));
    const updated: string[] = [];
    const seen = new Promise<void>((resolve) => {
      client.setNotificationHandler("notifications/resources/updated", (n) => {
        updated.push(n.params.uri);
        resolve();
      });
    });
    const subscription = await client.listen({ resourceSubscriptions: ["toolhost://plan"] });
    assert.deepEqual(subscription.honoredFilter, { resourceSubscriptions: ["toolhost://plan"] });
    await client.callTool({ name: "plan_mode", arguments: { action: "enter", goal: "HTTP" } });
    await Promise.race([
      seen,
      new Promise((_, reject) => setTimeout(() => reject(new Error("no update")), 5000)),
    ]);
    assert.deepEqual(updated.slice(0, 1), ["toolhost://plan"]);
    await client.callTool({ name: "plan_mode", arguments: { action: "reset" } });
    await subscription.close();
    assert.equal(await subscription.closed, "local");
  } finally {
    await client.close();
  }
});

// Last, as a test rather than an after() hook: Deno does not report failures in hooks.
test(
  "the HTTP server wrote nothing to stdout and exits 0 on SIGTERM",
  posixOnly("sends SIGTERM for an orderly stop (Windows can only terminate)"),
  async () => {
    const { code } = await server.terminate();
    assert.equal(code, 0, server.stderr());
    assert.equal(server.stdout(), "");
  },
);

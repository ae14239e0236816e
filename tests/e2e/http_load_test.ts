/**
 * Streamable HTTP under load, as several clients of one server see it: 50 official SDK clients
 * each holding a session, and 50 stateless 2026-07-28 clients, all calling at once and each
 * getting its own answer; and a client that goes away mid-call, whose command is then killed.
 */
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  Client as ModernClient,
  StreamableHTTPClientTransport as ModernTransport,
} from "@modelcontextprotocol/client";
import { type HttpServer, postModern, SseReader, startHttpServer } from "../helpers/http_server.ts";
import { processesWith, waitUntil } from "../helpers/processes.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const CLIENTS = 50;

let server: HttpServer;
let project: string;

/** A barrier's directory, in the server's root: the sandbox keeps commands' writes there. */
const scratch = (name: string) => e2e.scratch(name, project);

before(async () => {
  project = e2e.file.scratch("http-load");
  server = await startHttpServer(PRODUCT_BINARY, ["--root", project], {}, project);
});

// Only a cleanup: Deno does not report failures in node:test's after hooks (the last test checks).
e2e.file.cleanup(() => server.terminate());

/** How long a barrier waits with no new command starting before it gives up. */
const STALL_SECONDS = 20;

/**
 * A command that answers once all CLIENTS commands have started. It waits as long as more of
 * them keep starting, however slowly (a loaded machine starts 50 commands in seconds, not in a
 * blink), and gives up only when none has started for STALL_SECONDS: a server that ran the calls
 * one after another would leave the first waiting with no progress, and it would see fewer. It
 * counts with bash's own globbing and clock and looks five times a second: 50 of them spawning
 * `ls` and `date` twenty times a second were themselves what kept the last ones from starting.
 */
function barrier(dir: string, label: string): string {
  return `touch ${dir}/${label}; last=0; since=$SECONDS; ` +
    `while f=(${dir}/*); n=\${#f[@]}; [ "$n" -lt ${CLIENTS} ]; do ` +
    `if [ "$n" -ne "$last" ]; then last=$n; since=$SECONDS; fi; ` +
    `[ $((SECONDS - since)) -ge ${STALL_SECONDS} ] && break; sleep 0.2; done; ` +
    `f=(${dir}/*); echo "${label} saw \${#f[@]}"`;
}

function textOf(result: object): string {
  const { content } = result as { content?: { type: string; text?: string }[] };
  return (content ?? []).map((b) => b.text ?? "").join("");
}

/** The one answer line in `text`, which must be this client's. */
function assertOwnAnswer(text: string, label: string, prefix: string): void {
  const lines = text.split("\n").filter((line) => line.startsWith(prefix));
  assert.deepEqual(lines, [`${label} saw ${CLIENTS}`], text);
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

test(`${CLIENTS} official SDK clients at once: each its own session, tool list and answer`, async () => {
  const dir = scratch("http-load-legacy");
  const clients = await Promise.all(
    range(CLIENTS).map(async () => {
      const client = new Client({ name: "http-load-legacy", version: "1.0.0" });
      const transport = new StreamableHTTPClientTransport(new URL(server.url));
      await client.connect(transport);
      return { client, transport };
    }),
  );
  try {
    const sessions = new Set(clients.map(({ transport }) => transport.sessionId));
    assert.equal(sessions.size, CLIENTS, "every client has a session of its own");
    await Promise.all(clients.map(async ({ client }, n) => {
      const { tools } = await client.listTools();
      assert.ok(tools.some((tool) => tool.name === "bash"), `client ${n}`);
      const label = `legacy-${n}`;
      const result = await client.callTool({
        name: "bash",
        arguments: { command: barrier(dir, label) },
      });
      assert.notEqual(result.isError, true, textOf(result));
      assertOwnAnswer(textOf(result), label, "legacy-");
    }));
  } finally {
    await Promise.all(clients.map(async ({ client, transport }) => {
      await transport.terminateSession();
      await client.close();
    }));
  }
});

test(`${CLIENTS} 2026-07-28 clients at once: each tools/call answered with its own id and output`, async () => {
  const dir = scratch("http-load-modern");
  // Half of them through the official client, pinned to 2026-07-28; half by hand.
  const sdkClients = await Promise.all(
    range(CLIENTS / 2).map(async () => {
      const client = new ModernClient(
        { name: "http-load-modern", version: "1.0.0" },
        { versionNegotiation: { mode: { pin: "2026-07-28" } } },
      );
      await client.connect(new ModernTransport(new URL(server.url)));
      assert.equal(client.getNegotiatedProtocolVersion(), "2026-07-28");
      return client;
    }),
  );
  try {
    const bySdk = sdkClients.map(async (client, n) => {
      const label = `modern-${n}`;
      const result = await client.callTool({
        name: "bash",
        arguments: { command: barrier(dir, label) },
      });
      assertOwnAnswer(textOf(result), label, "modern-");
    });
    const byHand = range(CLIENTS / 2).map(async (i) => {
      const n = CLIENTS / 2 + i;
      const label = `modern-${n}`;
      const reply = await postModern(server.url, `call-${n}`, "tools/call", {
        name: "bash",
        arguments: { command: barrier(dir, label) },
      });
      const text = await reply.text();
      assert.equal(reply.status, 200, text);
      const body = JSON.parse(text);
      assert.equal(body.id, `call-${n}`);
      assert.equal(body.result?.resultType, "complete", text);
      assertOwnAnswer(textOf(body.result), label, "modern-");
    });
    await Promise.all([...bySdk, ...byHand]);
  } finally {
    await Promise.all(sdkClients.map((client) => client.close()));
  }
});

/** A marker no other test's command holds: `sleep 30.<5 digits>`. */
let markers = 0;
function sleepMarker(): string {
  markers++;
  return `sleep 30.${String((Date.now() % 1000) * 100 + markers).padStart(5, "0")}`;
}

async function assertStillServing(): Promise<void> {
  const reply = await postModern(server.url, "after-abort", "tools/call", {
    name: "bash",
    arguments: { command: "echo still-serving" },
  });
  const body = await reply.json();
  assert.match(textOf(body.result), /still-serving/);
}

async function assertKilledOnAbort(
  what: string,
  start: (command: string, signal: AbortSignal) => Promise<unknown>,
): Promise<void> {
  const marker = sleepMarker();
  const controller = new AbortController();
  const call = start(marker, controller.signal).then(
    () => "answered",
    (error: Error) => error.name,
  );
  assert.ok(await waitUntil(() => processesWith(marker).length > 0, 5000), `${what}: started`);
  controller.abort();
  assert.equal(await call, "AbortError", what);
  assert.ok(
    await waitUntil(() => processesWith(marker).length === 0, 5000),
    `${what}: still running after the client left:\n${processesWith(marker).join("\n")}`,
  );
  await assertStillServing();
}

test("a client that disconnects mid-call gets its command killed, and the server keeps serving", async () => {
  await assertKilledOnAbort("2026-07-28, JSON reply", (command, signal) =>
    fetch(server.url, {
      method: "POST",
      signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "bash",
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: "json-abort",
        method: "tools/call",
        params: {
          name: "bash",
          arguments: { command },
          _meta: {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientCapabilities": {},
          },
        },
      }),
    }).then((response) => response.text()));

  // With a progress token the reply turns into an SSE stream: closing that stream cancels.
  await assertKilledOnAbort("2026-07-28, SSE reply", async (command, signal) => {
    const response = await postModern(server.url, "sse-abort", "tools/call", {
      name: "bash",
      arguments: { command },
      _meta: { progressToken: "p" },
    }, {});
    assert.match(response.headers.get("content-type") ?? "", /^text\/event-stream/);
    const events = new SseReader(response);
    const progress = await events.next(5000);
    assert.equal(progress?.method, "notifications/progress");
    if (!signal.aborted) {
      await new Promise((resolve) => signal.addEventListener("abort", resolve, { once: true }));
    }
    await events.cancel();
    throw new DOMException("the client left", "AbortError");
  });

  // A legacy session's call, its connection dropped: the session itself goes on.
  const init = await fetch(server.url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "http-load-raw", version: "1" },
      },
    }),
  });
  const session = init.headers.get("mcp-session-id")!;
  assert.equal(init.status, 200, await init.text());
  const legacyPost = (id: number, method: string, params: unknown, signal?: AbortSignal) =>
    fetch(server.url, {
      method: "POST",
      signal,
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": session,
        "mcp-protocol-version": "2025-11-25",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id, method, params }),
    });
  await assertKilledOnAbort(
    "legacy session, connection dropped",
    (command, signal) =>
      legacyPost(1, "tools/call", { name: "bash", arguments: { command } }, signal).then((r) =>
        r.text()
      ),
  );
  const ping = await legacyPost(2, "ping", {});
  assert.deepEqual(await ping.json(), { jsonrpc: "2.0", id: 2, result: {} });
  await (await fetch(server.url, { method: "DELETE", headers: { "mcp-session-id": session } }))
    .body?.cancel();

  // The SDK client cancels with notifications/cancelled instead: the command goes as well.
  const client = new Client({ name: "http-load-abort", version: "1.0.0" });
  const transport = new StreamableHTTPClientTransport(new URL(server.url));
  await client.connect(transport);
  try {
    await assertKilledOnAbort(
      "legacy session, SDK cancel",
      (command, signal) =>
        client.callTool({ name: "bash", arguments: { command } }, undefined, { signal }).catch(
          (error) => {
            throw Object.assign(new Error(String(error)), { name: "AbortError" });
          },
        ),
    );
    const again = await client.callTool({
      name: "bash",
      arguments: { command: "echo session-ok" },
    });
    assert.match(textOf(again), /session-ok/);
  } finally {
    await transport.terminateSession();
    await client.close();
  }
});

test(
  "through all of the above the server wrote nothing on stdout, and SIGTERM ends it with 0",
  posixOnly("sends SIGTERM for an orderly stop (Windows can only terminate)"),
  async () => {
    const status = await server.terminate();
    assert.equal(server.stdout(), "");
    assert.deepEqual(status, { code: 0, signal: null }, server.stderr());
  },
);

/**
 * The review app (MCP Apps, SEP-1865) through the compiled binary: what a client that renders
 * apps is told (history and undo name ui://toolhost/review, history_changes is listed for the app
 * alone), what one that does not is told (nothing new), the page itself, the diffs it is given,
 * and the same page served to a browser over --http behind the same guard. The page in a real
 * Chromium host is tests/e2e/review_host_test.ts's.
 */
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { e2eFixture } from "../helpers/e2e.ts";
import { startHttpServer } from "../helpers/http_server.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { binary, isolatedEnv, modern, PRODUCT_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

const UI = "io.modelcontextprotocol/ui";
const MIME = "text/html;profile=mcp-app";
const PAGE = "ui://toolhost/review";
/**
 * What the page may weigh: it is sent to every host that renders it. 40 KiB since it follows
 * the work live, marks changed words and signs in under OAuth (it was 21 KiB before).
 */
const PAGE_BUDGET_BYTES = 40 * 1024;
const APPS = { extensions: { [UI]: { mimeTypes: [MIME] } } };
/** A 2026-07-28 request's `_meta` from a client that renders apps. */
const appsMeta = { "io.modelcontextprotocol/clientCapabilities": APPS };

/** The status of GET /ui/toolhost/review sent with this Host header (fetch cannot set one). */
function statusWithHost(port: number, host: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const sent = httpRequest(
      { host: "127.0.0.1", port, path: "/ui/toolhost/review", headers: { host } },
      (response) => {
        response.resume();
        resolve(response.statusCode!);
      },
    );
    sent.on("error", reject);
    sent.end();
  });
}

async function sdkClient(root: string, capabilities: Record<string, unknown>) {
  const client = new Client({ name: "review-e2e", version: "1.0.0" }, { capabilities });
  await client.connect(
    new StdioClientTransport({
      command: binary(PRODUCT_BINARY),
      args: ["--root", root],
      cwd: root,
      env: isolatedEnv(),
      stderr: "pipe",
    }),
  );
  return client;
}

test("a client that renders apps sees history and undo name the review app, and history_changes as app-only", async () => {
  const client = await sdkClient(e2e.scratch("review"), APPS);
  try {
    const extensions = client.getServerCapabilities()?.extensions as Record<string, unknown>;
    assert.deepEqual(extensions?.[UI], { mimeTypes: [MIME] });
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const name of ["history", "undo"]) {
      assert.deepEqual(byName.get(name)?._meta, {
        ui: { resourceUri: PAGE },
        "ui/resourceUri": PAGE,
      });
    }
    const data = byName.get("history_changes");
    assert.deepEqual((data?._meta?.ui as { visibility: string[] }).visibility, ["app"]);
    assert.ok(data!.description!.length < 100, "an app-only tool costs few bytes");
    assert.equal(tools.filter((tool) => tool._meta).length, 3);
  } finally {
    await client.close();
  }
});

test("a client that does not announce the extension gets plain tools and no app-only one", async () => {
  const client = await sdkClient(e2e.scratch("review"), {});
  try {
    const { tools } = await client.listTools();
    assert.ok(tools.some((tool) => tool.name === "history"));
    assert.deepEqual(tools.filter((tool) => tool._meta), []);
    assert.ok(!tools.some((tool) => tool.name === "history_changes"));
    await assert.rejects(
      client.callTool({ name: "history_changes", arguments: {} }),
      /Unknown tool "history_changes"/,
    );
  } finally {
    await client.close();
  }
});

test("resources/read gives the page: the app MIME type, small, self-contained, with the hooks hosts use; only apps clients see it listed", async () => {
  const { client } = e2e.start();
  const reply = await client.request("resources/read", modern({ uri: PAGE }));
  const [content] = (reply.result as { contents: Record<string, unknown>[] }).contents;
  assert.equal(content.mimeType, MIME);
  assert.deepEqual(content._meta, { ui: { csp: {}, prefersBorder: true } });
  const html = content.text as string;
  assert.match(html, /^<!doctype html>/i);
  const bytes = Buffer.byteLength(html);
  assert.ok(bytes <= PAGE_BUDGET_BYTES, `the page is ${bytes} bytes`);
  // No network: nothing it loads or links to lies outside the document.
  assert.doesNotMatch(html, /https?:\/\/|\bsrc=|\bhref=/i);
  // (in the style: its script builds URLs, `new URL(…)`, of the address it was served at)
  const style = html.match(/<style>([\s\S]*?)<\/style>/)?.[1] ?? "";
  assert.doesNotMatch(style, /@import|url\(/i);
  // (a card's button is data-action=undo or redo, set from what the call's state allows)
  for (
    const hook of [
      "data-change-id",
      '"data-action"',
      'action: "undo"',
      "filter-path",
      "filter-tool",
    ]
  ) {
    assert.ok(html.includes(hook), `the page lacks ${hook}`);
  }
  // Listed to clients that render apps alone (read by anyone who asks for it).
  const listed = async (meta: Record<string, unknown>) => {
    const list = await client.request("resources/list", modern({}, meta));
    return (list.result as { resources: { uri: string; mimeType: string }[] }).resources;
  };
  assert.equal((await listed(appsMeta)).find((r) => r.uri === PAGE)?.mimeType, MIME);
  assert.ok(!(await listed({})).some((r) => r.uri === PAGE));
});

test("history_changes gives an edit_file change as a diff, marks it undone once undo ran, and is not journaled", async () => {
  const { root, client } = e2e.start();
  writeFileSync(join(root, "notes.txt"), "one\ntwo\nthree\n");
  const edit = await callTool(client, "edit_file", {
    path: "notes.txt",
    edits: [{ old_string: "two", new_string: "2" }],
  });
  assert.equal(edit.isError, false, edit.text);
  const call = async (args: Record<string, unknown>) => {
    const reply = await client.request(
      "tools/call",
      modern({ name: "history_changes", arguments: args }, appsMeta),
    );
    const result = reply.result as {
      structuredContent: Record<string, unknown>;
      isError?: boolean;
    };
    assert.ok(result && !result.isError, JSON.stringify(reply));
    return result.structuredContent as {
      calls: {
        id: string;
        tool: string;
        undoable: boolean;
        undoneBy?: string;
        changes: { path: string; kind: string; hunks: { lines: string[] }[] }[];
      }[];
      tools: string[];
    };
  };
  const page = await call({});
  assert.equal(page.calls.length, 1);
  const [change] = page.calls[0].changes;
  assert.equal(page.calls[0].tool, "edit_file");
  assert.equal(page.calls[0].undoable, true);
  assert.equal(change.path, "notes.txt");
  assert.equal(change.kind, "modified");
  assert.deepEqual(change.hunks[0].lines, [" one", "-two", "+2", " three"]);
  // The filters: another path, another tool.
  assert.equal((await call({ path: "other.txt" })).calls.length, 0);
  assert.equal((await call({ tool: "write_file" })).calls.length, 0);

  const undo = await callTool(client, "undo", { id: page.calls[0].id });
  assert.equal(undo.isError, false, undo.text);
  assert.equal(readFileSync(join(root, "notes.txt"), "utf8"), "one\ntwo\nthree\n");
  const after = await call({});
  const undone = after.calls.find((c) => c.id === page.calls[0].id);
  assert.equal(undone?.undoneBy, after.calls.find((c) => c.tool === "undo")?.id);
  // The undo's own change is shown the other way round.
  assert.deepEqual(after.calls[0].changes[0].hunks[0].lines, [" one", "-2", "+two", " three"]);
  // The app's own calls are no calls of the agent: history does not show them.
  const history = await callTool(client, "history", {});
  assert.doesNotMatch(history.text, /history_changes/);
  assert.ok(!after.tools.includes("history_changes"));
});

test("over --http, /ui/toolhost/review serves the page with a strict CSP behind the Origin and Host checks; /mcp still wants the token", async () => {
  const token = "review-token-1234";
  const server = await startHttpServer(PRODUCT_BINARY, [
    "--root",
    e2e.scratch("review-http"),
    "--http-token",
    token,
  ]);
  e2e.cleanup(() => server.terminate());
  const base = `http://127.0.0.1:${server.port}`;
  const page = await fetch(`${base}/ui/toolhost/review`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get("content-type"), "text/html; charset=utf-8");
  const html = await page.text();
  const policy = page.headers.get("content-security-policy") ?? "";
  assert.match(policy, /default-src 'none'/);
  assert.match(policy, /connect-src 'self'/);
  assert.match(policy, /frame-ancestors 'none'/);
  assert.doesNotMatch(policy, /unsafe-inline|unsafe-eval|\*/);
  // The inline script is allowed by its digest, nothing else.
  const script = html.match(/<script>([\s\S]*?)<\/script>/)![1];
  const digest = createHash("sha256").update(script).digest("base64");
  assert.ok(policy.includes(`script-src 'sha256-${digest}'`), policy);
  assert.equal(page.headers.get("x-content-type-options"), "nosniff");

  const foreign = await fetch(`${base}/ui/toolhost/review`, {
    headers: { origin: "https://attacker.example" },
  });
  assert.equal(foreign.status, 403);
  assert.match(await foreign.text(), /origin https:\/\/attacker\.example/);
  assert.equal(await statusWithHost(server.port, "evil.example"), 403);
  assert.equal(await statusWithHost(server.port, `localhost:${server.port}`), 200);
  assert.equal((await fetch(`${base}/ui/toolhost/nothing`)).status, 404);
  assert.equal((await fetch(`${base}/ui/../mcp`)).status, 401);
  assert.equal((await fetch(`${base}/ui/toolhost/review`, { method: "POST" })).status, 405);

  // What the page sends to /mcp: refused without the token, answered with it.
  const ask = (headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json",
        "mcp-protocol-version": "2026-07-28",
        "mcp-method": "tools/call",
        "mcp-name": "history_changes",
        ...headers,
      },
      body: JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "tools/call",
        params: modern({ name: "history_changes", arguments: {} }, appsMeta),
      }),
    });
  const refused = await ask({});
  assert.equal(refused.status, 401);
  await refused.body?.cancel();
  const answered = await ask({ authorization: `Bearer ${token}` });
  assert.equal(answered.status, 200);
  const body = await answered.json();
  assert.deepEqual(body.result.structuredContent.calls, []);
});

/**
 * No web page on the machine can drive toolhost, in a real Chromium through the compiled binary:
 * a page served from another port of 127.0.0.1 tries initialize, history, undo (by id, forced),
 * bash and bash_background by fetch (CORS and no-cors), XHR, a form, sendBeacon and a WebSocket;
 * every one is refused, nothing runs and nothing is undone. The review page on toolhost's own
 * origin (GET /ui/toolhost/review) still lists the change.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { join } from "node:path";
import { test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { e2eFixture } from "../helpers/e2e.ts";
import { startHttpServer } from "../helpers/http_server.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { findChromium, launchBrowser } from "../helpers/browser.ts";

const e2e = e2eFixture();
const chromium = findChromium();
const skip = chromium ? false : "no Chromium found (install chromium, or set TOOLHOST_CHROME)";

/** Each way a page can send a request, and the file its bash command would make. */
const VECTORS = [
  "fetch",
  "fetch-legacy",
  "fetch-no-cors",
  "xhr",
  "form",
  "beacon",
  "websocket",
  "background",
];

/** The attacking page: runs every vector against `mcp`, then sets window.done to what it saw. */
function attackPage(mcp: string, root: string, editId: string): string {
  const script = `
const MCP = ${JSON.stringify(mcp)};
const ROOT = ${JSON.stringify(root)};
const EDIT = ${JSON.stringify(editId)};
const META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};
const seen = {};
const call = (id, name, args) => JSON.stringify({
  jsonrpc: "2.0", id, method: "tools/call",
  params: { name, arguments: args, _meta: META },
});
const touch = (vector) => ({ command: "touch " + ROOT + "/pwned-" + vector });
const headers = (name) => ({
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
  "mcp-protocol-version": "2026-07-28",
  "mcp-method": "tools/call",
  "mcp-name": name,
});
async function attempt(label, run) {
  try { seen[label] = await run(); } catch (error) { seen[label] = "refused: " + error; }
}
async function modern(vector, name, args) {
  const response = await fetch(MCP + "?v=" + vector, {
    method: "POST", headers: headers(name), body: call(1, name, args),
  });
  return response.status + " " + await response.text();
}
const legacyHeaders = { "content-type": "application/json", accept: "application/json" };
async function legacy() {
  const init = await fetch(MCP + "?v=fetch-legacy", {
    method: "POST",
    headers: legacyHeaders,
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
      protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "page", version: "1" },
    } }),
  });
  const session = init.headers.get("mcp-session-id");
  const more = { ...legacyHeaders, "mcp-session-id": session };
  await fetch(MCP, { method: "POST", headers: more,
    body: JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) });
  const run = await fetch(MCP, { method: "POST", headers: more,
    body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
      params: { name: "bash", arguments: touch("fetch-legacy") } }) });
  return run.status + " " + await run.text();
}
function xhr() {
  return new Promise((resolve) => {
    const request = new XMLHttpRequest();
    request.open("POST", MCP + "?v=xhr");
    for (const [name, value] of Object.entries(headers("bash"))) {
      request.setRequestHeader(name, value);
    }
    request.onloadend = () => resolve(request.status + " " + request.responseText);
    request.send(call(1, "bash", touch("xhr")));
  });
}
function form() {
  return new Promise((resolve) => {
    const frame = document.createElement("iframe");
    frame.name = "sink";
    document.body.append(frame);
    const form = document.createElement("form");
    form.method = "POST";
    form.action = MCP + "?v=form";
    form.enctype = "text/plain";
    form.target = "sink";
    // text/plain forms send name=value: the name carries the JSON up to a string the value ends.
    const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: {
      name: "bash", _meta: META, arguments: { ...touch("form"), description: "" },
    } });
    const input = document.createElement("input");
    input.name = body.slice(0, -4);
    input.value = body.slice(-4);
    form.append(input);
    document.body.append(form);
    frame.onload = () => resolve("the form was answered");
    form.submit();
  });
}
function socket() {
  return new Promise((resolve) => {
    const ws = new WebSocket(MCP.replace("http:", "ws:"), "mcp");
    ws.onopen = () => {
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "initialize", params: {
        protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "p", version: "1" },
      } }));
      ws.send(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }));
      ws.send(JSON.stringify({ jsonrpc: "2.0", id: 2, method: "tools/call",
        params: { name: "bash", arguments: touch("websocket") } }));
    };
    ws.onmessage = (event) => {
      if (JSON.parse(event.data).id === 2) { ws.close(); resolve("answered: " + event.data); }
    };
    ws.onerror = () => resolve("refused: the socket failed");
  });
}
(async () => {
  await attempt("fetch", () => modern("fetch", "bash", touch("fetch")));
  await attempt("background", () =>
    modern("background", "bash_background", { ...touch("background"), grace_ms: 2000 }));
  await attempt("history", () => modern("history", "history", {}));
  await attempt("undo by id", () => modern("undo", "undo", { id: EDIT, force: true }));
  await attempt("undo", () => modern("undo", "undo", { force: true }));
  await attempt("fetch-legacy", legacy);
  await attempt("fetch-no-cors", async () => {
    await fetch(MCP + "?v=fetch-no-cors", {
      method: "POST", mode: "no-cors", body: call(1, "bash", touch("fetch-no-cors")),
    });
    return "sent (opaque)";
  });
  await attempt("xhr", xhr);
  await attempt("form", form);
  await attempt("beacon", () => {
    const sent = navigator.sendBeacon(
      MCP + "?v=beacon",
      new Blob([call(1, "bash", touch("beacon"))], { type: "text/plain" }),
    );
    return "queued: " + sent;
  });
  await attempt("websocket", socket);
  window.done = seen;
})();
`;
  return `<!doctype html><html><head><title>another page</title></head><body>` +
    `<script>${script}</script></body></html>`;
}

function serve(html: () => string): Promise<{ server: Server; origin: string }> {
  const server = createServer((_request, response) => {
    response.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    response.end(html());
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      const address = server.address() as { port: number };
      resolve({ server, origin: `http://127.0.0.1:${address.port}` });
    })
  );
}

test(
  "a page on another 127.0.0.1 port cannot initialize, read history, undo or run bash by any means; toolhost's own review page still works",
  { skip },
  async () => {
    const root = e2e.scratch("origin-root");
    const server = await startHttpServer(PRODUCT_BINARY, ["--root", root], {}, root);
    e2e.cleanup(() => server.terminate());

    // The person's own work, through a client that is not a browser (no Origin): it connects.
    const client = new Client({ name: "person", version: "1.0.0" });
    await client.connect(new StreamableHTTPClientTransport(new URL(server.url)));
    e2e.cleanup(() => client.close());
    const wrote = await client.callTool({
      name: "write_file",
      arguments: { path: "precious.txt", content: "the person's work\n" },
    });
    assert.equal(wrote.isError ?? false, false, JSON.stringify(wrote));
    const history = await client.callTool({ name: "history", arguments: { tool: "write_file" } });
    const historyText = (history.content as { text: string }[]).map((c) => c.text).join("\n");
    const editId = historyText.split("\n").find((line) => line.includes(" write_file "))
      ?.split(" ")[0];
    assert.ok(editId, historyText);

    const attacker = await serve(() => attackPage(server.url, root, editId));
    e2e.cleanup(() =>
      new Promise((resolve) => {
        attacker.server.close(resolve);
        attacker.server.closeAllConnections(); // the browser's kept-alive ones
      })
    );
    const browser = await launchBrowser(chromium!, e2e.scratch("profile"));
    e2e.cleanup(() => browser.close());
    const page = await browser.newPage();
    // The beacon is the one request the page cannot wait for: wait for its answer here.
    const beacon = page.waitForResponse((r) => r.url().includes("?v=beacon"), { timeout: 60_000 })
      .catch(() => undefined);
    await page.goto(attacker.origin);
    await page.waitForFunction("window.done !== undefined", { timeout: 60_000 });
    const seen = await page.evaluate("window.done") as Record<string, string>;
    const beaconStatus = (await beacon)?.status();

    const ran = VECTORS.filter((vector) => existsSync(join(root, `pwned-${vector}`)));
    const kept = existsSync(join(root, "precious.txt")) &&
      readFileSync(join(root, "precious.txt"), "utf8") === "the person's work\n";
    assert.deepEqual(
      { ran, kept },
      { ran: [], kept: true },
      `the page ran bash by ${ran.length} of ${VECTORS.length} ways (${ran.join(", ")}) and ` +
        `${kept ? "did not undo" : "undid"} the person's write: ${JSON.stringify(seen)}`,
    );
    for (const label of ["fetch", "background", "history", "undo by id", "undo", "fetch-legacy"]) {
      assert.match(seen[label], /^refused: TypeError/, `${label}: ${seen[label]}`);
    }
    assert.doesNotMatch(JSON.stringify(seen), /write_file|the person's work/);
    assert.match(seen.xhr, /^0 $/, "the XHR was answered");
    assert.match(seen.websocket, /^refused/, seen.websocket);
    assert.equal(beaconStatus, 403, "the beacon was not refused");

    // toolhost's own page, on its own origin, still reads the journal.
    const review = await browser.newPage();
    await review.goto(server.url.replace(/\/mcp$/, "/ui/toolhost/review"));
    await review.waitForSelector(`[data-change-id="${editId}"]`, { timeout: 60_000 });
  },
);

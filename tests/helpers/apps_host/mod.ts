/**
 * An MCP Apps host for browser tests: the host page (host.ts, bundled with bun for the browser
 * into a scratch directory at test time) served from one loopback origin, and the sandbox proxy
 * (sandbox.html) from another, with the strict CSP an app without declared domains gets. A
 * placeholder app page (placeholder_app.html) is served too, for testing the host itself.
 *
 * @example
 * ```ts
 * const pages = await startHostPages(e2e.scratch("host"));
 * const server = await startHttpServer(PRODUCT_BINARY, ["--http-origin", pages.origin]);
 * await page.goto(pages.hostUrl({ mcp: server.url }));
 * // ... the app renders in page.frames(); then:
 * await pages.close();
 * ```
 */
import { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { join } from "node:path";
import { promisify } from "node:util";
import { BUN } from "../../../scripts/toolchain.ts";

const HERE = new URL(".", import.meta.url).pathname;

/**
 * The CSP a host applies to an app that declares no domains (SEP-1865's default): inline script
 * and style, images from data: URLs, no network at all.
 */
export const APP_CSP = "default-src 'none'; script-src 'unsafe-inline'; " +
  "style-src 'unsafe-inline'; img-src data:; media-src data:; font-src data:; connect-src 'none'; " +
  "frame-src 'none'; base-uri 'none'; form-action 'none'";

const HOST_HTML = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>toolhost test host</title><link rel="icon" href="data:,">
<style>body { font: 14px system-ui, sans-serif; margin: 0; background: #f3f3f3; }
header { padding: 6px 12px; background: #23272e; color: #fff; }
#app { margin: 8px; background: #fff; } #error { color: #b00020; white-space: pre-wrap; }</style>
</head>
<body><header>MCP Apps test host</header><pre id="error"></pre><main id="app"></main>
<script type="module" src="/host.js"></script></body></html>`;

export interface HostPages {
  /** The host page's origin: toolhost must accept it (--http-origin). */
  origin: string;
  /** The sandbox proxy's origin: another port, so another origin. */
  sandboxOrigin: string;
  /** The host page's URL for toolhost's /mcp URL and the query's other keys (host.ts). */
  hostUrl(query: { mcp: string; token?: string; theme?: "light" | "dark"; app?: string }): string;
  /** The placeholder app's URL, on the host's origin. */
  placeholderUrl: string;
  close(): Promise<void>;
}

/** Bundles host.ts into `scratch` and starts the two servers. */
export async function startHostPages(scratch: string): Promise<HostPages> {
  const script = await bundleHost(scratch);
  const sandbox = readFileSync(join(HERE, "sandbox.html"));
  const placeholder = readFileSync(join(HERE, "placeholder_app.html"));
  const host = await listen((request, response) => {
    const path = new URL(request.url ?? "/", "http://host").pathname;
    if (path === "/") send(response, "text/html", HOST_HTML);
    else if (path === "/host.js") send(response, "text/javascript", script);
    else if (path === "/placeholder.html") send(response, "text/html", placeholder);
    else send(response, "text/plain", "not found", 404);
  });
  const proxy = await listen((request, response) => {
    const path = new URL(request.url ?? "/", "http://sandbox").pathname;
    if (path !== "/sandbox.html") return send(response, "text/plain", "not found", 404);
    // The proxy's own inline script needs no more than the app may have; the srcdoc document
    // inherits this policy.
    send(response, "text/html", sandbox, 200, { "content-security-policy": APP_CSP });
  });
  const origin = `http://127.0.0.1:${port(host)}`;
  const sandboxOrigin = `http://127.0.0.1:${port(proxy)}`;
  return {
    origin,
    sandboxOrigin,
    hostUrl(query) {
      const params = new URLSearchParams({ sandbox: `${sandboxOrigin}/sandbox.html` });
      for (const [key, value] of Object.entries(query)) if (value) params.set(key, value);
      return `${origin}/?${params}`;
    },
    placeholderUrl: `${origin}/placeholder.html`,
    async close() {
      await Promise.all([host, proxy].map((server) => {
        server.closeAllConnections();
        return new Promise((resolve) => server.close(resolve));
      }));
    },
  };
}

/** host.ts and the SDK it imports, as one browser script. */
async function bundleHost(scratch: string): Promise<Buffer> {
  const outfile = join(scratch, "host.js");
  await promisify(execFile)(BUN, [
    "build",
    join(HERE, "host.ts"),
    "--target=browser",
    "--format=esm",
    `--outfile=${outfile}`,
  ], { maxBuffer: 4 * 1024 * 1024 });
  return readFileSync(outfile);
}

function send(
  response: ServerResponse,
  type: string,
  body: string | Buffer,
  status = 200,
  headers: Record<string, string> = {},
): void {
  response.writeHead(status, {
    "content-type": `${type}; charset=utf-8`,
    "cache-control": "no-store",
    ...headers,
  });
  response.end(body);
}

async function listen(
  handler: (request: IncomingMessage, response: ServerResponse) => void,
): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return server;
}

function port(server: Server): number {
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  return address.port;
}

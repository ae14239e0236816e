/**
 * fetch_url and web_search through the binary and a proxy this test starts on 127.0.0.1 (CONNECT
 * for https, absolute form for http; it resolves test names like secure.test to local servers),
 * and fetch_url's save_to. No traffic leaves this machine.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, test } from "node:test";
import {
  type LocalProxy,
  startProxy,
  startTlsSite,
  TEST_CA_FILE,
  type TlsSite,
} from "../helpers/local_proxy.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { RawClient, ROOT } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { type LocalServer, serveLocally } from "../web/local_site.ts";

const BINARY = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
let site: LocalServer;
let tls: TlsSite;
let proxy: LocalProxy;
let locked: LocalProxy;

before(async () => {
  site = await serveLocally((req, res) => {
    if (req.url === "/file.bin") {
      res.setHeader("content-type", "application/octet-stream");
      return res.end(BINARY);
    }
    if (req.url?.startsWith("/ddg/")) {
      res.setHeader("content-type", "text/html");
      return res.end(
        '<div id="links"><div class="result"><a class="result__a" href="https://deno.com/">' +
          'Deno via proxy</a><a class="result__snippet">s</a></div></div>',
      );
    }
    res.setHeader("content-type", "text/plain");
    res.end(`plain page ${req.url} for ${req.headers.host}`);
  });
  tls = await startTlsSite((req, res) => {
    res.setHeader("content-type", "text/html");
    res.end(
      `<html><body><article><h1>Secure page</h1><p>Reached ${req.url}.</p></article></body></html>`,
    );
  });
  const hosts = {
    "site.test:80": site.port,
    "ddg.test:80": site.port,
    "secure.test:443": tls.port,
  };
  proxy = await startProxy(hosts);
  locked = await startProxy(hosts, "carol:pa55");
});

after(async () => {
  await Promise.all([site.close(), tls.close(), proxy.close(), locked.close()]);
});

const e2e = e2eFixture();

/** No proxy variable of the developer's own leaks into a server under test. */
const NO_PROXIES = Object.fromEntries(
  ["http_proxy", "https_proxy", "all_proxy", "no_proxy"].flatMap((name) => [
    [name, ""],
    [name.toUpperCase(), ""],
  ]),
);

function start(args: string[], env: Record<string, string> = {}): RawClient {
  return e2e.server({
    args,
    cwd: ROOT,
    env: {
      ...NO_PROXIES,
      NODE_EXTRA_CA_CERTS: TEST_CA_FILE,
      ...env,
    },
  });
}

test("https through HTTPS_PROXY: a CONNECT tunnel, TLS naming the host; the proxy resolves it", async () => {
  const c = start([], { HTTPS_PROXY: proxy.url });
  const before = proxy.seen.length;
  const reply = await callTool(c, "fetch_url", { url: "https://secure.test/doc" });
  assert.equal(reply.result?.isError, undefined, reply.text);
  assert.match(reply.text, /# Secure page[\s\S]*Reached \/doc\./);
  assert.deepEqual(proxy.seen.slice(before).map((r) => r.line), ["CONNECT secure.test:443"]);
  assert.equal(tls.servernames.at(-1), "secure.test");
});

test("http through the proxy setting, credentials sent; a wrong password is a 407 that hides them", async () => {
  const dir = scratchDir("toolhost-proxy-");
  const config = join(dir, "config.jsonc");
  const withAuth = (password: string) =>
    writeFileSync(
      config,
      JSON.stringify({ proxy: locked.url.replace("//", `//carol:${password}@`) }),
    );
  withAuth("pa55");
  let c = start(["--config", config]);
  const before = locked.seen.length;
  const reply = await callTool(c, "fetch_url", { url: "http://site.test/page", format: "text" });
  assert.equal(reply.result?.isError, undefined, reply.text);
  assert.match(reply.text, /plain page \/page for site\.test/);
  assert.deepEqual(locked.seen.slice(before), [
    { line: "GET http://site.test/page", authorization: `Basic ${btoa("carol:pa55")}` },
  ]);
  await c.close();
  withAuth("wrong-secret");
  c = start(["--config", config]);
  const refused = await callTool(c, "fetch_url", { url: "https://secure.test/" });
  assert.equal(refused.result?.isError, true);
  assert.match(refused.text, /asks for credentials \(HTTP 407\)/);
  assert.doesNotMatch(refused.text, /wrong-secret|carol/);
});

test("through a proxy, localhost and private literals are refused unless allowed; NO_PROXY and SOCKS", async () => {
  const c = start([], { HTTP_PROXY: proxy.url, NO_PROXY: "example.invalid" });
  const before = proxy.seen.length;
  for (const url of [`http://localhost:${site.port}/`, `http://127.0.0.1:${site.port}/`]) {
    const reply = await callTool(c, "fetch_url", { url });
    assert.equal(reply.result?.isError, true);
    assert.match(
      reply.text,
      /is (loopback|a name for a local network).*private-network addresses is off/,
    );
  }
  assert.equal(proxy.seen.length, before, "nothing reached the proxy");
  await c.close();
  const socks = start([], { ALL_PROXY: "socks5://127.0.0.1:1080" });
  const refused = await callTool(socks, "fetch_url", { url: "https://secure.test/" });
  assert.match(refused.text, /ALL_PROXY names a SOCKS proxy.*only http and https proxies/);
});

test("web_search goes through the proxy too", async () => {
  const c = start([], {
    http_proxy: proxy.url,
    TOOLHOST_DUCKDUCKGO_URL: "http://ddg.test/ddg/",
  });
  const before = proxy.seen.length;
  const reply = await callTool(c, "web_search", { query: "runtimes" });
  assert.equal(reply.result?.isError, undefined, reply.text);
  assert.match(reply.text, /1\. Deno via proxy/);
  assert.deepEqual(proxy.seen.slice(before).map((r) => r.line), [
    "GET http://ddg.test/ddg/?q=runtimes",
  ]);
});

test("save_to writes the body byte for byte inside the root; --read-only and the read-only profile refuse it", async () => {
  const root = scratchDir("toolhost-save-e2e-");
  const c = start(["--root", root, "--allow-private-network"]);
  const reply = await callTool(c, "fetch_url", {
    url: `${site.base}/file.bin`,
    save_to: "dl/file.bin",
  });
  assert.equal(reply.result?.isError, undefined, reply.text);
  assert.deepEqual(readFileSync(join(root, "dl/file.bin")), BINARY);
  const structured = reply.result?.structuredContent as Record<string, unknown>;
  assert.equal(structured.saved_to, "dl/file.bin");
  assert.equal(structured.bytes, BINARY.length);
  assert.equal(structured.content_type, "application/octet-stream");
  const outside = await callTool(c, "fetch_url", {
    url: `${site.base}/file.bin`,
    save_to: "/tmp/x.bin",
  });
  assert.match(outside.text, /outside the allowed roots/);
  await c.close();
  const readOnly = start(["--root", root, "--allow-private-network", "--read-only"]);
  const refused = await callTool(readOnly, "fetch_url", {
    url: `${site.base}/file.bin`,
    save_to: "again.bin",
  });
  assert.equal(refused.result?.isError, true);
  assert.match(refused.text, /runs read-only/);
  assert.ok(!existsSync(join(root, "again.bin")));
  await readOnly.close();
  // The read-only profile offers fetch_url too, and its save_to is refused the same way.
  const profile = start(["--root", root, "--allow-private-network", "--profile", "read-only"]);
  const alsoRefused = await callTool(profile, "fetch_url", {
    url: `${site.base}/file.bin`,
    save_to: "again.bin",
  });
  assert.equal(alsoRefused.result?.isError, true);
  assert.match(alsoRefused.text, /offers the read-only profile/);
  assert.ok(!existsSync(join(root, "again.bin")));
});

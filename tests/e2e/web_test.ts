/**
 * fetch_url and web_search through the binary, against HTTP servers this test starts on
 * 127.0.0.1: the guard is opened with --allow-private-network for them, and shown closed without.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { readFileSync } from "node:fs";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { findChromium } from "../../tools/web/_lib/chromium/render.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, RawClient, ROOT } from "../helpers/raw_client.ts";
import { callTool, type ToolReply } from "../helpers/tool_calls.ts";

const ARTICLE = readFileSync(`${ROOT}tests/fixtures/web/article.html`, "utf8");
const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGP4z8DwHwAFAAH/iZk9HQAAAABJRU5ErkJggg==",
  "base64",
);

const requests: string[] = [];
let server: Server;
let base = "";
let port = 0;

function route(req: IncomingMessage, res: ServerResponse): unknown {
  const url = req.url ?? "/";
  requests.push(url);
  const html = (body: string | Buffer, type = "text/html; charset=utf-8") => {
    res.setHeader("content-type", type);
    res.end(body);
  };
  if (url === "/article") return html(ARTICLE);
  if (url === "/gzip") {
    res.setHeader("content-encoding", "gzip");
    return html(gzipSync(ARTICLE));
  }
  if (url === "/long") {
    const paragraphs = Array.from(
      { length: 400 },
      (_, i) => `<p>Paragraph ${i} ${"word ".repeat(20)}</p>`,
    );
    return html(`<html><body><article>${paragraphs.join("")}</article></body></html>`);
  }
  const hop = url.match(/^\/hop\/(\d+)$/);
  if (hop) {
    res.statusCode = 302;
    res.setHeader("location", Number(hop[1]) > 0 ? `/hop/${Number(hop[1]) - 1}` : "/article");
    return res.end();
  }
  if (url === "/latin") {
    // windows-1252, declared only in the page: é is byte 0xE9, the euro sign 0x80.
    return html(
      Buffer.from(
        '<html><head><meta charset="windows-1252"><title>Caf\xe9</title></head>' +
          "<body><p>Caf\xe9 cr\xe8me costs 3 \x80 at the corner.</p></body></html>",
        "latin1",
      ),
      "text/html",
    );
  }
  if (url === "/huge") {
    res.setHeader("content-type", "text/plain");
    const chunk = "0123456789abcdef".repeat(4096);
    let sent = 0;
    const write = () => {
      while (sent < 12 * 1024 * 1024) {
        sent += chunk.length;
        if (!res.write(chunk)) return;
      }
      res.end();
    };
    res.on("drain", write);
    return write();
  }
  if (url === "/hang") return;
  if (url === "/pixel.png") return html(PNG, "image/png");
  if (url === "/data.json") return html('{"name":"widget","sizes":[10,12]}', "application/json");
  if (url === "/file.zip") {
    return html(Buffer.from([0x50, 0x4b, 3, 4, 0, 0, 0, 0]), "application/zip");
  }
  if (url === "/missing") {
    res.statusCode = 404;
    return html("<html><body><h1>Not here</h1><p>No page at this address.</p></body></html>");
  }
  if (url === "/scripted") {
    return html(
      "<html><head><title>Scripted</title></head><body><div id=app>Loading…</div><script>" +
        "setTimeout(() => { document.getElementById('app').innerHTML = " +
        "'<h1>Written by script</h1><p>This text exists only after JavaScript ran.</p>'; }, 50);" +
        "</script></body></html>",
    );
  }
  if (url.startsWith("/ddg/html/")) {
    const q = new URL(url, base).searchParams.get("q") ?? "";
    const result = (target: string, title: string, snippet: string) =>
      `<div class="result results_links web-result"><div class="links_main result__body">` +
      `<h2 class="result__title"><a class="result__a" href="//duckduckgo.com/l/?uddg=${
        encodeURIComponent(target)
      }&amp;rut=abc">${title}</a></h2>` +
      `<a class="result__snippet" href="#">${snippet}</a></div></div>`;
    return html(
      `<html><body><div id="links" class="results">` +
        result("https://deno.com/", `Deno for ${q}`, "A <b>modern</b> runtime") +
        result("https://bun.sh/docs", "Bun docs", "Fast all-in-one toolkit") +
        `</div></body></html>`,
    );
  }
  if (url.startsWith("/searx/search")) {
    res.setHeader("content-type", "application/json");
    const q = new URL(url, base).searchParams.get("q");
    return res.end(JSON.stringify({
      query: q,
      results: [{ url: "https://example.org/a", title: `SearX ${q}`, content: "From searx" }],
      unresponsive_engines: [],
    }));
  }
  res.statusCode = 404;
  res.end();
}

before(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const e2e = e2eFixture();

function start(args = ["--allow-private-network"], env: Record<string, string> = {}): RawClient {
  return e2e.server({ args, cwd: ROOT, env });
}

test("an article page comes back as markdown of the article only, with its table and code", async () => {
  const c = start();
  const reply = await callTool(c, "fetch_url", { url: `${base}/article` });
  assert.equal(reply.result?.isError, undefined, reply.text);
  const body = reply.text;
  assert.match(body, /^# Measuring the widget$/m);
  assert.match(body, /^## Results$/m);
  assert.match(body, /^\| Week \| Length \| Weight \|$/m);
  assert.match(body, /^\| 2 \| 12 cm \| 3 kg \|$/m);
  assert.match(body, /```python\nfor week in weeks:\n {4}print\(week\.length, week\.weight\)\n```/);
  assert.match(body, new RegExp(`\\[our notes on the method\\]\\(${base}/notes/method\\)`));
  assert.match(body, /^- Rulers drift\.$/m);
  for (const chrome of ["About us", "Subscribe", "Popular posts", "Privacy policy", "tracking"]) {
    assert.ok(!body.includes(chrome), `${chrome} is page chrome, not the article`);
  }
  const structured = reply.result?.structuredContent as Record<string, unknown>;
  assert.equal(structured.status, 200);
  assert.equal(structured.content_type, "text/html");
  assert.equal(structured.title, "Measuring the widget");
});

test("raw: true converts the whole page; gzip is decoded; redirects are followed and reported", async () => {
  const c = start();
  const raw = (await callTool(c, "fetch_url", { url: `${base}/article`, raw: true })).text;
  for (const chrome of ["Subscribe to our newsletter", "Popular posts", "Privacy policy"]) {
    assert.ok(raw.includes(chrome), `${chrome} is part of the whole page`);
  }
  assert.match(raw, /Measuring the widget/);
  const zipped = (await callTool(c, "fetch_url", { url: `${base}/gzip` })).text;
  assert.match(zipped, /^\| 1 \| 10 cm \| 2 kg \|$/m);
  const hops = await callTool(c, "fetch_url", { url: `${base}/hop/3` });
  assert.match(hops.text, new RegExp(`redirected to ${base}/article`));
  assert.equal(
    (hops.result?.structuredContent as Record<string, unknown>).final_url,
    `${base}/article`,
  );
  const loop = await callTool(c, "fetch_url", { url: `${base}/hop/8` });
  assert.equal(loop.result?.isError, true);
  assert.match(loop.text, /redirected more than 5 times/);
});

test("a long page is read in parts: each cut says where the next part starts, and it does", async () => {
  const c = start();
  const first = await callTool(c, "fetch_url", { url: `${base}/long`, max_length: 5000 });
  const s1 = first.result?.structuredContent as Record<string, number>;
  assert.ok(s1.total_length > 30_000);
  assert.equal(s1.next_start_index, 5000);
  assert.match(
    first.text,
    /To read on, call fetch_url again with the same url, format, raw and render, and start_index: 5000\./,
  );
  const fetchesBefore = requests.filter((r) => r === "/long").length;
  const second = await callTool(c, "fetch_url", {
    url: `${base}/long`,
    max_length: 5000,
    start_index: 5000,
  });
  const s2 = second.result?.structuredContent as Record<string, number>;
  assert.equal(s2.start_index, 5000);
  assert.equal(s2.next_start_index, 10_000);
  assert.ok(s2.cached_seconds_ago !== undefined, "the second part came from the cache");
  assert.equal(requests.filter((r) => r === "/long").length, fetchesBefore);
  // The two parts join up exactly: the last words of one run into the first of the next.
  const part = (reply: ToolReply) => reply.text.split("\n\n").slice(1, -1).join("\n\n");
  assert.match(part(first) + part(second), /Paragraph 70 word/);
  const past = await callTool(c, "fetch_url", { url: `${base}/long`, start_index: 10_000_000 });
  assert.match(past.text, /start_index 10000000 is past the end/);
});

test("a windows-1252 page declared only in its markup is decoded right", async () => {
  const c = start();
  const body = (await callTool(c, "fetch_url", { url: `${base}/latin`, format: "text" })).text;
  assert.match(body, /Café crème costs 3 € at the corner\./);
});

test("an oversized body stops at the 10 MB cap and says the page is incomplete", async () => {
  const c = start();
  const reply = await callTool(c, "fetch_url", { url: `${base}/huge` });
  const structured = reply.result?.structuredContent as Record<string, unknown>;
  assert.equal(structured.download_truncated, true);
  assert.equal(structured.total_length, 10 * 1024 * 1024);
  assert.match(reply.text, /download stopped at the 10 MB cap/);
  assert.ok(reply.text.length < 25_000, "the result itself is still one page");
});

test("a server that never answers ends in a timeout error, and the server stays usable", async () => {
  const c = start();
  const started = Date.now();
  const reply = await callTool(c, "fetch_url", { url: `${base}/hang`, timeout_ms: 1000 });
  assert.equal(reply.result?.isError, true);
  assert.match(
    reply.text,
    /did not answer within 1000 ms\. Try again, or give a larger timeout_ms\./,
  );
  assert.ok(Date.now() - started < 5000);
  const list = await c.request("tools/list", modern());
  assert.ok(Array.isArray(list.result?.tools));
});

test("images come back as images, JSON pretty-printed, binaries described, HTTP errors as errors", async () => {
  const c = start();
  const image = await callTool(c, "fetch_url", { url: `${base}/pixel.png` });
  const blocks = image.result?.content as { type: string; data?: string; mimeType?: string }[];
  assert.equal(blocks[1].type, "image");
  assert.equal(blocks[1].mimeType, "image/png");
  assert.deepEqual(Buffer.from(blocks[1].data!, "base64"), PNG);
  assert.match(
    (await callTool(c, "fetch_url", { url: `${base}/data.json` })).text,
    /"sizes": \[\n {4}10,/,
  );
  assert.match(
    (await callTool(c, "fetch_url", { url: `${base}/file.zip` })).text,
    /This is 8 bytes of application\/zip/,
  );
  const missing = await callTool(c, "fetch_url", { url: `${base}/missing` });
  assert.equal(missing.result?.isError, true);
  assert.match(
    missing.text,
    /HTTP 404.*the server answered with an error\.[\s\S]*No page at this address/,
  );
});

test("without --allow-private-network, 127.0.0.1 and a name resolving to it are refused unasked", async () => {
  const c = start([]);
  const before = requests.length;
  const literal = await callTool(c, "fetch_url", { url: `${base}/article` });
  assert.equal(literal.result?.isError, true);
  assert.match(
    literal.text,
    /127\.0\.0\.1 is loopback, and fetching private-network addresses is off/,
  );
  const named = await callTool(c, "fetch_url", { url: `http://localhost:${port}/article` });
  assert.match(
    named.text,
    /localhost \(it resolves to [^)]+\) is loopback.*--allow-private-network/,
  );
  const metadata = await callTool(c, "fetch_url", {
    url: "http://169.254.169.254/latest/meta-data/",
  });
  assert.match(metadata.text, /link-local \(cloud metadata lives here\)/);
  assert.equal(requests.length, before, "nothing reached the server");
});

test("web_search: DuckDuckGo's HTML page and a SearXNG instance, through the binary", async () => {
  const ddg = start([], { TOOLHOST_DUCKDUCKGO_URL: `${base}/ddg/html/` });
  const found = await callTool(ddg, "web_search", { query: "js runtimes", max_results: 5 });
  assert.equal(found.result?.isError, undefined, found.text);
  assert.match(
    found.text,
    /^1\. Deno for js runtimes\n {3}https:\/\/deno\.com\/\n {3}A modern runtime$/m,
  );
  const results = (found.result?.structuredContent as { results: { url: string }[] }).results;
  assert.deepEqual(results.map((r) => r.url), ["https://deno.com/", "https://bun.sh/docs"]);
  await ddg.close();
  const searx = start([], { TOOLHOST_SEARXNG_URL: `${base}/searx` });
  const reply = await callTool(searx, "web_search", { query: "widgets", site: "example.org" });
  assert.match(reply.text, /SearX widgets site:example\.org/);
  assert.equal((reply.result?.structuredContent as { provider: string }).provider, "searxng");
});

const chromium = findChromium();
test(
  `render: true returns text written by JavaScript${
    chromium ? "" : " [skipped: no Chromium installed (apt-get install chromium)]"
  }`,
  { skip: !chromium },
  async () => {
    const c = start();
    const plain = (await callTool(c, "fetch_url", { url: `${base}/scripted` })).text;
    assert.ok(!plain.includes("Written by script"));
    const rendered = await callTool(c, "fetch_url", {
      url: `${base}/scripted`,
      render: true,
      wait_ms: 300,
    }, { timeoutMs: 60_000 });
    assert.equal(rendered.result?.isError, undefined, rendered.text);
    assert.match(rendered.text, /# Written by script/);
    assert.match(rendered.text, /This text exists only after JavaScript ran\./);
  },
);

test("render: true keeps the guard: a page on 127.0.0.1 is refused without the flag", async () => {
  const c = start([]);
  const reply = await callTool(c, "fetch_url", { url: `${base}/scripted`, render: true });
  assert.equal(reply.result?.isError, true);
  assert.match(reply.text, /loopback/);
});

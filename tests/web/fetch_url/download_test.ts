/**
 * Downloading a page: decoding (compression, charset), redirects, the size cap, deadlines,
 * cancels and network failures told as sentences. How the private-network guard applies to
 * downloads is in guard_test.ts.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { after, before, test } from "node:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import {
  decodeBody,
  HttpError,
  httpGet,
  HttpTimeoutError,
} from "../../../tools/web/_lib/http/http_get.ts";
import { decodeText } from "../../../tools/web/_lib/http/charset.ts";
import { LOCAL_GET, type LocalServer, serveLocally } from "../local_site.ts";

/** A body of 300,001 bytes where every position differs from its neighbours. */
const PATTERN = Buffer.from(Array.from({ length: 300_001 }, (_, i) => (i * 31 + (i >> 8)) & 255));

let server: LocalServer;
let base = "";

before(async () => {
  server = await serveLocally((req, res) => {
    const url = req.url ?? "/";
    if (url === "/gzip") {
      res.setHeader("content-encoding", "gzip");
      res.setHeader("content-type", "text/plain; charset=utf-8");
      return res.end(gzipSync("zipped café"));
    }
    if (url === "/br") {
      res.setHeader("content-encoding", "br");
      return res.end(brotliCompressSync("brotli text"));
    }
    if (url === "/broken-gzip") {
      res.setHeader("content-encoding", "gzip");
      return res.end("this is not gzip");
    }
    const hop = url.match(/^\/hop\/(\d+)$/);
    if (hop) {
      res.statusCode = 302;
      res.setHeader("location", Number(hop[1]) > 0 ? `/hop/${Number(hop[1]) - 1}` : "/gzip");
      return res.end();
    }
    if (url === "/endless") {
      const chunk = "x".repeat(64 * 1024);
      const write = () => {
        while (res.write(chunk));
      };
      res.on("drain", write);
      return write();
    }
    if (url === "/sized" || url === "/chunked") {
      if (url === "/sized") res.setHeader("content-length", PATTERN.length);
      // Pieces of odd sizes, so chunk edges fall anywhere.
      for (let at = 0; at < PATTERN.length; at += 7001) res.write(PATTERN.subarray(at, at + 7001));
      return res.end();
    }
    if (url === "/hang") return;
    if (url === "/empty-gzip") {
      res.setHeader("content-encoding", "gzip");
      return res.end();
    }
    if (url === "/zstd") {
      res.setHeader("content-encoding", "zstd");
      return res.end("whatever");
    }
    if (url === "/slow-body") {
      res.write("a start");
      return;
    }
    res.end("plain");
  });
  base = server.base;
});

after(() => server.close());

test("gzip and brotli bodies are decoded, and the charset header is honoured", async () => {
  assert.equal(decodeBody(await httpGet(`${base}/gzip`, LOCAL_GET)), "zipped café");
  assert.equal(decodeBody(await httpGet(`${base}/br`, LOCAL_GET)), "brotli text");
  await assert.rejects(httpGet(`${base}/broken-gzip`, LOCAL_GET), /gzip encoding is broken/);
});

test("redirects are followed up to the limit, and the chain is reported", async () => {
  const response = await httpGet(`${base}/hop/3`, LOCAL_GET);
  assert.equal(response.url, `${base}/gzip`);
  assert.deepEqual(response.redirects, [
    `${base}/hop/2`,
    `${base}/hop/1`,
    `${base}/hop/0`,
    `${base}/gzip`,
  ]);
  await assert.rejects(httpGet(`${base}/hop/9`, LOCAL_GET), /redirected more than 5 times/);
  await assert.rejects(httpGet(`${base}/hop/2`, { ...LOCAL_GET, maxRedirects: 1 }), HttpError);
});

test("a body over the cap is cut there and marked, without reading on", async () => {
  const response = await httpGet(`${base}/endless`, { ...LOCAL_GET, maxBytes: 200_000 });
  assert.equal(response.truncated, true);
  assert.equal(response.body.length, 200_000);
});

test("a body comes whole with or without a declared length, and cut at the cap", async () => {
  for (const path of ["/sized", "/chunked"]) {
    const whole = await httpGet(`${base}${path}`, LOCAL_GET);
    assert.equal(whole.truncated, false, path);
    assert.ok(Buffer.from(whole.body).equals(PATTERN), `${path}: the bytes as sent`);
    const cut = await httpGet(`${base}${path}`, { ...LOCAL_GET, maxBytes: 100_000 });
    assert.equal(cut.truncated, true, path);
    assert.ok(
      Buffer.from(cut.body).equals(PATTERN.subarray(0, 100_000)),
      `${path}: the first bytes`,
    );
  }
});

test("a server that never answers, or stalls mid-body, meets the deadline", async () => {
  await assert.rejects(httpGet(`${base}/hang`, { ...LOCAL_GET, timeoutMs: 300 }), HttpTimeoutError);
  await assert.rejects(
    httpGet(`${base}/slow-body`, { ...LOCAL_GET, timeoutMs: 300 }),
    /started answering but sent only 7 bytes within 300 ms/,
  );
});

test("cancelling ends the request at once with the caller's reason", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("cancelled by the client")), 50);
  await assert.rejects(
    httpGet(`${base}/hang`, { ...LOCAL_GET, signal: controller.signal }),
    /cancelled by the client/,
  );
});

test("network failures are sentences: refused connection, unknown name, other schemes", async () => {
  const port = server.port;
  const closedPort = port === 1 ? 2 : 1;
  await assert.rejects(
    httpGet(`http://127.0.0.1:${closedPort}/`, LOCAL_GET),
    /refused the connection/,
  );
  await assert.rejects(httpGet("http://no-such-host.invalid/", LOCAL_GET), /could not be resolved/);
  await assert.rejects(httpGet("ftp://example.com/", LOCAL_GET), /Only http and https/);
  await assert.rejects(httpGet("not a url", LOCAL_GET), /is not a valid URL/);
});

test("charset: BOM, then header, then the document's own declaration, else UTF-8", () => {
  const latin = Buffer.from('<meta charset="iso-8859-1"><p>caf\xe9</p>', "latin1");
  assert.match(decodeText(latin), /café/);
  assert.match(decodeText(latin, "text/html; charset=utf-8"), /caf\uFFFD/);
  const xml = Buffer.from('<?xml version="1.0" encoding="windows-1251"?><a>\xe4\xe0</a>', "latin1");
  assert.match(decodeText(xml), /<a>да<\/a>/);
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, ...Buffer.from("héllo")]);
  assert.equal(decodeText(bom, "text/plain; charset=iso-8859-1"), "héllo");
  assert.equal(decodeText(Buffer.from("plain"), "text/plain; charset=no-such-charset"), "plain");
  const lying = Buffer.from('<meta charset="utf-16"><p>ok</p>');
  assert.match(decodeText(lying), /<p>ok<\/p>/);
});

test("an empty compressed body is empty; an encoding we cannot decode is named", async () => {
  assert.equal((await httpGet(`${base}/empty-gzip`, LOCAL_GET)).body.length, 0);
  await assert.rejects(httpGet(`${base}/zstd`, LOCAL_GET), /encoded as "zstd"; only gzip, deflate/);
});

import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import { brotliCompressSync, gzipSync } from "node:zlib";
import { decodeBody, HttpError, httpGet, HttpTimeoutError } from "../../../tools/web/_lib/http_get.ts";
import { decodeText } from "../../../tools/web/_lib/charset.ts";

let server: Server;
let base = "";
let byName = "";
const seen: string[] = [];

before(async () => {
  server = createServer((req, res) => {
    seen.push(req.url ?? "");
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
    if (url === "/to-file") {
      res.statusCode = 301;
      res.setHeader("location", "file:///etc/passwd");
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
    if (url === "/hang") return;
    if (url === "/empty-gzip") {
      res.setHeader("content-encoding", "gzip");
      return res.end();
    }
    if (url === "/zstd") {
      res.setHeader("content-encoding", "zstd");
      return res.end("whatever");
    }
    if (url === "/headers") return res.end(JSON.stringify(req.headers));
    if (url === "/to-other-origin") {
      res.statusCode = 302;
      res.setHeader("location", `${byName}/headers`);
      return res.end();
    }
    if (url === "/slow-body") {
      res.write("a start");
      return;
    }
    res.end("plain");
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  base = `http://127.0.0.1:${port}`;
  byName = `http://localhost:${port}`;
});

after(() => {
  server.closeAllConnections();
  server.close();
});

const open = {
  timeoutMs: 3000,
  maxBytes: 1024 * 1024,
  allowPrivateNetwork: false,
  allowPrivate: true,
};

test("gzip and brotli bodies are decoded, and the charset header is honoured", async () => {
  assert.equal(decodeBody(await httpGet(`${base}/gzip`, open)), "zipped café");
  assert.equal(decodeBody(await httpGet(`${base}/br`, open)), "brotli text");
  await assert.rejects(httpGet(`${base}/broken-gzip`, open), /gzip encoding is broken/);
});

test("redirects are followed up to the limit, and the chain is reported", async () => {
  const response = await httpGet(`${base}/hop/3`, open);
  assert.equal(response.url, `${base}/gzip`);
  assert.deepEqual(response.redirects, [
    `${base}/hop/2`,
    `${base}/hop/1`,
    `${base}/hop/0`,
    `${base}/gzip`,
  ]);
  await assert.rejects(httpGet(`${base}/hop/9`, open), /redirected more than 5 times/);
  await assert.rejects(httpGet(`${base}/hop/2`, { ...open, maxRedirects: 1 }), HttpError);
});

test("the guard refuses a private address literal and a name resolving to one, before connecting", async () => {
  const closed = { ...open, allowPrivate: false };
  const before = seen.length;
  await assert.rejects(httpGet(`${base}/gzip`, closed), /127\.0\.0\.1 is loopback/);
  await assert.rejects(httpGet(`${byName}/gzip`, closed), /localhost \(it resolves to/);
  await assert.rejects(httpGet("http://0x7f.1/", closed), /loopback/);
  await assert.rejects(httpGet("http://[::ffff:127.0.0.1]/", closed), /loopback/);
  assert.equal(seen.length, before, "no request reached the server");
});

test("every hop is checked again: a redirect to another scheme is refused there", async () => {
  await assert.rejects(httpGet(`${base}/to-file`, open), /Only http and https URLs.*"file:"/);
});

test("a body over the cap is cut there and marked, without reading on", async () => {
  const response = await httpGet(`${base}/endless`, { ...open, maxBytes: 200_000 });
  assert.equal(response.truncated, true);
  assert.equal(response.body.length, 200_000);
});

test("a server that never answers, or stalls mid-body, meets the deadline", async () => {
  const start = Date.now();
  await assert.rejects(httpGet(`${base}/hang`, { ...open, timeoutMs: 300 }), HttpTimeoutError);
  await assert.rejects(
    httpGet(`${base}/slow-body`, { ...open, timeoutMs: 300 }),
    /started answering but sent only 7 bytes within 300 ms/,
  );
  assert.ok(Date.now() - start < 2000);
});

test("cancelling ends the request at once with the caller's reason", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(new Error("cancelled by the client")), 50);
  await assert.rejects(
    httpGet(`${base}/hang`, { ...open, signal: controller.signal }),
    /cancelled by the client/,
  );
});

test("network failures are sentences: refused connection, unknown name, other schemes", async () => {
  const port = (server.address() as AddressInfo).port;
  const closedPort = port === 1 ? 2 : 1;
  await assert.rejects(httpGet(`http://127.0.0.1:${closedPort}/`, open), /refused the connection/);
  await assert.rejects(httpGet("http://no-such-host.invalid/", open), /could not be resolved/);
  await assert.rejects(httpGet("ftp://example.com/", open), /Only http and https/);
  await assert.rejects(httpGet("not a url", open), /is not a valid URL/);
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
  assert.equal((await httpGet(`${base}/empty-gzip`, open)).body.length, 0);
  await assert.rejects(httpGet(`${base}/zstd`, open), /encoded as "zstd"; only gzip, deflate/);
});

test("a guarded request never rides on a connection an unguarded one left open", async () => {
  const keepAlive = { ...open, headers: { connection: "keep-alive" } };
  await httpGet(`${byName}/gzip`, keepAlive);
  await assert.rejects(
    httpGet(`${byName}/gzip`, { ...keepAlive, allowPrivate: false }),
    /loopback/,
  );
});

test("the caller's headers and guard exemption stay with the first origin", async () => {
  const same = await httpGet(`${base}/headers`, { ...open, headers: { "x-secret": "s3" } });
  assert.equal(JSON.parse(decodeBody(same))["x-secret"], "s3");
  // 127.0.0.1 and localhost are different origins: the exemption does not follow the redirect,
  const exempt = { ...open, headers: { "x-secret": "s3" } };
  await assert.rejects(
    httpGet(`${base}/to-other-origin`, exempt),
    /to-other-origin redirected to http:\/\/localhost:\d+\/headers, which failed: localhost/,
  );
  // and where the program allows the private network, the secret header still stays behind.
  const moved = await httpGet(`${base}/to-other-origin`, { ...exempt, allowPrivateNetwork: true });
  assert.equal(JSON.parse(decodeBody(moved))["x-secret"], undefined);
});

/**
 * The private-network guard: which addresses it refuses, how it judges a URL a browser asks
 * for, and how downloads apply it (before connecting, on every redirect, per origin). The
 * guard inside a rendering browser is tested in render_test.ts.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { decodeBody, httpGet } from "../../../tools/web/_lib/http/http_get.ts";
import { privateAddressKind, refusalForUrl } from "../../../tools/_lib/net/net_guard.ts";
import { LOCAL_GET, type LocalServer, serveLocally } from "../local_site.ts";

test("loopback, private, link-local and metadata IPv4 addresses are named; public ones pass", () => {
  for (
    const address of [
      "127.0.0.1",
      "127.255.0.9",
      "10.1.2.3",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "169.254.169.254",
      "100.64.0.1",
      "0.0.0.0",
      "224.0.0.1",
      "255.255.255.255",
    ]
  ) assert.ok(privateAddressKind(address), address);
  for (const address of ["8.8.8.8", "172.32.0.1", "172.15.255.255", "1.1.1.1", "203.0.113.80"]) {
    assert.equal(privateAddressKind(address), undefined, address);
  }
  assert.match(privateAddressKind("169.254.169.254")!, /metadata/);
});

test("IPv6 loopback, unique-local, link-local and forms embedding a private IPv4 are refused", () => {
  for (
    const address of [
      "::1",
      "::",
      "fd00:ec2::254",
      "fc00::1",
      "fe80::1%eth0",
      "ff02::1",
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:169.254.169.254",
      "64:ff9b::a00:1",
      "2002:c0a8:101::1",
    ]
  ) assert.ok(privateAddressKind(address), address);
  for (const address of ["2606:4700:4700::1111", "2001:4860:4860::8888", "::ffff:8.8.8.8"]) {
    assert.equal(privateAddressKind(address), undefined, address);
  }
});

test("Teredo (2001::/32) and local-use NAT64 (64:ff9b:1::/48) addresses are refused", () => {
  // Teredo to client 127.0.0.1 (stored inverted: 80ff:fffe) through server 192.0.2.1.
  assert.match(privateAddressKind("2001:0:c000:201:0:0:80ff:fffe")!, /Teredo/);
  assert.match(privateAddressKind("2001::1")!, /Teredo/);
  assert.match(privateAddressKind("64:ff9b:1::a00:1")!, /local-use NAT64/);
  assert.match(privateAddressKind("64:ff9b:1:ffff::808:808")!, /local-use NAT64/);
  // Neighbours stay public: 2001:db8::/32 and 2001:4860::/32 are not Teredo, 64:ff9b:2:: is
  // not local-use NAT64, and well-known NAT64 to a public address passes.
  for (const address of ["2001:1::1", "2001:4860::1", "64:ff9b:2::1", "64:ff9b::808:808"]) {
    assert.equal(privateAddressKind(address), undefined, address);
  }
});

test("a URL for a browser: local schemes pass, other schemes and private hosts are refused", async () => {
  assert.equal(await refusalForUrl("data:text/plain,hi", false), undefined);
  assert.equal(await refusalForUrl("about:blank", false), undefined);
  assert.match((await refusalForUrl("file:///etc/passwd", false))!, /not file:/);
  assert.match((await refusalForUrl("http://127.0.0.1:8080/", false))!, /loopback/);
  assert.match((await refusalForUrl("http://[::1]/", false))!, /loopback/);
  assert.match(
    (await refusalForUrl("http://localhost/", false))!,
    /localhost \(it resolves to (127\.0\.0\.1|::1)\) is loopback.*--allow-private-network/,
  );
  assert.equal(await refusalForUrl("http://localhost/", true), undefined);
});

// --- downloads under the guard, against a site on 127.0.0.1 (and as localhost) ---

let server: LocalServer;
let base = "";
let byName = "";
const seen: string[] = [];

before(async () => {
  server = await serveLocally((req, res) => {
    seen.push(req.url ?? "");
    const url = req.url ?? "/";
    if (url === "/to-file") {
      res.statusCode = 301;
      res.setHeader("location", "file:///etc/passwd");
      return res.end();
    }
    if (url === "/headers") return res.end(JSON.stringify(req.headers));
    if (url === "/to-other-origin") {
      res.statusCode = 302;
      res.setHeader("location", `${byName}/headers`);
      return res.end();
    }
    res.end("plain");
  });
  base = server.base;
  byName = `http://localhost:${server.port}`;
});

after(() => server.close());

test("the guard refuses a private address literal and a name resolving to one, before connecting", async () => {
  const closed = { ...LOCAL_GET, allowPrivate: false };
  const before = seen.length;
  await assert.rejects(httpGet(`${base}/plain`, closed), /127\.0\.0\.1 is loopback/);
  await assert.rejects(httpGet(`${byName}/plain`, closed), /localhost \(it resolves to/);
  await assert.rejects(httpGet("http://0x7f.1/", closed), /loopback/);
  await assert.rejects(httpGet("http://[::ffff:127.0.0.1]/", closed), /loopback/);
  assert.equal(seen.length, before, "no request reached the server");
});

test("every hop is checked again: a redirect to another scheme is refused there", async () => {
  await assert.rejects(httpGet(`${base}/to-file`, LOCAL_GET), /Only http and https URLs.*"file:"/);
});

test("a guarded request never rides on a connection an unguarded one left open", async () => {
  const keepAlive = { ...LOCAL_GET, headers: { connection: "keep-alive" } };
  await httpGet(`${byName}/plain`, keepAlive);
  await assert.rejects(
    httpGet(`${byName}/plain`, { ...keepAlive, allowPrivate: false }),
    /loopback/,
  );
});

test("the caller's headers and guard exemption stay with the first origin", async () => {
  const same = await httpGet(`${base}/headers`, { ...LOCAL_GET, headers: { "x-secret": "s3" } });
  assert.equal(JSON.parse(decodeBody(same))["x-secret"], "s3");
  // 127.0.0.1 and localhost are different origins: the exemption does not follow the redirect,
  const exempt = { ...LOCAL_GET, headers: { "x-secret": "s3" } };
  await assert.rejects(
    httpGet(`${base}/to-other-origin`, exempt),
    /to-other-origin redirected to http:\/\/localhost:\d+\/headers, which failed: localhost/,
  );
  // and where the program allows the private network, the secret header still stays behind.
  const moved = await httpGet(`${base}/to-other-origin`, { ...exempt, allowPrivateNetwork: true });
  assert.equal(JSON.parse(decodeBody(moved))["x-secret"], undefined);
});

import assert from "node:assert/strict";
import { test } from "node:test";
import { privateAddressKind, refusalForUrl } from "../../../tools/web/_lib/net_guard.ts";

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

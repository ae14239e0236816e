/**
 * The web tools' proxy: which one a URL goes through (settings, HTTPS_PROXY and kin, NO_PROXY),
 * and httpGet through a local proxy: absolute-form for http, CONNECT and TLS with the right
 * server name for https, credentials sent but never shown, the guard on the host as written.
 */
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { httpGet, type HttpGetOptions } from "../../tools/web/_lib/http/http_get.ts";
import { chromiumProxyArguments } from "../../tools/web/_lib/chromium/chromium_proxy.ts";
import {
  bypassesProxy,
  isUsable,
  type Proxy,
  proxyFor,
  proxyHostRefusal,
  proxyRules,
} from "../../tools/_lib/net/user_proxy.ts";
import {
  type LocalProxy,
  startProxy,
  startTlsSite,
  TEST_CA,
  type TlsSite,
} from "../helpers/local_proxy.ts";
import { type LocalServer, serveLocally } from "./local_site.ts";

const pick = (rules: ReturnType<typeof proxyRules>, url: string) => {
  const proxy = proxyFor(new URL(url), rules);
  return proxy && isUsable(proxy) ? `${proxy.url.href} ${proxy.from}` : proxy?.refusal;
};

test("which proxy: the setting, then the scheme's variable (lower case first), then ALL_PROXY", () => {
  const env = {
    https_proxy: "http://lower:1",
    HTTPS_PROXY: "http://upper:2",
    HTTP_PROXY: "upper-http:3",
    ALL_PROXY: "http://all:4",
  };
  const rules = proxyRules(undefined, env);
  assert.equal(pick(rules, "https://example.com/"), "http://lower:1/ https_proxy");
  assert.equal(pick(rules, "http://example.com/"), "http://upper-http:3/ HTTP_PROXY");
  assert.equal(
    pick(proxyRules(undefined, { ALL_PROXY: "http://all:4" }), "https://a.com/"),
    "http://all:4/ ALL_PROXY",
  );
  // Under CGI, HTTP_PROXY may be a client's Proxy header (httpoxy): not trusted.
  assert.equal(
    pick(
      proxyRules(undefined, { HTTP_PROXY: "http://evil:1", REQUEST_METHOD: "GET" }),
      "http://a.com/",
    ),
    undefined,
  );
  const set = proxyRules("https://set.example:8443", env);
  assert.equal(pick(set, "http://example.com/"), "https://set.example:8443/ the proxy setting");
  assert.equal(pick(proxyRules(undefined, {}), "https://example.com/"), undefined);
});

test("credentials come from the proxy's address as Basic, and leave its shown address", () => {
  const rules = proxyRules("http://us%40er:p%3Ass@proxy.example:3128", {});
  const proxy = proxyFor(new URL("https://a.com/"), rules) as Proxy;
  assert.equal(proxy.url.href, "http://proxy.example:3128/");
  assert.equal(proxy.authorization, `Basic ${btoa("us@er:p:ss")}`);
});

test("SOCKS is refused with a sentence, not bypassed", () => {
  const rules = proxyRules(undefined, { all_proxy: "socks5h://user:pw@127.0.0.1:1080" });
  const refusal = pick(rules, "https://example.com/")!;
  assert.match(refusal, /all_proxy names a SOCKS proxy \(socks5h:\/\/127\.0\.0\.1:1080\)/);
  assert.match(refusal, /only http and https proxies/);
  assert.doesNotMatch(refusal, /pw/);
});

test("NO_PROXY: suffixes, a leading dot or *., ports, *, address ranges, IPv6", () => {
  const rules = proxyRules(undefined, {
    NO_PROXY: "example.com, .corp.test,*.wild.test, api.test:8443, 10.0.0.0/8, [::1], 192.168.1.5",
  });
  const direct = (url: string) => bypassesProxy(new URL(url), rules.noProxy);
  assert.ok(direct("https://example.com/"));
  assert.ok(direct("https://docs.example.com/"));
  assert.ok(!direct("https://notexample.com/"));
  assert.ok(direct("https://a.corp.test/") && direct("https://corp.test/"));
  assert.ok(direct("https://x.wild.test/"));
  assert.ok(direct("https://api.test:8443/") && !direct("https://api.test/"));
  assert.ok(direct("http://10.2.3.4/") && !direct("http://11.2.3.4/"));
  assert.ok(direct("http://[::1]:8080/") && direct("http://192.168.1.5/"));
  assert.ok(direct("HTTPS://EXAMPLE.COM./"));
  assert.ok(
    bypassesProxy(
      new URL("https://anything.org/"),
      proxyRules(undefined, { no_proxy: "*" }).noProxy,
    ),
  );
});

test("through a proxy the guard judges the host as written", () => {
  const refused = (url: string) => proxyHostRefusal(new URL(url));
  assert.match(refused("http://127.0.0.1/")!, /127\.0\.0\.1 is loopback.*--allow-private-network/);
  assert.match(refused("http://[::ffff:169.254.169.254]/")!, /link-local/);
  assert.match(refused("http://localhost:8080/")!, /localhost is a name for a local network/);
  assert.match(refused("http://app.localhost/")!, /local network/);
  assert.match(refused("http://metadata.google.internal/")!, /local network/);
  assert.match(refused("http://printer.local/")!, /local network/);
  assert.match(refused("http://router/")!, /one-label name/);
  assert.equal(refused("https://example.com/"), undefined);
  assert.equal(refused("http://93.184.215.14/"), undefined);
});

test("render: Chromium gets the same proxies and NO_PROXY; credentials or SOCKS refuse the render", () => {
  assert.deepEqual(chromiumProxyArguments(proxyRules("", {})), ["--no-proxy-server"]);
  assert.deepEqual(
    chromiumProxyArguments(
      proxyRules("", {
        HTTP_PROXY: "http://p:3128",
        HTTPS_PROXY: "https://q:443",
        NO_PROXY: "example.com,api.test:8443,10.0.0.0/8,[::1]",
      }),
    ),
    [
      "--proxy-server=http=http://p:3128;https=https://q",
      "--proxy-bypass-list=example.com;*.example.com;api.test:8443;*.api.test:8443;10.0.0.0/8;" +
      "[::1];<-loopback>",
    ],
  );
  assert.deepEqual(
    chromiumProxyArguments(proxyRules("http://p:1", { NO_PROXY: "*" })),
    ["--no-proxy-server"],
  );
  const withAuth = chromiumProxyArguments(proxyRules("http://u:secret@p:1", {}));
  assert.match(
    (withAuth as { refusal: string }).refusal,
    /needs credentials \(the proxy setting\)/,
  );
  assert.doesNotMatch(JSON.stringify(withAuth), /secret/);
  const socks = chromiumProxyArguments(proxyRules("", { ALL_PROXY: "socks5://p:1080" }));
  assert.match((socks as { refusal: string }).refusal, /SOCKS/);
});

let site: LocalServer;
let tlsSite: TlsSite;
let proxy: LocalProxy;
let locked: LocalProxy;

before(async () => {
  site = await serveLocally((req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end(`plain ${req.url} host=${req.headers.host}`);
  });
  tlsSite = await startTlsSite((req, res) => {
    res.setHeader("content-type", "text/plain");
    res.end(`secure ${req.url}`);
  });
  const hosts = { "site.test:80": site.port, "secure.test:443": tlsSite.port };
  proxy = await startProxy(hosts);
  locked = await startProxy(hosts, "alice:s3cret");
});

after(async () => {
  await Promise.all([site.close(), tlsSite.close(), proxy.close(), locked.close()]);
});

const options = (setting: string, env: Record<string, string> = {}): HttpGetOptions => ({
  timeoutMs: 5000,
  maxBytes: 1 << 20,
  allowPrivateNetwork: false,
  proxy: proxyRules(setting, env),
  ca: TEST_CA,
});

const body = (response: { body: Uint8Array }) => new TextDecoder().decode(response.body);

test("http goes to the proxy in absolute form; the proxy resolves the name", async () => {
  const before = proxy.seen.length;
  const response = await httpGet("http://site.test/page?q=1", options(proxy.url));
  assert.equal(response.status, 200);
  assert.equal(body(response), "plain /page?q=1 host=site.test");
  assert.deepEqual(proxy.seen.slice(before).map((r) => r.line), [
    "GET http://site.test/page?q=1",
  ]);
});

test("https goes through a CONNECT tunnel, TLS inside it names the host (SNI)", async () => {
  const before = proxy.seen.length;
  const response = await httpGet(
    "https://secure.test/doc",
    options("", { HTTPS_PROXY: proxy.url }),
  );
  assert.equal(body(response), "secure /doc");
  assert.deepEqual(proxy.seen.slice(before).map((r) => r.line), ["CONNECT secure.test:443"]);
  assert.equal(tlsSite.servernames.at(-1), "secure.test");
});

test("credentials go as Proxy-Authorization; a 407 says so without echoing them", async () => {
  const withAuth = locked.url.replace("http://", "http://alice:s3cret@");
  const before = locked.seen.length;
  assert.equal(body(await httpGet("https://secure.test/x", options(withAuth))), "secure /x");
  assert.equal(
    body(await httpGet("http://site.test/y", options(withAuth))),
    "plain /y host=site.test",
  );
  for (const record of locked.seen.slice(before)) {
    assert.equal(record.authorization, `Basic ${btoa("alice:s3cret")}`);
  }
  const wrong = locked.url.replace("http://", "http://alice:wrong-pass@");
  for (const url of ["https://secure.test/", "http://site.test/"]) {
    await assert.rejects(httpGet(url, options(wrong)), (error: Error) => {
      assert.match(error.message, /asks for credentials \(HTTP 407\)/);
      assert.doesNotMatch(error.message, /wrong-pass|alice/);
      return true;
    });
  }
});

test("through a proxy, private hosts as written are refused before anything is sent", async () => {
  const before = proxy.seen.length;
  for (const url of ["http://127.0.0.1:9/", "https://localhost/", "http://intranet/"]) {
    await assert.rejects(httpGet(url, options(proxy.url)), /private-network addresses is off/);
  }
  assert.equal(proxy.seen.length, before, "nothing reached the proxy");
  // allow_private_network lets them through to the proxy, which answers 502 for unknown hosts.
  const allowed = await httpGet("http://intranet/", {
    ...options(proxy.url),
    allowPrivateNetwork: true,
  });
  assert.equal(allowed.status, 502);
});

test("NO_PROXY goes direct (with the usual guard); a SOCKS proxy or a dead one is a clear error", async () => {
  const direct = await httpGet(`${site.base}/direct`, {
    ...options(proxy.url, { NO_PROXY: "127.0.0.1" }),
    allowPrivate: true,
  });
  assert.equal(body(direct), `plain /direct host=127.0.0.1:${site.port}`);
  await assert.rejects(
    httpGet("https://secure.test/", options("", { ALL_PROXY: "socks5://127.0.0.1:1080" })),
    /SOCKS proxy.*not sent/,
  );
  const dead = "http://bob:hunter2@127.0.0.1:9";
  for (const url of ["https://secure.test/", "http://site.test/"]) {
    await assert.rejects(httpGet(url, options(dead)), (error: Error) => {
      assert.match(
        error.message,
        /The proxy http:\/\/127\.0\.0\.1:9 \(the proxy setting\) could not be reached/,
      );
      assert.doesNotMatch(error.message, /hunter2|bob/);
      return true;
    });
  }
});

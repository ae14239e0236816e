/**
 * The pieces of the sandbox's proxy that decide without a network: sandbox.allow_network's rules,
 * the HTTP it reads (framing, forwarded heads, chunked bodies), the environment a process gets,
 * and "always" written into a user file with its comments kept.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parse } from "jsonc-parser";
import { addToAllowNetwork, withEntry } from "../../tools/_lib/confine/_allow_always.ts";
import { withProxyEnvironment } from "../../tools/_lib/confine/_proxy_env.ts";
import {
  BadRequest,
  ChunkedEnd,
  closingResponseHead,
  destinationOf,
  forwardedHead,
  framingOf,
  parseHead,
  tokenOf,
} from "../../tools/_lib/confine/_proxy_http.ts";
import {
  canonicalHost,
  entryFor,
  loopbackServices,
  matchHost,
  networkRules,
} from "../../tools/_lib/confine/_proxy_rules.ts";

const scratch = mkdtempSync(join(tmpdir(), "toolhost-proxy-rules-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

test("loopback services are the loopback names listed with a port, one per port", () => {
  const rules = networkRules([
    "localhost:5432",
    "127.0.0.1:6379",
    "127.0.0.1:5432",
    "localhost",
    "*.localhost:80",
    "10.0.0.5:5432",
    "db.example:3306",
    "0x7f.0.0.1:8080",
  ]);
  assert.deepEqual(loopbackServices(rules), [
    { host: "localhost", port: 5432 },
    { host: "127.0.0.1", port: 6379 },
    { host: "127.0.0.1", port: 8080 },
  ]);
});

test("rules: names (any port), *.suffix (subdomains only), name:port, addresses in any spelling", () => {
  const rules = networkRules([
    "registry.npmjs.org",
    "*.pypi.org",
    "localhost:5432",
    "127.0.0.1:8080",
    "[::1]:9000",
    "10.0.0.7",
    "*.example.com:443",
    "Bücher.DE",
  ]);
  assert.equal(rules.all, false);
  const allows = (host: string, port: number) => {
    const match = matchHost(rules, canonicalHost(host)!, port);
    return match ? `${match.rule.entry}${match.explicit ? " explicit" : ""}` : "no";
  };
  assert.equal(allows("registry.npmjs.org", 443), "registry.npmjs.org explicit");
  assert.equal(allows("REGISTRY.npmjs.org.", 8443), "registry.npmjs.org explicit");
  assert.equal(allows("evil-registry.npmjs.org", 443), "no");
  assert.equal(allows("files.pypi.org", 443), "*.pypi.org");
  assert.equal(
    allows("pypi.org", 443),
    "no",
    "a suffix rule covers subdomains, not the name itself",
  );
  assert.equal(allows("pypi.org.evil.com", 443), "no");
  assert.equal(allows("localhost", 5432), "localhost:5432 explicit");
  assert.equal(allows("localhost", 5433), "no");
  assert.equal(allows("127.1", 8080), "127.0.0.1:8080 explicit", "127.1 is 127.0.0.1");
  assert.equal(allows("0x7f.0.0.1", 8080), "127.0.0.1:8080 explicit");
  assert.equal(allows("[0:0::1]", 9000), "[::1]:9000 explicit");
  assert.equal(allows("10.0.0.7", 22), "10.0.0.7 explicit");
  assert.equal(allows("a.example.com", 443), "*.example.com:443");
  assert.equal(allows("a.example.com", 80), "no");
  assert.equal(allows("xn--bcher-kva.de", 443), "Bücher.DE explicit");
  assert.equal(networkRules(["a.example", "*"]).all, true);
  // Entries that are not hosts are left out (the schema refuses them at load).
  assert.deepEqual(networkRules(["http://x", "a b", "*.1.2.3.4", "x:99999"]).rules, []);
});

test("rules: what an answer adds is the name for web ports, name:port otherwise", () => {
  assert.equal(entryFor("registry.npmjs.org", 443), "registry.npmjs.org");
  assert.equal(entryFor("example.com", 80), "example.com");
  assert.equal(entryFor("db.example.com", 5432), "db.example.com:5432");
  assert.equal(entryFor("::1", 8080), "[::1]:8080");
});

const head = (text: string) => parseHead(text.replaceAll("\n", "\r\n"));

test("http: CONNECT and absolute-form targets, the token from the proxy credentials", () => {
  const connect = head(
    `CONNECT Example.COM:443 HTTP/1.1\nHost: example.com:443\nProxy-Authorization: Basic ${
      Buffer.from("tok123:").toString("base64")
    }`,
  );
  assert.deepEqual(destinationOf(connect), { host: "example.com", port: 443 });
  assert.deepEqual(tokenOf(connect), ["tok123", ""]);
  const plain = head("GET http://[::1]:8080/a?b=1 HTTP/1.1\nUser-Agent: t");
  assert.deepEqual(destinationOf(plain), {
    host: "::1",
    port: 8080,
    path: "/a?b=1",
    authority: "[::1]:8080",
  });
  assert.deepEqual(tokenOf(plain), []);
  for (
    const [text, why] of [
      ["GET /relative HTTP/1.1", /send the request's whole URL/],
      ["GET https://x.example/ HTTP/1.1", /https goes through CONNECT/],
      ["CONNECT x.example HTTP/1.1", /CONNECT needs host:port/],
      ["GET http://u:p@x.example/ HTTP/1.1", /credentials/],
    ] as const
  ) {
    assert.throws(
      () => destinationOf(head(text)),
      (e) => e instanceof BadRequest && why.test(e.message),
    );
  }
  assert.throws(() => head("GET http://x/ HTTP/1.1\n folded: line"), /malformed/);
  assert.throws(() => head("get http://x/ HTTP/2"), /not HTTP\/1\.1/);
});

test("http: a body's framing; both framings or two lengths are refused (smuggling)", () => {
  assert.deepEqual(framingOf(head("POST http://x/ HTTP/1.1\nContent-Length: 12")), { length: 12 });
  assert.deepEqual(framingOf(head("POST http://x/ HTTP/1.1\nTransfer-Encoding: chunked")), {
    chunked: true,
  });
  assert.deepEqual(framingOf(head("GET http://x/ HTTP/1.1")), { length: 0 });
  assert.deepEqual(
    framingOf(head("POST http://x/ HTTP/1.1\nContent-Length: 5\nContent-Length: 5")),
    { length: 5 },
  );
  for (
    const text of [
      "POST http://x/ HTTP/1.1\nContent-Length: 5\nTransfer-Encoding: chunked",
      "POST http://x/ HTTP/1.1\nContent-Length: 5\nContent-Length: 6",
      "POST http://x/ HTTP/1.1\nContent-Length: -1",
      "POST http://x/ HTTP/1.1\nTransfer-Encoding: gzip, chunked",
    ]
  ) {
    assert.throws(() => framingOf(head(text)), BadRequest, text);
  }
});

test("http: a chunked body's end is found across any split, and nothing after it is taken", () => {
  const body = "4\r\nWiki\r\n5;ext=1\r\npedia\r\n0\r\nTrailer: x\r\n\r\n";
  const next = "GET http://other.example/ HTTP/1.1\r\n\r\n";
  const bytes = Buffer.from(body + next);
  for (let split = 1; split < body.length; split += 3) {
    const end = new ChunkedEnd();
    const first = end.take(bytes.subarray(0, split));
    assert.equal(end.done, false);
    const second = end.take(bytes.subarray(split));
    assert.equal(end.done, true);
    assert.equal(first + second, body.length, `split at ${split}`);
  }
  assert.throws(() => new ChunkedEnd().take(Buffer.from("zz\r\n")), /size is malformed/);
  assert.throws(() => new ChunkedEnd().take(Buffer.from("1\r\nab\r\n")), /does not end/);
});

test("http: a forwarded head loses hop-by-hop headers and the token, and says Connection: close", () => {
  const request = head(
    "GET http://example.com/p?q HTTP/1.1\nHost: example.com\nProxy-Authorization: Basic dG9rOg==\n" +
      "Connection: keep-alive, X-Hop\nX-Hop: 1\nKeep-Alive: 5\nAccept: */*",
  );
  const destination = destinationOf(request);
  assert.equal(
    forwardedHead(request, destination),
    "GET /p?q HTTP/1.1\r\nHost: example.com\r\nAccept: */*\r\nConnection: close\r\n\r\n",
  );
  // Through the user's proxy: still absolute, with their credentials instead of the token.
  assert.equal(
    forwardedHead(
      head("GET http://example.com:81/ HTTP/1.1"),
      destinationOf(head("GET http://example.com:81/ HTTP/1.1")),
      {
        authorization: "Basic dXNlcjpwdw==",
      },
    ),
    "GET http://example.com:81/ HTTP/1.1\r\nHost: example.com:81\r\nProxy-Authorization: Basic dXNlcjpwdw==\r\n" +
      "Connection: close\r\n\r\n",
  );
  assert.equal(
    closingResponseHead(
      "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\nX: y",
    ),
    "HTTP/1.1 200 OK\r\nX: y\r\nConnection: close\r\n\r\n",
  );
});

test("environment: every tool's proxy variable, NO_PROXY replaced, git's own config appended", () => {
  const url = "http://tok@127.0.0.1:4000";
  const env = withProxyEnvironment(
    {
      PATH: "/bin",
      HTTPS_PROXY: "http://corp:3128",
      no_proxy: "internal.corp",
      GIT_CONFIG_COUNT: "1",
      GIT_CONFIG_KEY_0: "user.name",
      GIT_CONFIG_VALUE_0: "A",
      UNSET: undefined,
    },
    url,
    "localhost,127.0.0.1,::1",
  );
  for (
    const name of [
      "http_proxy",
      "HTTP_PROXY",
      "https_proxy",
      "HTTPS_PROXY",
      "all_proxy",
      "ALL_PROXY",
      "npm_config_proxy",
      "npm_config_https_proxy",
      "YARN_HTTP_PROXY",
      "YARN_HTTPS_PROXY",
      "PIP_PROXY",
      "CARGO_HTTP_PROXY",
      "GIT_CONFIG_VALUE_1",
    ]
  ) {
    assert.equal(env[name], url, name);
  }
  assert.equal(env.NO_PROXY, "localhost,127.0.0.1,::1");
  assert.equal(env.no_proxy, "localhost,127.0.0.1,::1");
  assert.equal(env.npm_config_noproxy, "localhost,127.0.0.1,::1");
  assert.equal(env.GIT_CONFIG_COUNT, "2");
  assert.equal(env.GIT_CONFIG_KEY_0, "user.name");
  assert.equal(env.GIT_CONFIG_KEY_1, "http.proxy");
  assert.equal(env.PATH, "/bin");
  assert.equal("UNSET" in env, false);
});

test("always: one line added to sandbox.allow_network, the file's comments, order and style kept", () => {
  const lines = (...text: string[]) => text.join("\n");
  const text = lines(
    "// my settings",
    "{",
    '    "log_level": "debug", // loud',
    '    "sandbox": {',
    "        /* hosts */",
    '        "allow_network": [',
    '            "registry.npmjs.org" // npm',
    "        ],",
    "    },",
    "}",
    "",
  );
  const updated = withEntry(text, "pypi.org");
  assert.equal(
    updated,
    text.replace(
      '"registry.npmjs.org" // npm',
      '"registry.npmjs.org", // npm\n            "pypi.org"',
    ),
    "the comment stays on its own entry's line",
  );
  assert.equal(
    withEntry(updated, "pypi.org"),
    updated,
    "an entry already there is not added twice",
  );
  // Tabs and trailing commas, CRLF, one-line files: each in its own style.
  assert.equal(
    withEntry('{\n\t"sandbox": {\n\t\t"allow_network": [\n\t\t\t"a",\n\t\t],\n\t},\n}\n', "b"),
    '{\n\t"sandbox": {\n\t\t"allow_network": [\n\t\t\t"a",\n\t\t\t"b",\n\t\t],\n\t},\n}\n',
  );
  assert.equal(
    withEntry('{\r\n  "roots": [] // r\r\n}\r\n', "b"),
    '{\r\n  "roots": [], // r\r\n  "sandbox": { "allow_network": ["b"] }\r\n}\r\n',
  );
  assert.equal(
    withEntry('{"sandbox":{"allow_network":["a"]}}', "b"),
    '{"sandbox":{"allow_network":["a", "b"]}}',
  );
  // The shorthand "sandbox": "read-only" becomes the object form, its mode kept.
  assert.deepEqual(parse(withEntry('{ "sandbox": "read-only" }', "a.example")).sandbox, {
    mode: "read-only",
    allow_network: ["a.example"],
  });
  assert.deepEqual(parse(withEntry("", "a.example")), {
    sandbox: { allow_network: ["a.example"] },
  });
  assert.deepEqual(parse(withEntry("// only a comment\n", "a.example")), {
    sandbox: { allow_network: ["a.example"] },
  });
  assert.throws(() => withEntry("[1, 2]", "a.example"), /not a JSON object/);
  assert.throws(() => withEntry('{ "a": ', "a.example"), /not a JSON object/);
});

test("always: the file is made when missing, replaced whole, and a symlinked one stays a symlink", async () => {
  const fresh = join(scratch, "new", "toolhost", "config.jsonc");
  await addToAllowNetwork(fresh, "a.example");
  assert.deepEqual(parse(readFileSync(fresh, "utf8")), {
    sandbox: { allow_network: ["a.example"] },
  });
  const dotfiles = join(scratch, "dotfiles");
  mkdirSync(dotfiles);
  const real = join(dotfiles, "config.jsonc");
  writeFileSync(real, '{\n  // kept\n  "proxy": ""\n}\n', { mode: 0o640 });
  const link = join(scratch, "link.jsonc");
  symlinkSync(real, link);
  await addToAllowNetwork(link, "b.example:8443");
  assert.ok(statSync(link, { throwIfNoEntry: true }).isFile());
  assert.match(readFileSync(real, "utf8"), /\/\/ kept/);
  assert.deepEqual(parse(readFileSync(real, "utf8")).sandbox.allow_network, ["b.example:8443"]);
  assert.equal(statSync(real).mode & 0o777, 0o640);
  assert.deepEqual(
    readFileSync(join(scratch, "link.jsonc"), "utf8"),
    readFileSync(real, "utf8"),
    "the link still points at the real file",
  );
});

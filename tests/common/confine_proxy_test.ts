/**
 * The sandbox's filtering proxy in this process, against a local origin on 127.0.0.1 (names map
 * to it through a lookup table, so nothing leaves the machine): tokens, the rules, the
 * private-network guard (off only for an entry naming the host), unlisted names never looked
 * up, bodies framed and nothing after them forwarded, bounded heads, backpressure, the user's
 * own proxy chained, and the person asked (shared questions, answers, the deadline).
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, type IncomingMessage } from "node:http";
import { type AddressInfo, connect, createServer as createTcpServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "jsonc-parser";
import { defaultSettings, type Settings } from "../../config/settings.ts";
import type { ElicitRequest, ElicitResult } from "../../mcp/tool/mod.ts";
import { SessionMemory, type ToolContext } from "../../mcp/tool/mod.ts";
import { FilteringProxy } from "../../tools/_lib/confine/_proxy.ts";
import { SessionPolicy } from "../../tools/_lib/confine/_proxy_calls.ts";
import { type LocalProxy, startProxy } from "../helpers/local_proxy.ts";

interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

const seen: Seen[] = [];
let originPort = 0;
const origin = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (chunk: Buffer) => chunks.push(chunk));
  req.on("end", () => {
    seen.push({
      method: req.method!,
      url: req.url!,
      headers: req.headers,
      body: Buffer.concat(chunks).toString(),
    });
    const body = `origin says ${req.method} ${req.url}`;
    res.writeHead(200, { "content-length": String(body.length), "keep-alive": "timeout=5" });
    res.end(body);
  });
});
const scratch = mkdtempSync(join(tmpdir(), "toolhost-proxy-test-"));
/** Names the proxy looks up, and the names it was asked for. */
const looked: string[] = [];
const table: Record<string, string[]> = {
  "origin.test": ["127.0.0.1"],
  "a.wild.test": ["127.0.0.1"],
  "mixed.wild.test": ["93.184.215.14", "127.0.0.1"],
};
const lookup = (host: string) => {
  looked.push(host);
  const found = table[host];
  return found ? Promise.resolve(found) : Promise.reject(new Error("ENOTFOUND"));
};

before(async () => {
  await new Promise<void>((resolve) => origin.listen(0, "127.0.0.1", resolve));
  originPort = (origin.address() as AddressInfo).port;
});
after(async () => {
  origin.closeAllConnections();
  await new Promise((resolve) => origin.close(resolve));
  rmSync(scratch, { recursive: true, force: true });
});

type Asker = (request: ElicitRequest) => Promise<ElicitResult>;

/** A call's context as the proxy uses it: settings, the session, and the person's answers. */
function context(config: Settings, session: SessionMemory, asker?: Asker) {
  const controller = new AbortController();
  const asked: ElicitRequest[] = [];
  const ctx = {
    config,
    session,
    signal: controller.signal,
    get canElicitMidCall() {
      return asker !== undefined && !controller.signal.aborted;
    },
    elicit: (request: ElicitRequest) => {
      asked.push(request);
      return asker!(request);
    },
    onAbort: (listener: () => void) => {
      controller.signal.addEventListener("abort", listener, { once: true });
      return () => controller.signal.removeEventListener("abort", listener);
    },
    log: () => {},
  } as unknown as ToolContext;
  return { ctx, asked, abort: () => controller.abort() };
}

interface Rig {
  policy: SessionPolicy;
  proxy: FilteringProxy;
  port: number;
  session: SessionMemory;
  config: Settings;
  close(): Promise<void>;
}

const rigs: Rig[] = [];
after(async () => {
  for (const rig of rigs) await rig.close();
});

async function rig(
  allow: string[],
  options: { proxy?: string; answerMs?: number; userConfigFile?: string; headMs?: number } = {},
): Promise<Rig> {
  const config = {
    ...defaultSettings(),
    proxy: options.proxy ?? "",
    sandbox: { ...defaultSettings().sandbox, allowNetwork: allow },
  };
  const policy = new SessionPolicy(config, {
    lookup,
    userProxies: options.proxy !== undefined,
    answerMs: options.answerMs,
    userConfigFile: options.userConfigFile,
  });
  const proxy = new FilteringProxy(policy, { headMs: options.headMs });
  const port = await proxy.listen({ port: 0 });
  const made = {
    policy,
    proxy,
    port,
    session: new SessionMemory(),
    config,
    close: () => proxy.close(),
  };
  rigs.push(made);
  return made;
}

const basic = (token: string) =>
  `Proxy-Authorization: Basic ${Buffer.from(`${token}:`).toString("base64")}\r\n`;

/** Sends `text` to the proxy and reads until it closes. */
function exchange(port: number, text: string | Buffer): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve(Buffer.concat(chunks).toString()));
    socket.write(text);
  });
}

const get = (port: number, token: string, target: string) =>
  exchange(port, `GET ${target} HTTP/1.1\r\nHost: x\r\n${token ? basic(token) : ""}\r\n`);

/** A CONNECT through the proxy, then one request to the origin inside the tunnel. */
async function tunnel(port: number, token: string, authority: string): Promise<string> {
  const socket = connect(port, "127.0.0.1");
  const chunks: Buffer[] = [];
  socket.on("data", (chunk: Buffer) => chunks.push(chunk));
  const closed = new Promise((resolve) => socket.on("close", resolve));
  socket.write(`CONNECT ${authority} HTTP/1.1\r\nHost: ${authority}\r\n${basic(token)}\r\n`);
  await new Promise<void>((resolve) => {
    const check = () => {
      const text = Buffer.concat(chunks).toString();
      if (text.includes("\r\n\r\n")) {
        socket.off("data", check);
        resolve();
      }
    };
    socket.on("data", check);
  });
  if (/^HTTP\/1\.1 200/.test(Buffer.concat(chunks).toString())) {
    socket.write("GET /in-tunnel HTTP/1.1\r\nHost: origin\r\nConnection: close\r\n\r\n");
  }
  await closed;
  return Buffer.concat(chunks).toString();
}

const register = (r: Rig, asker?: Asker) => {
  const made = context(r.config, r.session, asker);
  return { ...made, call: r.policy.register(made.ctx, "npm install left-pad") };
};

test("a request without a running call's token is refused (407), with no connection made", async () => {
  const r = await rig([`origin.test:${originPort}`]);
  const before = seen.length;
  const { call } = register(r);
  const target = `http://origin.test:${originPort}/x`;
  assert.match(await get(r.port, "", target), /^HTTP\/1\.1 407 [^]*Proxy-Authenticate: Basic/);
  assert.match(await get(r.port, "not-a-token", target), /^HTTP\/1\.1 407/);
  call.end();
  assert.match(await get(r.port, call.token, target), /^HTTP\/1\.1 407/);
  assert.equal(seen.length, before);
});

test("a listed host: plain http in absolute form and a CONNECT tunnel both reach it", async () => {
  const r = await rig([`origin.test:${originPort}`]);
  const { call } = register(r);
  const reply = await get(r.port, call.token, `http://origin.test:${originPort}/page?q=1`);
  assert.match(reply, /^HTTP\/1\.1 200 OK\r\n/);
  assert.match(reply, /\r\nConnection: close\r\n/i);
  assert.doesNotMatch(reply, /keep-alive/i, "the origin's keep-alive is replaced");
  assert.match(reply, /origin says GET \/page\?q=1$/);
  const request = seen.at(-1)!;
  assert.equal(request.headers.host, "x");
  assert.equal(
    request.headers["proxy-authorization"],
    undefined,
    "the token never reaches the host",
  );
  assert.equal(request.headers.connection, "close");
  const through = await tunnel(r.port, call.token, `origin.test:${originPort}`);
  assert.match(through, /^HTTP\/1\.1 200 Connection established\r\n\r\nHTTP\/1\.1 200 OK/);
  assert.match(through, /origin says GET \/in-tunnel$/);
  assert.deepEqual(call.refusals(), []);
});

test("an unlisted host is refused and recorded, and its name is never looked up", async () => {
  const r = await rig([`origin.test:${originPort}`]);
  const { call } = register(r);
  looked.length = 0;
  const reply = await get(r.port, call.token, "http://secret-data.exfil.example/");
  assert.match(
    reply,
    /^HTTP\/1\.1 403 Forbidden[^]*secret-data\.exfil\.example:80: not in sandbox\.allow_network/,
  );
  assert.match(
    await tunnel(r.port, call.token, "secret-data.exfil.example:443"),
    /^HTTP\/1\.1 403/,
  );
  await tunnel(r.port, call.token, "secret-data.exfil.example:443");
  assert.deepEqual(looked, [], "a lookup would carry the name out through DNS");
  assert.deepEqual(
    call.refusals().map(({ line, count }) => [line, count]),
    [
      [
        "sandbox: refused network to secret-data.exfil.example:80 (not in sandbox.allow_network)",
        1,
      ],
      [
        "sandbox: refused network to secret-data.exfil.example:443 (not in sandbox.allow_network)",
        2,
      ],
    ],
  );
});

test("the guard: a *.suffix entry does not reach private addresses; an entry naming the host does", async () => {
  const r = await rig(["*.wild.test", `127.0.0.1:${originPort}`]);
  const { call } = register(r);
  assert.match(
    await get(r.port, call.token, `http://a.wild.test:${originPort}/`),
    /^HTTP\/1\.1 403[^]*a\.wild\.test resolves to 127\.0\.0\.1, loopback/,
  );
  // Every address of a name counts: a public one first does not let the private one through.
  assert.match(
    await get(r.port, call.token, `http://mixed.wild.test:${originPort}/`),
    /^HTTP\/1\.1 403[^]*resolves to 127\.0\.0\.1, loopback/,
  );
  assert.match(
    await get(r.port, call.token, `http://127.0.0.1:${originPort}/ok`),
    /origin says GET \/ok/,
  );
  assert.match(
    await get(r.port, call.token, `http://127.1:${originPort}/ok`),
    /origin says GET \/ok/,
  );
  // The same address on a port the entry does not name is loopback like any other.
  assert.match(
    await get(r.port, call.token, `http://127.0.0.1:${originPort + 1}/`),
    /^HTTP\/1\.1 403[^]*it is loopback, which only an entry naming it in sandbox\.allow_network allows/,
  );
  assert.deepEqual(
    call.refusals().map((refusal) => `${refusal.host}:${refusal.port}`),
    [`a.wild.test:${originPort}`, `mixed.wild.test:${originPort}`, `127.0.0.1:${originPort + 1}`],
  );
});

test("bodies: a length or chunks are forwarded exactly, and a request after them never is", async () => {
  const r = await rig([`origin.test:${originPort}`]);
  const { call } = register(r);
  const target = `http://origin.test:${originPort}`;
  const smuggled = `GET ${target}/smuggled HTTP/1.1\r\nHost: x\r\n\r\n`;
  const before = seen.length;
  const sized = await exchange(
    r.port,
    `POST ${target}/sized HTTP/1.1\r\nHost: x\r\n${
      basic(call.token)
    }Content-Length: 5\r\n\r\nhello${smuggled}`,
  );
  assert.match(sized, /origin says POST \/sized/);
  const chunked = await exchange(
    r.port,
    `POST ${target}/chunked HTTP/1.1\r\nHost: x\r\n${
      basic(call.token)
    }Transfer-Encoding: chunked\r\n\r\n` +
      `3\r\nabc\r\n2\r\nde\r\n0\r\n\r\n${smuggled}`,
  );
  assert.match(chunked, /origin says POST \/chunked/);
  assert.deepEqual(
    seen.slice(before).map(({ url, body }) => `${url} ${body}`),
    ["/sized hello", "/chunked abcde"],
  );
  assert.match(
    await exchange(
      r.port,
      `POST ${target}/x HTTP/1.1\r\nHost: x\r\n${
        basic(call.token)
      }Content-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n`,
    ),
    /^HTTP\/1\.1 400[^]*both Transfer-Encoding and Content-Length/,
  );
  assert.equal(seen.length, before + 2);
});

test("heads are bounded in size and time", async () => {
  const r = await rig([], { headMs: 200 });
  const huge = `GET http://origin.test/ HTTP/1.1\r\nX: ${"a".repeat(17 * 1024)}\r\n\r\n`;
  assert.match(await exchange(r.port, huge), /^HTTP\/1\.1 431/);
  assert.match(
    await exchange(r.port, "GET http://origin.test/ HTTP/1.1\r\n"),
    /^HTTP\/1\.1 408[^]*0\.2 s/,
  );
});

test("a tunnel pipes with backpressure: a client that stops reading stops the host's writing", async () => {
  const total = 64 * 1024 * 1024;
  let source: Socket | undefined;
  const backedUp = Promise.withResolvers<void>();
  const bulk = createTcpServer((socket) => {
    source = socket;
    const block = Buffer.alloc(1024 * 1024, 120);
    let sent = 0;
    const pump = () => {
      while (sent < total) {
        sent += block.length;
        if (!socket.write(block)) {
          backedUp.resolve();
          return void socket.once("drain", pump);
        }
      }
      socket.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => bulk.listen(0, "127.0.0.1", resolve));
  const bulkPort = (bulk.address() as AddressInfo).port;
  const r = await rig([`origin.test:${bulkPort}`]);
  const { call } = register(r);
  const client = connect(r.port, "127.0.0.1");
  client.write(`CONNECT origin.test:${bulkPort} HTTP/1.1\r\nHost: x\r\n${basic(call.token)}\r\n`);
  let received = 0;
  const first = await new Promise<Buffer>((resolve) => client.once("data", resolve));
  received += first.length;
  client.pause();
  await backedUp.promise;
  // Time for a proxy that buffers without bound to take all 64 MiB in.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const written = source!.bytesWritten;
  assert.ok(written < total / 2, `the host wrote ${written} bytes while nobody read`);
  const done = new Promise((resolve) => client.on("end", resolve));
  client.on("data", (chunk: Buffer) => (received += chunk.length));
  client.resume();
  await done;
  const head = "HTTP/1.1 200 Connection established\r\n\r\n".length;
  assert.equal(received - head, total);
  client.destroy();
  await new Promise((resolve) => bulk.close(resolve));
});

test("the user's own proxy is chained: CONNECT and plain requests go through it, with its credentials", async () => {
  const upstream: LocalProxy = await startProxy(
    { [`origin.test:${originPort}`]: originPort },
    "user:pw",
  );
  try {
    const r = await rig([`origin.test:${originPort}`, "*.local"], {
      proxy: `http://user:pw@127.0.0.1:${upstream.port}`,
    });
    const { call } = register(r);
    looked.length = 0;
    assert.match(
      await tunnel(r.port, call.token, `origin.test:${originPort}`),
      /origin says GET \/in-tunnel/,
    );
    assert.match(
      await get(r.port, call.token, `http://origin.test:${originPort}/via`),
      /origin says GET \/via/,
    );
    assert.deepEqual(upstream.seen.map(({ line }) => line), [
      `CONNECT origin.test:${originPort}`,
      `GET http://origin.test:${originPort}/via`,
    ]);
    assert.ok(
      upstream.seen.every(({ authorization }) => authorization === `Basic ${btoa("user:pw")}`),
    );
    assert.deepEqual(looked, [], "the user's proxy resolves names, not toolhost");
    // Through it only the host as written can be judged: a local-only name is refused.
    assert.match(
      await tunnel(r.port, call.token, "printer.local:631"),
      /^HTTP\/1\.1 403[^]*a name for a local network/,
    );
    const socks = await rig([`origin.test:${originPort}`], { proxy: "socks5://127.0.0.1:1080" });
    const other = register(socks).call;
    assert.match(
      await tunnel(socks.port, other.token, `origin.test:${originPort}`),
      /^HTTP\/1\.1 502[^]*SOCKS proxy/,
    );
  } finally {
    await upstream.close();
  }
});

/**
 * What the person allows keeps the guard (only an entry naming a host lifts it), and the origin
 * is on loopback: the asking tests reach it through a user's proxy that maps names to it.
 */
let mapping: LocalProxy;
before(async () => {
  mapping = await startProxy({ [`origin.test:${originPort}`]: originPort });
});
after(() => mapping.close());
const asking = (options: { answerMs?: number; userConfigFile?: string } = {}) =>
  rig([], { ...options, proxy: mapping.url });

const answer = (decision: string): Asker => () =>
  Promise.resolve({ action: "accept", content: { decision } });

test("asking: 'session' lets every call of the session through; the form names the host and the command", async () => {
  const file = join(scratch, "session-config.jsonc");
  const r = await asking({ userConfigFile: file });
  const first = register(r, answer("session"));
  const target = `http://origin.test:${originPort}/asked`;
  assert.match(await get(r.port, first.call.token, target), /origin says GET \/asked/);
  assert.equal(first.asked.length, 1);
  const form = first.asked[0];
  assert.match(
    form.message,
    new RegExp(`reach origin\\.test:${originPort}, which sandbox\\.allow_network does not list`),
  );
  assert.match(form.message, /The command: npm install left-pad/);
  const choices = form.requestedSchema.properties.decision.oneOf as {
    const: string;
    title: string;
  }[];
  assert.deepEqual(choices.map((c) => c.const), ["once", "session", "always", "deny"]);
  assert.match(
    choices[2].title,
    new RegExp(
      `adds "origin\\.test:${originPort}" to sandbox\\.allow_network in .*session-config\\.jsonc`,
    ),
  );
  const second = register(r, answer("deny"));
  assert.match(await get(r.port, second.call.token, target), /origin says GET/);
  assert.equal(second.asked.length, 0, "allowed for the session: not asked again");
  assert.throws(() => readFileSync(file), /ENOENT/, "session answers are not written");
});

test("asking: 'once' is this command's, 'deny' is remembered for it, and a client that cannot ask is refused at once", async () => {
  const r = await asking();
  const target = `http://origin.test:${originPort}/`;
  const once = register(r, answer("once"));
  assert.match(await get(r.port, once.call.token, target), /^HTTP\/1\.1 200/);
  assert.match(await get(r.port, once.call.token, target), /^HTTP\/1\.1 200/);
  assert.equal(once.asked.length, 1);
  const choices = once.asked[0].requestedSchema.properties.decision.oneOf as { const: string }[];
  assert.deepEqual(
    choices.map((c) => c.const),
    ["once", "session", "deny"],
    "no user file: no 'always'",
  );
  const denied = register(r, answer("deny"));
  assert.match(
    await get(r.port, denied.call.token, target),
    /^HTTP\/1\.1 403[^]*the person denied it/,
  );
  assert.match(await get(r.port, denied.call.token, target), /^HTTP\/1\.1 403/);
  assert.equal(
    denied.asked.length,
    1,
    "a denied host is not asked about again in the same command",
  );
  assert.equal(denied.call.refusals()[0].count, 2);
  const mute = register(r);
  assert.match(
    await get(r.port, mute.call.token, target),
    /^HTTP\/1\.1 403[^]*: not in sandbox\.allow_network\n/,
  );
  // A loopback literal is never asked about: only the setting, naming it, allows it.
  const asker = register(r, answer("session"));
  assert.match(
    await get(r.port, asker.call.token, `http://127.0.0.1:${originPort}/`),
    /^HTTP\/1\.1 403[^]*loopback/,
  );
  assert.equal(asker.asked.length, 0);
});

test("asking: requests for one host share one question, and an answer after the deadline still counts", async () => {
  const file = join(scratch, "late-config.jsonc");
  const r = await asking({ answerMs: 300, userConfigFile: file });
  const pending = Promise.withResolvers<ElicitResult>();
  const asker: Asker = () => pending.promise;
  const a = register(r, asker);
  const b = register(r, asker);
  const target = `http://origin.test:${originPort}/shared`;
  const replies = await Promise.all([
    get(r.port, a.call.token, target),
    get(r.port, a.call.token, target),
    get(r.port, b.call.token, target),
  ]);
  assert.equal(a.asked.length + b.asked.length, 1, "one question for three requests");
  for (const reply of replies) {
    assert.match(reply, /^HTTP\/1\.1 403[^]*the person did not answer within 0\.3 s/);
  }
  pending.resolve({ action: "accept", content: { decision: "always" } });
  const c = register(r, answer("deny"));
  // The late "always" is kept for the session at once and written to the user file.
  let written = "";
  for (let i = 0; i < 50 && !written; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
    written = (() => {
      try {
        return readFileSync(file, "utf8");
      } catch {
        return "";
      }
    })();
  }
  assert.deepEqual(parse(written).sandbox.allow_network, [`origin.test:${originPort}`]);
  assert.match(await get(r.port, c.call.token, target), /origin says GET \/shared/);
  assert.equal(c.asked.length, 0);
});

test("asking: a question withdrawn by its call's end is asked again for the other call waiting", async () => {
  const r = await asking();
  const never = Promise.withResolvers<ElicitResult>();
  const first = register(r, () => never.promise);
  const second = register(r, answer("once"));
  const target = `http://origin.test:${originPort}/again`;
  const firstReply = get(r.port, first.call.token, target);
  while (first.asked.length === 0) await new Promise((resolve) => setTimeout(resolve, 5));
  const secondReply = get(r.port, second.call.token, target);
  await new Promise((resolve) => setTimeout(resolve, 50));
  assert.equal(second.asked.length, 0, "it waits on the question already asked");
  first.abort();
  assert.match(await firstReply, /^HTTP\/1\.1 403/);
  assert.match(await secondReply, /origin says GET \/again/);
  assert.equal(second.asked.length, 1);
});

test("the machine's loopback, when an entry names it, is reached directly, never through the user's proxy", async () => {
  const upstream = await startProxy({});
  try {
    const r = await rig([`127.0.0.1:${originPort}`], { proxy: upstream.url });
    const { call } = register(r);
    assert.match(
      await get(r.port, call.token, `http://127.0.0.1:${originPort}/local`),
      /origin says GET \/local/,
    );
    assert.deepEqual(upstream.seen, []);
  } finally {
    await upstream.close();
  }
});

test("a refused request's connection closes once the client ends it (none kept half-open)", async () => {
  const r = await rig([]);
  const socket = connect(r.port, "127.0.0.1");
  socket.write("GET http://origin.test/ HTTP/1.1\r\nHost: x\r\n\r\n");
  const answered = await new Promise<string>((resolve) =>
    socket.once("data", (d) => resolve(String(d)))
  );
  assert.match(answered, /^HTTP\/1\.1 407/);
  assert.equal(r.proxy.connections, 1);
  socket.end();
  // The proxy's side has no event to wait on: looked at until it closed, or 2 s have passed.
  for (let i = 0; i < 100 && r.proxy.connections > 0; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  assert.equal(r.proxy.connections, 0);
});

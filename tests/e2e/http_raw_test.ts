/**
 * Streamable HTTP with raw requests, as any client or web page could send them: who may talk to
 * the endpoint (Origin, Host, bearer token), how --http is checked at start, the 2026-07-28
 * request headers and every modern method, file:/// kept inside the roots, and the legacy
 * session's statuses. After each refusal the server keeps serving, and stdout stays empty.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { existsSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import process from "node:process";
import { before, test } from "node:test";
import {
  type HttpServer,
  MODERN_META,
  modernHeaders,
  postModern,
  rawHttp,
  sseMessages,
  SseReader,
  startHttpServer,
} from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { binary, isolatedEnv, PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { inotifyWatches } from "../helpers/processes.ts";

const e2e = e2eFixture();

const SECRET = "the-secret-outside-the-root-5501";
const ALLOWED_ORIGIN = "https://app.example.com";

let server: HttpServer;
let project: string;
let outside: string;

function writeSkill(root: string, name: string, body: string): void {
  const dir = join(root, ".claude", "skills", name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, "SKILL.md"),
    `---\nname: ${name}\ndescription: Says ${name}.\n---\n${body}`,
  );
}

before(async () => {
  project = e2e.file.scratch("http-raw-root");
  outside = e2e.file.scratch("http-raw-outside");
  writeFileSync(join(outside, "secret.txt"), `${SECRET}\n`);
  writeFileSync(join(project, "hello.txt"), "hello over raw http\n");
  symlinkSync(join(outside, "secret.txt"), join(project, "escape.txt"));
  symlinkSync(outside, join(project, "outdir"));
  writeSkill(project, "greet", "Hello $ARGUMENTS.\n");
  server = await startHttpServer(
    PRODUCT_BINARY,
    ["--root", project, "--http-origin", ALLOWED_ORIGIN, "--max-line-mb", "1"],
    {},
    project,
  );
});

// Only a cleanup: Deno does not report failures in node:test's after hooks (the last test checks).
e2e.file.cleanup(() => server.terminate());

/** SIGTERM ends the server with exit code 0, and it never wrote to stdout. */
async function stopCleanly(on: HttpServer): Promise<void> {
  const status = await on.terminate();
  assert.equal(on.stdout(), "", "an HTTP server writes nothing on stdout");
  assert.deepEqual(status, { code: 0, signal: null }, on.stderr());
}

type Body = Record<string, unknown> & {
  id?: unknown;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: Record<string, unknown> };
};

/** The reply's JSON-RPC body, after checking its status and that it is JSON. */
async function jsonOf(response: Response, status: number): Promise<Body> {
  const text = await response.text();
  assert.equal(response.status, status, text);
  assert.match(response.headers.get("content-type") ?? "", /^application\/json/, text);
  const body = JSON.parse(text);
  assert.equal(body.jsonrpc, "2.0", text);
  return body;
}

/**
 * The reply to a request of a client that accepts both JSON and SSE: the server may send either,
 * and on a stream the reply is the message that carries the request's id.
 */
async function replyOf(response: Response, status = 200): Promise<Body> {
  const type = response.headers.get("content-type") ?? "";
  if (!type.startsWith("text/event-stream")) return await jsonOf(response, status);
  const text = await response.text();
  assert.equal(response.status, status, text);
  const reply = sseMessages(text).find((message) => "result" in message || "error" in message);
  assert.ok(reply, `no reply on the stream: ${text}`);
  return reply as Body;
}

/** A refusal: the status, and a JSON-RPC error with `code` (when given) and no result. */
async function refusal(response: Response, status: number, code?: number): Promise<Body> {
  const body = await jsonOf(response, status);
  assert.equal(body.result, undefined);
  assert.equal(typeof body.error?.message, "string", JSON.stringify(body));
  if (code !== undefined) assert.equal(body.error!.code, code, JSON.stringify(body));
  else assert.equal(typeof body.error!.code, "number");
  return body;
}

/** A 2026-07-28 request whose headers are exactly `headers`, and whose body is `body`. */
function postExactly(
  body: Record<string, unknown>,
  headers: Record<string, string>,
  url = server.url,
): Promise<Response> {
  return fetch(url, { method: "POST", headers, body: JSON.stringify(body) });
}

function modernBody(id: number | string, method: string, params: Record<string, unknown> = {}) {
  return { jsonrpc: "2.0", id, method, params: { ...params, _meta: MODERN_META } };
}

const b64 = (text: string) =>
  `=?base64?${btoa(String.fromCharCode(...new TextEncoder().encode(text)))}?=`;

/** The server answers a plain request after whatever came before. */
async function assertServing(on = server, headers: Record<string, string> = {}): Promise<void> {
  const reply = await jsonOf(
    await postModern(on.url, "still-there", "tools/list", {}, headers),
    200,
  );
  assert.equal(reply.id, "still-there");
  const tools = reply.result?.tools as { name: string }[];
  assert.ok(tools.some((tool) => tool.name === "bash"), JSON.stringify(reply));
}

function textOf(reply: Body): string {
  const content = reply.result?.content as { type: string; text?: string }[];
  return content.map((block) => block.text ?? "").join("");
}

// ---------------------------------------------------------------------------------------------
// Who may talk to the endpoint

test("a foreign Origin gets 403 with a JSON-RPC error, loopback ones too; toolhost's own and --http-origin origins are served", async () => {
  const own = new URL(server.url).origin;
  for (
    const origin of [
      "http://localhost:3000", // another local server's page
      "http://127.0.0.1",
      "https://127.0.0.1:8443",
      "http://[::1]:5173",
      own.replace("http:", "https:"), // the scheme is part of the origin
      own.replace("127.0.0.1", "localhost"), // so is the name: the request names 127.0.0.1
      "http://evil.example",
      "https://localhost.evil.example",
      "http://127.0.0.1.nip.io:8080",
      "https://app.example.com.evil.example",
      "http://app.example.com", // the scheme is part of the origin
      "null",
    ]
  ) {
    const modern = await refusal(
      await postModern(server.url, 1, "tools/list", {}, { origin }),
      403,
    );
    assert.equal(modern.id ?? null, null, origin);
    assert.match(modern.error!.message, /origin/i);
    const legacy = await fetch(server.url, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json", origin },
      body: JSON.stringify(initializeBody()),
    });
    assert.equal(legacy.headers.get("mcp-session-id"), null, origin);
    await refusal(legacy, 403);
  }
  for (const origin of [own, ALLOWED_ORIGIN]) {
    const reply = await jsonOf(await postModern(server.url, 2, "tools/list", {}, { origin }), 200);
    assert.ok(Array.isArray(reply.result?.tools), origin);
  }
  await assertServing();
});

test("origins listed in the user file's http.origins are served as --http-origin ones are; others stay refused", async () => {
  const home = e2e.file.scratch("http-origins-home");
  mkdirSync(join(home, "toolhost"));
  writeFileSync(
    join(home, "toolhost", "config.jsonc"),
    JSON.stringify({ http: { origins: ["http://localhost:5173"] } }),
  );
  const listed = await startHttpServer(
    PRODUCT_BINARY,
    ["--root", project, "--http-origin", ALLOWED_ORIGIN],
    { XDG_CONFIG_HOME: home },
    project,
  );
  try {
    for (const origin of ["http://localhost:5173", ALLOWED_ORIGIN]) {
      const reply = await jsonOf(
        await postModern(listed.url, 1, "tools/list", {}, { origin }),
        200,
      );
      assert.ok(Array.isArray(reply.result?.tools), origin);
    }
    await refusal(
      await postModern(listed.url, 2, "tools/list", {}, { origin: "http://localhost:3000" }),
      403,
    );
  } finally {
    await stopCleanly(listed);
  }
});

test("a browser request that names no Origin but comes from another site is refused", async () => {
  for (const site of ["cross-site", "same-site"]) {
    const refused = await refusal(
      await postModern(server.url, 1, "tools/list", {}, { "sec-fetch-site": site }),
      403,
    );
    assert.match(refused.error!.message, /another site/);
    const sse = await fetch(server.url.replace(/\/mcp$/, "/sse"), {
      headers: { accept: "text/event-stream", "sec-fetch-site": site },
    });
    await refusal(sse, 403);
  }
  for (const site of ["same-origin", "none"]) {
    const reply = await jsonOf(
      await postModern(server.url, 2, "tools/list", {}, { "sec-fetch-site": site }),
      200,
    );
    assert.ok(Array.isArray(reply.result?.tools), site);
  }
});

test("on a loopback bind a request naming a foreign Host is refused with 403", async () => {
  const body = JSON.stringify(modernBody(3, "tools/list"));
  const headers = modernHeaders("tools/list");
  for (const host of ["evil.example", `evil.example:${server.port}`, "127.0.0.1.nip.io"]) {
    const reply = await rawHttp(server.port, { headers: { ...headers, host }, body });
    assert.equal(reply.status, 403, `${host}: ${reply.body}`);
    const parsed = JSON.parse(reply.body);
    assert.equal(typeof parsed.error?.code, "number", reply.body);
    assert.equal(parsed.result, undefined);
  }
  for (
    const host of [`localhost:${server.port}`, `127.0.0.1:${server.port}`, `[::1]:${server.port}`]
  ) {
    const reply = await rawHttp(server.port, { headers: { ...headers, host }, body });
    assert.equal(reply.status, 200, `${host}: ${reply.body}`);
    assert.ok(Array.isArray(JSON.parse(reply.body).result?.tools));
  }
  await assertServing();
});

async function assertTokenGuard(on: HttpServer, token: string): Promise<void> {
  for (
    const authorization of [
      undefined,
      "Bearer wrong-token",
      `Bearer ${token.slice(0, -1)}`,
      `Bearer ${token}x`,
      `Basic ${btoa(`user:${token}`)}`,
      token,
    ]
  ) {
    const headers: Record<string, string> = authorization ? { authorization } : {};
    const reply = await postModern(on.url, 1, "tools/call", {
      name: "bash",
      arguments: { command: "echo should-not-run" },
    }, headers);
    assert.match(reply.headers.get("www-authenticate") ?? "", /^Bearer\b/i, String(authorization));
    const body = await refusal(reply, 401);
    assert.doesNotMatch(JSON.stringify(body), /should-not-run/);
    // Sessions are guarded as well.
    const get = await fetch(on.url, { headers: { accept: "text/event-stream", ...headers } });
    await refusal(get, 401);
  }
  const ran = await jsonOf(
    await postModern(on.url, 2, "tools/call", {
      name: "bash",
      arguments: { command: 'echo token-ok; echo "env:${TOOLHOST_HTTP_TOKEN:-unset}"' },
    }, { authorization: `Bearer ${token}` }),
    200,
  );
  const text = textOf(ran);
  assert.match(text, /token-ok/);
  // The commands a client runs never see the token.
  assert.match(text, /env:unset/);
  assert.ok(!text.includes(token));
  await assertServing(on, { authorization: `bearer ${token}` });
}

test("--http-token: 401 with WWW-Authenticate without the token or with a wrong one, served with it", async () => {
  const token = "flag-token-7f3a9c";
  const guarded = await startHttpServer(PRODUCT_BINARY, ["--root", project, "--http-token", token]);
  try {
    await assertTokenGuard(guarded, token);
  } finally {
    await stopCleanly(guarded);
  }
  assert.ok(!guarded.stderr().includes(token), "the token is not logged");
});

test("TOOLHOST_HTTP_TOKEN guards the same way; shutting down ends a listen with its result", async () => {
  const token = "env-token-51d2e8";
  const guarded = await startHttpServer(PRODUCT_BINARY, ["--root", project], {
    TOOLHOST_HTTP_TOKEN: token,
  });
  let stopped = false;
  try {
    await assertTokenGuard(guarded, token);
    const listen = await postModern(guarded.url, "bye", "subscriptions/listen", {
      notifications: { resourceSubscriptions: ["toolhost://tasks"] },
    }, { authorization: `Bearer ${token}` });
    assert.equal(listen.status, 200);
    const stream = new SseReader(listen);
    assert.equal((await stream.next())?.method, "notifications/subscriptions/acknowledged");
    const exit = stopCleanly(guarded);
    stopped = true;
    const last = await stream.next();
    assert.equal(last?.id, "bye", JSON.stringify(last));
    const result = last?.result as Record<string, unknown>;
    assert.equal(result.resultType, "complete");
    assert.equal(
      (result._meta as Record<string, unknown>)["io.modelcontextprotocol/subscriptionId"],
      "bye",
    );
    assert.equal(await stream.next(), undefined, "the stream ends after the result");
    await exit;
  } finally {
    if (!stopped) await guarded.terminate();
  }
});

/** Runs the binary to its exit. */
function run(args: string[], env: Record<string, string> = {}) {
  const base: Record<string, string | undefined> = { ...process.env, ...isolatedEnv(), ...env };
  if (!("TOOLHOST_HTTP_TOKEN" in env)) delete base.TOOLHOST_HTTP_TOKEN;
  const child = spawn(binary(PRODUCT_BINARY), args, {
    env: base,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8").on("data", (text: string) => (stderr += text));
  const timer = setTimeout(() => child.kill("SIGKILL"), 10_000);
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) =>
    child.once("close", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    })
  );
}

test("--http beyond loopback without a token, and malformed --http values, exit 2 with a message", async () => {
  const unguarded = ["0.0.0.0:0", "[::]:0", "192.0.2.1:0"];
  const malformed = ["abc", "8080x", "127.0.0.1:", ":8080", "127.0.0.1:65536", "1:2:3", "", "-1"];
  const runs = await Promise.all([
    ...unguarded.map((spec) => run(["--http", spec])),
    ...unguarded.map((spec) => run(["--http", spec], { TOOLHOST_HTTP_TOKEN: "" })),
    ...malformed.map((spec) => run(["--http", spec])),
    run(["--http"]),
    run(["--http", "127.0.0.1:0", "--http-origin", "app.example.com"]),
    run(["--http", "127.0.0.1:0", "--http-origin", "https://app.example.com/path"]),
  ]);
  const labels = [
    ...unguarded.map((spec) => `--http ${spec}`),
    ...unguarded.map((spec) => `--http ${spec} with an empty TOOLHOST_HTTP_TOKEN`),
    ...malformed.map((spec) => `--http ${JSON.stringify(spec)}`),
    "--http with no value",
    "--http-origin without a scheme",
    "--http-origin with a path",
  ];
  runs.forEach(({ code, stdout, stderr }, i) => {
    assert.equal(code, 2, `${labels[i]}: ${stderr}`);
    assert.equal(stdout, "", labels[i]);
    assert.match(stderr, /^toolhost: \S.*/, labels[i]);
    assert.doesNotMatch(stderr, /serving MCP/, labels[i]);
  });
  for (let i = 0; i < 2 * unguarded.length; i++) {
    assert.match(runs[i].stderr, /token/i, labels[i]);
  }
});

test("--http 0.0.0.0:0 with a token serves: the token guards, whatever Host is named", async () => {
  const token = "wide-token-0c11";
  const wide = await startHttpServer(PRODUCT_BINARY, [
    "--root",
    project,
    "--http",
    "0.0.0.0:0",
    "--http-token",
    token,
  ]);
  try {
    await refusal(await postModern(wide.url, 1, "tools/list"), 401);
    const body = JSON.stringify(modernBody(4, "tools/list"));
    const headers = { ...modernHeaders("tools/list"), host: `mcp.example.com:${wide.port}` };
    const without = await rawHttp(wide.port, { headers, body });
    assert.equal(without.status, 401, without.body);
    const named = await rawHttp(wide.port, {
      headers: { ...headers, authorization: `Bearer ${token}` },
      body,
    });
    assert.equal(named.status, 200, named.body);
    assert.ok(Array.isArray(JSON.parse(named.body).result?.tools));
  } finally {
    await stopCleanly(wide);
  }
});

// ---------------------------------------------------------------------------------------------
// 2026-07-28 request headers

test("MCP-Protocol-Version: missing or unlike the body's is -32020, unsupported is -32022 with data.supported", async () => {
  const body = modernBody(10, "tools/list");
  const { "mcp-protocol-version": _, ...noVersion } = modernHeaders("tools/list");
  const missing = await refusal(await postExactly(body, noVersion), 400, -32020);
  assert.equal(missing.id, 10);
  await assertServing();

  const older = { ...modernHeaders("tools/list"), "mcp-protocol-version": "2025-11-25" };
  assert.equal((await refusal(await postExactly(body, older), 400, -32020)).id, 10);
  await assertServing();

  const oldBody = {
    ...body,
    params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2025-06-18" } },
  };
  await refusal(await postExactly(oldBody, modernHeaders("tools/list")), 400, -32020);
  await assertServing();

  const future = {
    ...body,
    params: { _meta: { ...MODERN_META, "io.modelcontextprotocol/protocolVersion": "2099-01-01" } },
  };
  const unsupported = await refusal(
    await postExactly(future, {
      ...modernHeaders("tools/list"),
      "mcp-protocol-version": "2099-01-01",
    }),
    400,
    -32022,
  );
  assert.equal(unsupported.id, 10);
  const supported = unsupported.error!.data?.supported as string[];
  assert.ok(supported.includes("2026-07-28"), JSON.stringify(unsupported));
  await assertServing();
});

test("Mcp-Method missing or unlike the body's method is -32020, and nothing runs", async () => {
  const marker = join(project, "mcp-method-ran");
  const call = modernBody(11, "tools/call", {
    name: "bash",
    arguments: { command: `touch ${marker}` },
  });
  const { "mcp-method": _, ...noMethod } = modernHeaders("tools/call", "bash");
  await refusal(await postExactly(call, noMethod), 400, -32020);
  for (const method of ["tools/list", "Tools/Call", "resources/read"]) {
    const headers = { ...modernHeaders("tools/call", "bash"), "mcp-method": method };
    await refusal(await postExactly(call, headers), 400, -32020);
  }
  assert.ok(!existsSync(marker), "no refused request ran");
  await jsonOf(await postExactly(call, modernHeaders("tools/call", "bash")), 200);
  assert.ok(existsSync(marker), "the matching request ran");
  await assertServing();
});

test("Mcp-Name is required and must match for tools/call, resources/read and prompts/get; base64 form accepted", async () => {
  const marker = join(project, "mcp-name-ran");
  const fileUri = `file://${project}/hello.txt`;
  const cases = [
    {
      method: "tools/call",
      params: { name: "bash", arguments: { command: `touch ${marker}; echo name-ok` } },
      name: "bash",
      other: "read_file",
      check: (reply: Body) => assert.match(textOf(reply), /name-ok/),
    },
    {
      method: "resources/read",
      params: { uri: fileUri },
      name: fileUri,
      other: `file://${project}/escape.txt`,
      check: (reply: Body) =>
        assert.equal(
          (reply.result?.contents as { text: string }[])[0].text,
          "hello over raw http\n",
        ),
    },
    {
      method: "prompts/get",
      params: { name: "greet", arguments: { arguments: "header" } },
      name: "greet",
      other: "other",
      check: (reply: Body) =>
        assert.match(JSON.stringify(reply.result?.messages), /Hello header\./),
    },
  ];
  for (const { method, params, name, other, check } of cases) {
    const ranBefore = existsSync(marker);
    const body = modernBody(20, method, params);
    const { "mcp-name": _, ...noName } = modernHeaders(method, name);
    await refusal(await postExactly(body, noName), 400, -32020);
    for (
      const wrong of [other, b64(other), `${name}x`, "=?base64?not base64!?=", name.toUpperCase()]
    ) {
      await refusal(await postExactly(body, modernHeaders(method, wrong)), 400, -32020);
    }
    assert.equal(existsSync(marker), ranBefore, `${method}: a refused call does not run`);
    await assertServing();
    for (const right of [name, b64(name)]) {
      const reply = await jsonOf(await postExactly(body, modernHeaders(method, right)), 200);
      assert.equal(reply.result?.resultType, "complete", `${method} ${right}`);
      check(reply);
    }
  }
  assert.ok(existsSync(marker));
  // A name a header cannot carry as it is travels only in base64.
  const odd = "bash ünïcode";
  const reply = await refusal(
    await postExactly(
      modernBody(21, "tools/call", { name: odd, arguments: {} }),
      modernHeaders("tools/call", b64(odd)),
    ),
    400,
  );
  assert.notEqual(reply.error!.code, -32020, "the header matched: the tool is unknown");
});

test("a 2026-07-28 request ignores an Mcp-Session-Id header and is given none", async () => {
  const session = await openSession();
  for (const id of ["no-such-session", session]) {
    const reply = await postModern(server.url, 31, "tools/list", {}, { "mcp-session-id": id });
    assert.equal(reply.headers.get("mcp-session-id"), null);
    assert.ok(Array.isArray((await jsonOf(reply, 200)).result?.tools));
  }
  await assertSessionServing(session);
  await deleteSession(session);
});

test("an unknown method is 404 with -32601", async () => {
  for (const method of ["tools/teleport", "no/such/method"]) {
    const reply = await refusal(await postModern(server.url, 30, method), 404, -32601);
    assert.equal(reply.id, 30);
  }
  await assertServing();
});

// ---------------------------------------------------------------------------------------------
// Every 2026-07-28 method

async function modernOk(method: string, params: Record<string, unknown> = {}): Promise<Body> {
  const reply = await jsonOf(await postModern(server.url, `m-${method}`, method, params), 200);
  assert.equal(reply.id, `m-${method}`);
  assert.equal(reply.result?.resultType, "complete", JSON.stringify(reply));
  return reply;
}

test("each 2026-07-28 method works over HTTP: discover, tools, resources, prompts, completion", async () => {
  const discover = await modernOk("server/discover");
  assert.ok((discover.result?.supportedVersions as string[]).includes("2026-07-28"));
  const capabilities = discover.result?.capabilities as Record<string, unknown>;
  for (const kind of ["tools", "resources", "prompts", "completions"]) {
    assert.ok(kind in capabilities, kind);
  }

  const tools = await modernOk("tools/list");
  assert.equal(typeof tools.result?.ttlMs, "number");
  const names = (tools.result?.tools as { name: string }[]).map((tool) => tool.name);
  for (const name of ["bash", "read_file", "tasks"]) assert.ok(names.includes(name), name);

  const call = await modernOk("tools/call", {
    name: "bash",
    arguments: { command: "echo $((6 * 7))-over-http" },
  });
  assert.match(textOf(call), /42-over-http/);
  assert.notEqual(call.result?.isError, true);

  const resources = await modernOk("resources/list");
  const uris = (resources.result?.resources as { uri: string }[]).map((r) => r.uri);
  for (const uri of ["toolhost://tasks", "toolhost://skills/greet"]) {
    assert.ok(uris.includes(uri), uri);
  }

  const templates = await modernOk("resources/templates/list");
  assert.ok(
    (templates.result?.resourceTemplates as { uriTemplate: string }[]).some((t) =>
      t.uriTemplate === "file:///{+path}"
    ),
  );

  const read = await modernOk("resources/read", { uri: `file://${project}/hello.txt` });
  assert.deepEqual(read.result?.contents, [
    { uri: `file://${project}/hello.txt`, mimeType: "text/plain", text: "hello over raw http\n" },
  ]);

  const prompts = await modernOk("prompts/list");
  assert.deepEqual((prompts.result?.prompts as { name: string }[]).map((p) => p.name), ["greet"]);
  const got = await modernOk("prompts/get", { name: "greet", arguments: { arguments: "HTTP" } });
  assert.deepEqual(got.result?.messages, [
    { role: "user", content: { type: "text", text: "Hello HTTP." } },
  ]);

  const skill = await modernOk("completion/complete", {
    ref: { type: "ref/resource", uri: "toolhost://skills/{name}" },
    argument: { name: "name", value: "gr" },
  });
  assert.deepEqual((skill.result?.completion as { values: string[] }).values, ["greet"]);
  const path = await modernOk("completion/complete", {
    ref: { type: "ref/resource", uri: "file:///{+path}" },
    argument: { name: "path", value: `${project.slice(1)}/hel` },
  });
  assert.deepEqual((path.result?.completion as { values: string[] }).values, [
    `${project.slice(1)}/hello.txt`,
  ]);
});

test(
  "a client that accepts only text/event-stream gets its reply as an SSE event",
  posixOnly("reads /proc"),
  async () => {
    const reply = await postModern(server.url, 40, "tools/list", {}, {
      accept: "text/event-stream",
    });
    assert.equal(reply.status, 200);
    assert.match(reply.headers.get("content-type") ?? "", /^text\/event-stream/);
    const messages = sseMessages(await reply.text());
    assert.equal(messages.length, 1);
    assert.equal(messages[0].id, 40);
    assert.ok(Array.isArray((messages[0].result as Record<string, unknown>).tools));
  },
);

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 25));
  return check();
}

const subscriptionOf = (message: Record<string, unknown> | undefined) =>
  ((message?.params as Record<string, unknown>)?._meta as Record<string, unknown>)?.[
    "io.modelcontextprotocol/subscriptionId"
  ];

test("subscriptions/listen: acknowledged first, only what was asked, changes from other requests, closing ends it", async () => {
  const pid = server.child.pid!;
  const before = inotifyWatches(pid);
  const tasksListen = await postModern(server.url, "listen-tasks", "subscriptions/listen", {
    notifications: { resourceSubscriptions: ["toolhost://tasks", "toolhost://no-such-thing"] },
  });
  assert.equal(tasksListen.status, 200);
  assert.match(tasksListen.headers.get("content-type") ?? "", /^text\/event-stream/);
  const tasks = new SseReader(tasksListen);
  const ack = await tasks.next();
  assert.equal(ack?.method, "notifications/subscriptions/acknowledged", JSON.stringify(ack));
  assert.equal(subscriptionOf(ack), "listen-tasks");
  assert.deepEqual((ack?.params as Record<string, unknown>).notifications, {
    resourceSubscriptions: ["toolhost://tasks"],
  });

  const promptsListen = await postModern(server.url, 77, "subscriptions/listen", {
    notifications: { promptsListChanged: true },
  });
  const prompts = new SseReader(promptsListen);
  const promptsAck = await prompts.next();
  assert.equal(promptsAck?.method, "notifications/subscriptions/acknowledged");
  assert.equal(subscriptionOf(promptsAck), 77);
  assert.deepEqual((promptsAck?.params as Record<string, unknown>).notifications, {
    promptsListChanged: true,
  });

  // A new skill changes the prompts list: only the listen that asked hears of it.
  writeSkill(project, "wave", "Wave.\n");
  const changed = await prompts.next();
  assert.equal(changed?.method, "notifications/prompts/list_changed", JSON.stringify(changed));
  assert.equal(subscriptionOf(changed), 77);

  const created = await modernOk("tools/call", {
    name: "tasks",
    arguments: { action: "create", text: "Test listen over HTTP" },
  });
  assert.notEqual(created.result?.isError, true, JSON.stringify(created));
  const updated = await tasks.next();
  assert.deepEqual(updated, {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: {
      uri: "toolhost://tasks",
      _meta: { "io.modelcontextprotocol/subscriptionId": "listen-tasks" },
    },
  });

  // Nothing but prompt list changes reaches the prompts listen, however long it listens.
  writeSkill(project, "nod", "Nod.\n");
  const heard: unknown[] = [];
  for (;;) {
    const message = await prompts.next(700).catch(() => undefined);
    if (!message) break;
    heard.push(message.method);
  }
  assert.ok(heard.length >= 1, "the second skill was heard");
  assert.deepEqual([...new Set(heard)], ["notifications/prompts/list_changed"]);

  assert.ok(inotifyWatches(pid) > before, "listening watches the disk");
  await tasks.cancel();
  await prompts.cancel();
  assert.ok(
    await until(() => inotifyWatches(pid) === before),
    `closing the streams ends the listens and their watches (${
      inotifyWatches(pid)
    } left, ${before} before)`,
  );
  await assertServing();
});

// ---------------------------------------------------------------------------------------------
// The sandbox over HTTP

test("file:/// over HTTP never leaves the roots: outside paths, .., %2E%2E and symlinks are refused", async () => {
  const out = basename(outside);
  const uris = [
    `file://${outside}/secret.txt`,
    `file://${project}/../${out}/secret.txt`,
    `file://${project}/%2E%2E/${out}/secret.txt`,
    `file://${project}/%2e%2e%2f${out}%2fsecret.txt`,
    `file://${project}/./sub/../../${out}/secret.txt`,
    `file://${project}/escape.txt`,
    `file://${project}/outdir/secret.txt`,
    `file://${project}/%6Futdir/secret.txt`,
    `file://localhost${outside}/secret.txt`,
  ];
  for (const uri of uris) {
    const reply = await postModern(server.url, 50, "resources/read", { uri });
    const text = await reply.text();
    assert.ok(!text.includes(SECRET), `${uri} leaked: ${text}`);
    assert.notEqual(reply.status, 200, `${uri}: ${text}`);
    assert.equal(typeof JSON.parse(text).error?.code, "number", `${uri}: ${text}`);
  }
  for (const path of [`${outside}/secret.txt`, `${project}/escape.txt`, `../${out}/secret.txt`]) {
    const reply = await jsonOf(
      await postModern(server.url, 51, "tools/call", { name: "read_file", arguments: { path } }),
      200,
    );
    assert.equal(reply.result?.isError, true, path);
    assert.ok(!JSON.stringify(reply).includes(SECRET), path);
  }
  const completed = await jsonOf(
    await postModern(server.url, 52, "completion/complete", {
      ref: { type: "ref/resource", uri: "file:///{+path}" },
      argument: { name: "path", value: `${outside.slice(1)}/se` },
    }),
    200,
  );
  assert.ok(!JSON.stringify(completed).includes("secret.txt"), JSON.stringify(completed));

  // The same through a legacy session.
  const session = await openSession();
  for (const uri of uris.slice(0, 3)) {
    const reply = await replyOf(
      await postLegacy(session, {
        jsonrpc: "2.0",
        id: 53,
        method: "resources/read",
        params: { uri },
      }),
      // Legacy errors are JSON-RPC errors with HTTP 200.
      200,
    );
    assert.ok(!JSON.stringify(reply).includes(SECRET), `${uri} leaked: ${JSON.stringify(reply)}`);
    assert.equal(typeof reply.error?.code, "number", `${uri}: ${JSON.stringify(reply)}`);
  }
  await deleteSession(session);
  await assertServing();
});

// ---------------------------------------------------------------------------------------------
// Legacy sessions (2025-11-25 and earlier)

function initializeBody(id: number | string = 1) {
  return {
    jsonrpc: "2.0",
    id,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "http-raw-test", version: "1" },
    },
  };
}

const LEGACY_HEADERS = {
  "content-type": "application/json",
  accept: "application/json, text/event-stream",
};

function postLegacy(
  session: string | undefined,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(server.url, {
    method: "POST",
    headers: {
      ...LEGACY_HEADERS,
      ...(session ? { "mcp-session-id": session, "mcp-protocol-version": "2025-11-25" } : {}),
      ...headers,
    },
    body: typeof body === "string" ? body : JSON.stringify(body),
  });
}

async function openSession(): Promise<string> {
  const reply = await postLegacy(undefined, initializeBody());
  const session = reply.headers.get("mcp-session-id");
  const body = await jsonOf(reply, 200);
  assert.equal(body.result?.protocolVersion, "2025-11-25");
  assert.match(session ?? "", /^[\x21-\x7e]+$/, "initialize names the session");
  const initialized = await postLegacy(session!, {
    jsonrpc: "2.0",
    method: "notifications/initialized",
  });
  assert.equal(initialized.status, 202);
  assert.equal(await initialized.text(), "");
  return session!;
}

async function deleteSession(session: string): Promise<void> {
  const reply = await fetch(server.url, {
    method: "DELETE",
    headers: { "mcp-session-id": session },
  });
  assert.equal(reply.status, 204);
  await reply.body?.cancel();
}

/** The session answers a ping. */
async function assertSessionServing(session: string, id = "ping-after"): Promise<void> {
  const reply = await jsonOf(
    await postLegacy(session, { jsonrpc: "2.0", id, method: "ping" }),
    200,
  );
  assert.equal(reply.id, id);
  assert.deepEqual(reply.result, {});
}

test("legacy sessions: Mcp-Session-Id from initialize, 400 without it, 404 unknown, DELETE ends it", async () => {
  const session = await openSession();
  const other = await openSession();
  assert.notEqual(session, other);
  await assertSessionServing(session);

  const missing = await refusal(
    await postLegacy(undefined, { jsonrpc: "2.0", id: 60, method: "tools/list" }),
    400,
  );
  assert.equal(missing.id, 60);
  await refusal(
    await postLegacy("no-such-session", { jsonrpc: "2.0", id: 61, method: "tools/list" }),
    404,
  );
  await refusal(
    await postLegacy(session, { jsonrpc: "2.0", id: 62, method: "ping" }, {
      "mcp-protocol-version": "2025-06-18",
    }),
    400,
  );
  const listed = await jsonOf(
    await postLegacy(session, { jsonrpc: "2.0", id: 63, method: "tools/list" }),
    200,
  );
  assert.equal(listed.id, 63);
  assert.ok((listed.result?.tools as { name: string }[]).some((tool) => tool.name === "bash"));

  await deleteSession(session);
  await refusal(await postLegacy(session, { jsonrpc: "2.0", id: 64, method: "ping" }), 404);
  const again = await fetch(server.url, {
    method: "DELETE",
    headers: { "mcp-session-id": session },
  });
  await refusal(again, 404);
  const stream = await fetch(server.url, {
    headers: { accept: "text/event-stream", "mcp-session-id": session },
  });
  await refusal(stream, 404);
  // Ending one session leaves the others alone.
  await assertSessionServing(other);
  await deleteSession(other);
  await assertServing();
});

function openStream(session: string): Promise<Response> {
  return fetch(server.url, { headers: { accept: "text/event-stream", "mcp-session-id": session } });
}

const settleWithin = <T>(promise: Promise<T>, ms: number): Promise<T | "pending"> =>
  Promise.race([promise, new Promise<"pending">((r) => setTimeout(() => r("pending"), ms))]);

/**
 * Opens the session's GET stream once the server no longer holds an earlier one: a 409 comes at
 * once, so a GET still unanswered after a moment was taken (its headers may wait for an event).
 */
async function takeStream(session: string): Promise<{ opening: Promise<Response> }> {
  for (let tries = 0; tries < 40; tries++) {
    const opening = openStream(session);
    const early = await settleWithin(opening, 300);
    // Wrapped: an async function returning the promise itself would wait for it.
    if (early === "pending" || early.status !== 409) return { opening };
    await early.body?.cancel();
  }
  throw new Error("the session's earlier stream was never let go (409 throughout)");
}

/** Changes the task list through a 2026-07-28 request, which subscribed sessions hear of. */
async function changeTasks(text: string): Promise<void> {
  const reply = await jsonOf(
    await postModern(server.url, "tasks", "tools/call", {
      name: "tasks",
      arguments: { action: "create", text },
    }),
    200,
  );
  assert.notEqual(reply.result?.isError, true, JSON.stringify(reply));
}

/** The next message on `stream` that is not a list change (which a session hears unasked). */
async function nextUpdate(stream: SseReader): Promise<Record<string, unknown> | undefined> {
  for (;;) {
    const message = await stream.next();
    if (!String(message?.method).endsWith("/list_changed")) return message;
  }
}

test("legacy GET: 405 without a session, an event stream with one, 409 for a second, closed by DELETE", async () => {
  const noSession = await fetch(server.url, { headers: { accept: "text/event-stream" } });
  await refusal(noSession, 405);
  await assertServing();

  const session = await openSession();
  const subscribed = await replyOf(
    await postLegacy(session, {
      jsonrpc: "2.0",
      id: 65,
      method: "resources/subscribe",
      params: { uri: "toolhost://tasks" },
    }),
  );
  assert.deepEqual(subscribed.result, {}, JSON.stringify(subscribed));
  const { opening } = await takeStream(session);
  await refusal(await openStream(session), 409);
  await assertSessionServing(session);
  await changeTasks("Heard on the GET stream");
  const stream = await opening;
  assert.equal(stream.status, 200);
  assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
  const events = new SseReader(stream);
  assert.deepEqual(await nextUpdate(events), {
    jsonrpc: "2.0",
    method: "notifications/resources/updated",
    params: { uri: "toolhost://tasks" },
  });

  // A client that drops its stream may open it again.
  await events.cancel();
  const { opening: reopening } = await takeStream(session);
  await changeTasks("Heard on the reopened stream");
  const reopened = await reopening;
  assert.equal(reopened.status, 200, "the dropped stream is noticed and can be opened again");
  const again = new SseReader(reopened);
  assert.equal((await nextUpdate(again))?.method, "notifications/resources/updated");

  await deleteSession(session);
  assert.equal(await nextUpdate(again), undefined, "DELETE closes the session's stream");
  await assertServing();
});

test("a legacy GET stream is answered at once, before it has any event to carry", async () => {
  // A server of its own, where nothing else happens that the session could hear of.
  const quiet = await startHttpServer(PRODUCT_BINARY, ["--root", project]);
  try {
    const init = await fetch(quiet.url, {
      method: "POST",
      headers: LEGACY_HEADERS,
      body: JSON.stringify(initializeBody()),
    });
    const session = init.headers.get("mcp-session-id")!;
    assert.equal(init.status, 200, await init.text());
    const opening = fetch(quiet.url, {
      headers: { accept: "text/event-stream", "mcp-session-id": session },
    });
    opening.catch(() => {}); // the server may be stopped before it answers
    const opened = await settleWithin(opening, 5000);
    assert.notEqual(
      opened,
      "pending",
      "no status or headers within 5 s of the GET: they wait for the first event or keep-alive",
    );
    const stream = opened as Response;
    assert.equal(stream.status, 200);
    assert.match(stream.headers.get("content-type") ?? "", /^text\/event-stream/);
    await stream.body?.cancel();
  } finally {
    await stopCleanly(quiet);
  }
});

test(
  "legacy POSTs: notifications and responses 202, wrong type 415, wrong Accept 406, bad JSON -32700",
  posixOnly("a command of about 1 MB: Windows refuses a command line over 32,767 characters"),
  async () => {
    const session = await openSession();

    const note = await postLegacy(session, {
      jsonrpc: "2.0",
      method: "notifications/roots/list_changed",
    });
    assert.equal(note.status, 202);
    assert.equal(await note.text(), "");
    const answer = await postLegacy(session, { jsonrpc: "2.0", id: "toolhost-999", result: {} });
    assert.equal(answer.status, 202);
    assert.equal(await answer.text(), "");
    await assertSessionServing(session, "after-202");

    for (const type of ["text/plain", "application/x-www-form-urlencoded", "application/jsonx"]) {
      await refusal(
        await postLegacy(session, { jsonrpc: "2.0", id: 70, method: "ping" }, {
          "content-type": type,
        }),
        415,
      );
    }
    const untyped = await fetch(server.url, {
      method: "POST",
      headers: { accept: "application/json", "mcp-session-id": session },
      body: new Blob([JSON.stringify({ jsonrpc: "2.0", id: 71, method: "ping" })]),
    });
    await refusal(untyped, 415);
    await assertSessionServing(session, "after-415");

    for (const accept of ["text/html", "image/png, text/plain"]) {
      await refusal(
        await postLegacy(session, { jsonrpc: "2.0", id: 72, method: "ping" }, { accept }),
        406,
      );
    }
    await assertSessionServing(session, "after-406");

    for (const text of ['{"jsonrpc": "2.0", "id": 73, "method": ', "not json at all", ""]) {
      const parse = await refusal(await postLegacy(session, text), 400, -32700);
      assert.equal(parse.id, null);
    }
    await assertSessionServing(session, "after-parse-error");
    const unframed = await refusal(
      await postLegacy(session, { jsonrpc: "2.0", id: 74 }),
      400,
      -32600,
    );
    assert.equal(unframed.id, 74);
    await assertSessionServing(session, "after-invalid");

    // Just under the cap is fine.
    const fits = await replyOf(
      await postLegacy(session, {
        jsonrpc: "2.0",
        id: 76,
        method: "tools/call",
        params: { name: "bash", arguments: { command: `: ${"y".repeat(1000 * 1000)}; echo fits` } },
      }),
      200,
    );
    assert.match(textOf(fits), /fits/);

    const other = await fetch(server.url, {
      method: "PUT",
      headers: { "mcp-session-id": session },
    });
    await refusal(other, 405);
    const elsewhere = await fetch(new URL("/not-mcp", server.url), {
      method: "POST",
      headers: LEGACY_HEADERS,
      body: "{}",
    });
    assert.equal(elsewhere.status, 404);
    await elsewhere.body?.cancel();

    await deleteSession(session);
    await assertServing();
  },
);

/** A tools/call body of exactly `size` bytes. */
function bodyOfSize(size: number): string {
  const shell = (pad: string) =>
    JSON.stringify({
      jsonrpc: "2.0",
      id: 80,
      method: "tools/call",
      params: { name: "bash", arguments: { command: `: ${pad}; echo ran` } },
    });
  const body = shell("z".repeat(size - shell("").length));
  assert.equal(new TextEncoder().encode(body).length, size);
  return body;
}

test(
  "a body over --max-line-mb is 413 with a JSON-RPC error naming the limit, however it is sent",
  posixOnly("a command of about 1 MB: Windows refuses a command line over 32,767 characters"),
  async () => {
    const session = await openSession();
    const max = 1024 * 1024;
    const sends: [string, () => Promise<Response>][] = [
      ["one byte over the limit", () => postLegacy(session, bodyOfSize(max + 1))],
      ["a few KB over the limit", () => postLegacy(session, bodyOfSize(max + 4096))],
      ["in chunks, without a Content-Length", () => {
        const bytes = new TextEncoder().encode(bodyOfSize(max + 4096));
        const chunks = new ReadableStream<Uint8Array>({
          start(controller) {
            for (let at = 0; at < bytes.length; at += 64 * 1024) {
              controller.enqueue(bytes.subarray(at, at + 64 * 1024));
            }
            controller.close();
          },
        });
        return fetch(server.url, {
          method: "POST",
          headers: {
            ...LEGACY_HEADERS,
            "mcp-session-id": session,
            "mcp-protocol-version": "2025-11-25",
          },
          body: chunks,
          // @ts-ignore: fetch needs this to stream a request body; lib.dom does not know it yet
          duplex: "half",
        });
      }],
    ];
    const problems: string[] = [];
    for (const [how, send] of sends) {
      const reply = await send();
      const text = await reply.text();
      if (reply.status !== 413) problems.push(`${how}: status ${reply.status}, not 413`);
      else if (!/"error":\{.*"message":"[^"]*1048576 bytes/.test(text)) {
        problems.push(`${how}: 413 with the body ${JSON.stringify(text)}, not a JSON-RPC error`);
      }
      await assertSessionServing(session, `after ${how}`);
    }
    assert.deepEqual(problems, []);
    const fits = await replyOf(await postLegacy(session, bodyOfSize(max)));
    assert.match(textOf(fits), /ran/);
    await deleteSession(session);
  },
);

test(
  "through all of the above the server wrote nothing on stdout, and SIGTERM ends it with 0",
  posixOnly("sends SIGTERM for an orderly stop (Windows can only terminate)"),
  async () => {
    await stopCleanly(server);
  },
);

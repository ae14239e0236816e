/**
 * Raw JSON lines against the compiled binary, for what an SDK client cannot express: the
 * modern era by hand, malformed input, batches, cancellation, progress, huge lines and replies.
 */
import assert from "node:assert/strict";
import { afterEach, test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, PRODUCT_BINARY, type RawClient, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();
const opened: RawClient[] = [];
function open(binary = TEST_BINARY, args: string[] = []) {
  const client = e2e.server({ binary, args });
  opened.push(client);
  return client;
}

// After the fixture's: the servers are closed, and their stdout checked for stray lines.
afterEach(() => {
  for (const c of opened.splice(0)) {
    assert.equal(c.unterminated, "", "every message ends with a newline");
  }
});

test("a modern session by hand: discover, list, call; every result is complete and signed", async () => {
  const c = open(PRODUCT_BINARY);
  const discover = await c.request("server/discover", modern());
  assert.ok((discover.result?.supportedVersions as string[]).includes("2026-07-28"));
  const list = await c.request("tools/list", modern());
  assert.ok((list.result?.tools as { name: string }[]).some((t) => t.name === "bash"));
  // The skill tool's description comes from this user's files.
  assert.equal(list.result?.cacheScope, "private");
  const call = await c.request(
    "tools/call",
    modern({ name: "bash", arguments: { command: "echo hi" } }),
  );
  for (const reply of [discover, list, call]) {
    assert.equal(reply.result?.resultType, "complete");
    assert.equal(
      (reply.result?._meta as Record<string, { name: string }>)[
        "io.modelcontextprotocol/serverInfo"
      ].name,
      "toolhost",
    );
  }
  assert.match(JSON.stringify(call.result?.content), /hi\\n/);
});

test("malformed input gets errors and the server keeps serving", async () => {
  const c = open();
  c.sendLine("this is not json");
  c.sendLine('{"jsonrpc":"2.0","id":1,"method":"ping"'); // cut short
  c.sendLine("[]");
  c.sendLine('"just a string"');
  c.sendLine('{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}');
  c.sendLine('{"jsonrpc":"2.0","id":2,"method":"ping","params":[1,2]}');
  c.sendLine(
    '{"jsonrpc":"2.0","id":"3","method":"tools/call","params":' +
      JSON.stringify(modern({ name: 42 })) + "}",
  );
  const ok = await c.request("ping");
  assert.deepEqual(ok.result, {});
  await c.responseTo("3"); // requests run concurrently: this one may answer after the ping
  const errors = c.messages.filter((m) => m.error).map((m) => [m.id, m.error!.code]);
  assert.deepEqual(errors, [
    [null, -32700],
    [null, -32700],
    [null, -32600],
    [null, -32600],
    [null, -32600],
    [2, -32602],
    ["3", -32602],
  ]);
});

test("a request id that is true, {} or 1.5 is told what it is, not that it is null", async () => {
  const c = open();
  for (const id of ["true", "{}", "1.5"]) {
    c.sendLine(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
  }
  await c.request("ping");
  const said = c.messages.filter((m) => m.error).map((m) => m.error!.message);
  assert.deepEqual(said, [
    'Invalid Request: "id" must be a string or an integer, not a boolean (true)',
    'Invalid Request: "id" must be a string or an integer, not an object',
    'Invalid Request: "id" must be a string or an integer, not a fraction',
  ]);
});

test("\\r\\n line endings are accepted", async () => {
  const c = open();
  c.child.stdin!.write('{"jsonrpc":"2.0","id":"crlf","method":"ping"}\r\n');
  assert.deepEqual((await c.responseTo("crlf")).result, {});
});

test("a batch is answered with one array line after 2025-03-26, refused otherwise", async () => {
  const c = open();
  c.sendLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  assert.equal((await c.responseTo(null)).error?.code, -32600);
  await c.initialize("2025-03-26");
  c.send([
    { jsonrpc: "2.0", id: "b1", method: "ping" },
    {
      jsonrpc: "2.0",
      id: "b2",
      method: "tools/call",
      params: { name: "echo", arguments: { text: "x" } },
    },
  ]);
  await c.responseTo("b2");
  assert.equal(c.batches.length, 1);
  assert.deepEqual(c.batches[0].map((m) => m.id).sort(), ["b1", "b2"]);
});

test("cancellation: no response for the cancelled request, the server goes on", async () => {
  const c = open();
  await c.initialize();
  const id = c.start("tools/call", { name: "slow", arguments: { ms: 20_000 } });
  await new Promise((r) => setTimeout(r, 150));
  c.notify("notifications/cancelled", { requestId: id, reason: "test" });
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual((await c.request("ping")).result, {});
  assert.ok(!c.messages.some((m) => m.id === id), "no response to the cancelled request");
});

test("progress notifications arrive before the result, increasing, with the client's token", async () => {
  const c = open();
  const reply = await c.request(
    "tools/call",
    modern({ name: "slow", arguments: { ms: 400, step_ms: 100 } }, {
      progressToken: "p-1",
    }),
  );
  assert.match(JSON.stringify(reply.result), /slept 400 ms/);
  const progress = c.messages.filter((m) => m.method === "notifications/progress");
  assert.deepEqual(progress.map((m) => m.params!.progress), [100, 200, 300, 400]);
  assert.ok(progress.every((m) => m.params!.progressToken === "p-1"));
  assert.ok(c.messages.indexOf(progress.at(-1)!) < c.messages.indexOf(reply));
});

test("a 5 MB reply arrives as one whole line", async () => {
  const c = open();
  const reply = await c.request(
    "tools/call",
    modern({ name: "big", arguments: { size: 5_000_000 } }),
  );
  const text = (reply.result?.content as { text: string }[])[0].text;
  assert.equal(text.length, 5_000_000);
  assert.ok(
    text.endsWith(
      ("0123456789abcdefghijklmnopqrstuvwxyz\u00e9\u4e2d".repeat(200_000)).slice(
        4_999_980,
        5_000_000,
      ),
    ),
  );
});

test("a 12 MB request line is read and answered", async () => {
  const c = open();
  const text = "x".repeat(12 * 1024 * 1024);
  const reply = await c.request(
    "tools/call",
    modern({ name: "echo", arguments: { text } }),
    30_000,
  );
  assert.equal((reply.result?.content as { text: string }[])[0].text.length, text.length);
});

test("a line over --max-line-mb is refused with its id, and the next request is served", async () => {
  const c = open(undefined, ["--max-line-mb", "1"]);
  const huge = JSON.stringify({
    jsonrpc: "2.0",
    id: "too-big",
    method: "tools/call",
    params: modern({ name: "echo", arguments: { text: "y".repeat(2_000_000) } }),
  });
  c.sendLine(huge);
  const refused = await c.responseTo("too-big");
  assert.equal(refused.error?.code, -32600);
  assert.match(refused.error!.message, /over this server's limit of 1048576/);
  assert.deepEqual((await c.request("ping")).result, {});
});

test("a result JSON cannot encode becomes -32603 on the wire; the process survives", async () => {
  const c = open();
  const reply = await c.request("tools/call", modern({ name: "unencodable", arguments: {} }));
  assert.equal(reply.error?.code, -32603);
  assert.deepEqual((await c.request("ping")).result, {});
});

test("arguments with 20,000 unknown fields get a short, capped error", async () => {
  const c = open(PRODUCT_BINARY);
  const args: Record<string, unknown> = { command: "true" };
  for (let i = 0; i < 20_000; i++) args[`field${i}`] = i;
  const reply = await c.request("tools/call", modern({ name: "bash", arguments: args }));
  const text = (reply.result?.content as { text: string }[])[0].text;
  assert.equal(reply.result?.isError, true);
  assert.match(text, /field0 is not a known field/);
  assert.match(text, /\.\.\. and 19980 more problems/);
  assert.ok(text.length < 10_000, `${text.length} characters`);
});

test(
  "a 300 KB command (a big heredoc) runs: it does not fit in argv",
  posixOnly("a 300 KB heredoc: Windows refuses a command line over 32,767 characters"),
  async () => {
    const c = open(PRODUCT_BINARY);
    const body = "some text for the file\n".repeat(12_500);
    const command = `wc -c <<'END_OF_TEXT'\n${body}END_OF_TEXT`;
    const reply = await c.request("tools/call", modern({ name: "bash", arguments: { command } }));
    assert.equal(reply.result?.isError, undefined, JSON.stringify(reply.result));
    assert.match(JSON.stringify(reply.result?.content), new RegExp(`${body.length}\\\\n`));
  },
);

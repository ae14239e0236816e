import assert from "node:assert/strict";
import { test } from "node:test";
import { decodeLine, peekTopLevelId } from "../../mcp/wire/jsonrpc.ts";

function replyOf(line: string) {
  const decoded = decodeLine(line);
  assert.equal(decoded.kind, "invalid", `expected ${line} to be rejected`);
  return (decoded as { reply: { id: unknown; error: { code: number; message: string } } }).reply;
}

test("a request, a notification and a response are told apart", () => {
  assert.equal(decodeLine('{"jsonrpc":"2.0","id":1,"method":"ping"}').kind, "request");
  assert.equal(decodeLine('{"jsonrpc":"2.0","id":"a","method":"x","params":{}}').kind, "request");
  assert.equal(
    decodeLine('{"jsonrpc":"2.0","method":"notifications/initialized"}').kind,
    "notification",
  );
  assert.equal(decodeLine('{"jsonrpc":"2.0","id":7,"result":{}}').kind, "response");
  assert.equal(
    decodeLine('{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"m"}}').kind,
    "response",
  );
});

test("an array is a batch, left to the server to accept or refuse", () => {
  const decoded = decodeLine('[{"jsonrpc":"2.0","id":1,"method":"ping"}]');
  assert.equal(decoded.kind, "batch");
});

test("text that is not JSON is a parse error with id null", () => {
  const reply = replyOf('{"jsonrpc":"2.0","id":1,"method":');
  assert.equal(reply.error.code, -32700);
  assert.equal(reply.id, null);
});

test("JSON that is not a request is -32600, keeping the id when it is usable", () => {
  assert.equal(replyOf("42").error.code, -32600);
  assert.equal(replyOf("null").error.code, -32600);
  const noVersion = replyOf('{"id":3,"method":"ping"}');
  assert.deepEqual([noVersion.error.code, noVersion.id], [-32600, 3]);
  const wrongVersion = replyOf('{"jsonrpc":"1.0","id":"x","method":"ping"}');
  assert.deepEqual([wrongVersion.error.code, wrongVersion.id], [-32600, "x"]);
  assert.equal(replyOf('{"jsonrpc":"2.0","id":1,"method":5}').error.code, -32600);
  assert.equal(replyOf('{"jsonrpc":"2.0","id":1}').error.code, -32600);
});

test("ids must be strings or integers: each other kind is refused, saying what it was", () => {
  const said: Record<string, RegExp> = {
    "null": /not null \(MCP does not allow null ids\)/,
    "true": /not a boolean \(true\)$/,
    "{}": /not an object$/,
    "[1]": /not an array$/,
    "1.5": /not a fraction$/,
    "9007199254740993": /not an integer too large to keep exactly$/,
  };
  for (const [id, message] of Object.entries(said)) {
    const reply = replyOf(`{"jsonrpc":"2.0","id":${id},"method":"ping"}`);
    assert.equal(reply.error.code, -32600);
    assert.equal(reply.id, null);
    assert.match(reply.error.message, message, id);
    if (id !== "null") assert.doesNotMatch(reply.error.message, /null/, id);
  }
});

test("params must be an object: arrays are -32602, other values -32600", () => {
  assert.equal(replyOf('{"jsonrpc":"2.0","id":1,"method":"ping","params":[1]}').error.code, -32602);
  assert.equal(replyOf('{"jsonrpc":"2.0","id":1,"method":"ping","params":"x"}').error.code, -32600);
  assert.equal(
    replyOf('{"jsonrpc":"2.0","id":1,"method":"ping","params":null}').error.code,
    -32600,
  );
});

test("peekTopLevelId finds the top-level id, not one nested in params", () => {
  assert.equal(
    peekTopLevelId('{"jsonrpc":"2.0","id":42,"method":"tools/call","params":{"argu'),
    42,
  );
  assert.equal(peekTopLevelId('{"id":"req-\\"7","method":"x"'), 'req-"7');
  assert.equal(
    peekTopLevelId('{"method":"tools/call","params":{"arguments":{"id":5,"text":"aaaa'),
    null,
  );
  assert.equal(peekTopLevelId('{"params":{"id":5},"id":9,"method":"x","more'), 9);
  assert.equal(peekTopLevelId('{"method":"x","note":"\\"id\\": 3","id":4'), 4);
  assert.equal(peekTopLevelId('{"jsonrpc":"2.0","method":"x","params":{"text":"aaaa'), null);
});

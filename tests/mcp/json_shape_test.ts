import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, shapeProblem } from "../../mcp/wire/mod.ts";
import { decodeLine } from "../../mcp/wire/jsonrpc.ts";

const nested = (depth: number) => `${"[".repeat(depth)}${"]".repeat(depth)}`;

test("nesting up to the limit passes; one level more is refused", () => {
  assert.equal(shapeProblem(nested(MAX_JSON_DEPTH)), undefined);
  assert.match(shapeProblem(nested(MAX_JSON_DEPTH + 1))!, /nests deeper than 128 levels/);
});

test("brackets, braces and commas inside strings, escaped quotes included, are not counted", () => {
  const text = JSON.stringify({ a: `\\"${"[{,".repeat(MAX_JSON_VALUES)}\\` });
  assert.equal(shapeProblem(text), undefined);
  assert.equal(shapeProblem(`["\\\\",${nested(MAX_JSON_DEPTH - 1)}]`), undefined);
  assert.match(shapeProblem(`["\\\\",${nested(MAX_JSON_DEPTH)}]`)!, /nests deeper/);
});

test("more values than the limit are refused, however flat", () => {
  assert.equal(shapeProblem(`[${"0,".repeat(MAX_JSON_VALUES - 1)}0]`), undefined);
  assert.match(shapeProblem(`[${"0,".repeat(MAX_JSON_VALUES)}0]`)!, /more than 500,000/);
});

test("a refused message is answered with its id when it can be found, before anything is built", () => {
  const decoded = decodeLine(`{"jsonrpc":"2.0","id":"deep","method":"x","params":${nested(500)}}`);
  assert.equal(decoded.kind, "invalid");
  const reply = (decoded as { reply: { id: unknown; error: { code: number; message: string } } })
    .reply;
  assert.equal(reply.id, "deep");
  assert.equal(reply.error.code, -32600);
  assert.match(reply.error.message, /refused unparsed: it nests deeper than 128 levels/);
  // An unterminated string is left to JSON.parse, which says what is wrong.
  assert.equal(shapeProblem(`{"a":"${"x".repeat(200)}`), undefined);
});

/** What a grant of scopes allows (mcp/wire/grant.ts), message by message. */
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  expired,
  type Grant,
  mayCall,
  missingForMessage,
  missingScope,
  type ToolKind,
} from "../../mcp/wire/grant.ts";
import { decodeLine } from "../../mcp/wire/jsonrpc.ts";

const grant = (...scopes: string[]): Grant => ({
  scopes: new Set(scopes),
  readScope: "r",
  writeScope: "w",
});
const kindOf: ToolKind = (name) =>
  name === "look" ? "read-only" : name === "change" ? "changes" : undefined;
const call = (name: string) => ({ name, arguments: {} });

test("the write scope allows everything; the read scope all but tools that change things", () => {
  assert.equal(missingScope(grant("w"), "tools/call", call("change"), kindOf), undefined);
  assert.equal(missingScope(grant("r"), "tools/call", call("change"), kindOf), "w");
  assert.equal(missingScope(grant("r"), "tools/call", call("look"), kindOf), undefined);
  // An unknown tool is left to say so itself (the read scope reaches its error).
  assert.equal(missingScope(grant("r"), "tools/call", call("nope"), kindOf), undefined);
  for (const method of ["resources/read", "prompts/get", "completion/complete", "ping"]) {
    assert.equal(missingScope(grant("r"), method, {}, kindOf), undefined, method);
    assert.equal(missingScope(grant("other"), method, {}, kindOf), "r", method);
  }
  assert.equal(missingScope(grant(), "tools/call", call("look"), kindOf), "r");
  assert.ok(mayCall(grant("r"), "read-only") && !mayCall(grant("r"), "changes"));
  assert.ok(mayCall(grant("w"), "changes") && !mayCall(grant(), "read-only"));
});

test("a message: a batch needs the most any request needs; notifications need the read scope", () => {
  const batch = decodeLine(JSON.stringify([
    { jsonrpc: "2.0", id: 1, method: "tools/call", params: call("look") },
    { jsonrpc: "2.0", id: 2, method: "tools/call", params: call("change") },
  ]));
  assert.equal(missingForMessage(grant("r"), batch, kindOf), "w");
  assert.equal(missingForMessage(grant("w"), batch, kindOf), undefined);
  const note = decodeLine('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  assert.equal(missingForMessage(grant(), note, kindOf), "r");
  assert.equal(missingForMessage(grant("r"), note, kindOf), undefined);
  assert.equal(missingForMessage(grant(), decodeLine("{not json"), kindOf), undefined);
});

test("a grant with an expiry runs out then", () => {
  const until = { ...grant("w"), expiresAt: 1_000 };
  assert.equal(expired(until, 999), false);
  assert.equal(expired(until, 1_000), true);
  assert.equal(expired(grant("w")), false);
});

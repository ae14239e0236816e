/** The cache of token judgements: kept until the token's exp or the time given, 1,000 at most. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { JudgementCache, tokenDigest } from "../../mcp/http/auth/_judgement_cache.ts";

test("a judgement is kept for its time, never past the token's exp, and keyed by digest only", () => {
  const cache = new JudgementCache();
  const now = Math.floor(Date.now() / 1000);
  const lasting = { payload: { sub: "a", exp: now + 3600 } };
  const expired = { payload: { sub: "b", exp: now - 1 } };
  cache.remember(tokenDigest("token-a"), lasting, 60_000);
  cache.remember(tokenDigest("token-b"), expired, 60_000);
  cache.remember(tokenDigest("token-c"), { invalid: "no" }, -1);
  assert.equal(cache.get(tokenDigest("token-a")), lasting);
  assert.equal(cache.get(tokenDigest("token-b")), undefined, "past exp");
  assert.equal(cache.get(tokenDigest("token-c")), undefined, "past its time");
  assert.ok(!tokenDigest("token-a").includes("token"));
});

test("past 1,000 judgements the oldest go first", () => {
  const cache = new JudgementCache();
  for (let i = 0; i < 1001; i++) cache.remember(`k${i}`, { payload: { sub: `${i}` } }, 60_000);
  assert.equal(cache.get("k0"), undefined);
  assert.ok(cache.get("k1"));
  assert.ok(cache.get("k1000"));
});

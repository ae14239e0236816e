/** The cache fetch_url keeps pages in: entries expire, and the oldest go first over budget. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { TtlCache } from "../../../tools/web/_lib/ttl_cache.ts";

test("entries expire after their time and the oldest go first when over budget", () => {
  let now = 1000;
  const cache = new TtlCache<string>(100, 10, (value) => value.length, () => now);
  cache.set("a", "aaaa");
  cache.set("b", "bbbb");
  assert.equal(cache.get("a")?.value, "aaaa");
  cache.set("c", "cccc");
  assert.equal(cache.get("a"), undefined, "over the budget of 10, the oldest went");
  assert.equal(cache.get("b")?.value, "bbbb");
  assert.equal(cache.size, 8);
  now += 100;
  assert.equal(cache.get("b"), undefined, "expired");
  cache.set("huge", "x".repeat(11));
  assert.equal(cache.get("huge"), undefined, "a value over the whole budget is not kept");
});

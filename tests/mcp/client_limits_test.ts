/** Per-client allowances for new tokens (mcp/http/auth/_client_limits.ts): a bucket and a count. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ClientLimits } from "../../mcp/http/auth/_client_limits.ts";

test("a client spends its burst, then gets one question per refill; others keep their own", () => {
  let now = 0;
  const limits = new ClientLimits({ perSecond: 5, burst: 3, inFlight: 10 }, () => now);
  const taken = [1, 2, 3, 4].map(() => limits.take("a"));
  assert.deepEqual(taken.map((done) => done !== undefined), [true, true, true, false]);
  assert.equal(limits.retryAfter("a"), 1);
  assert.ok(limits.take("b"), "another address has its own burst");
  now += 200; // one refill at 5 a second
  assert.ok(limits.take("a"));
  assert.equal(limits.take("a"), undefined);
});

test("questions in flight count until answered", () => {
  const limits = new ClientLimits({ perSecond: 100, burst: 100, inFlight: 2 }, () => 0);
  const first = limits.take("a")!;
  assert.ok(limits.take("a"));
  assert.equal(limits.take("a"), undefined);
  first();
  first(); // a second call gives back nothing more
  assert.ok(limits.take("a"));
  assert.equal(limits.take("a"), undefined);
});

test("addresses are forgotten past the bound, least recently seen first", () => {
  const limits = new ClientLimits(
    { perSecond: 1, burst: 1, inFlight: 5, maxClients: 2 },
    () => 0,
  );
  limits.take("a")!();
  limits.take("b")!();
  assert.equal(limits.take("a"), undefined, "a has spent its burst");
  limits.take("c")!(); // b, seen least recently, is forgotten
  assert.ok(limits.take("b"), "b starts again with a full bucket");
});

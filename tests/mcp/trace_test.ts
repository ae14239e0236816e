/**
 * Reading W3C trace context from `_meta` (mcp/wire/trace.ts): what is kept, what is dropped
 * whole.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { MAX_BAGGAGE, traceOf, traceTag, withTraceEnv } from "../../mcp/wire/trace.ts";

const PARENT = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";

test("a well-formed traceparent, tracestate and baggage are kept as sent", () => {
  assert.deepEqual(traceOf({ traceparent: PARENT, tracestate: "a=1,b=2", baggage: "k=v" }), {
    traceparent: PARENT,
    tracestate: "a=1,b=2",
    baggage: "k=v",
  });
  assert.equal(traceOf({}), undefined);
  assert.equal(traceOf({ progressToken: 1 }), undefined);
});

test("malformed traceparents are dropped, and the tracestate with them", () => {
  for (
    const bad of [
      PARENT.toUpperCase(),
      "ff" + PARENT.slice(2),
      "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
      "00-0af7651916cd43dd8448eb211c80319c-0000000000000000-01",
      PARENT + "-extra",
      PARENT.slice(0, -1),
      "x".repeat(100_000),
      42,
      null,
    ]
  ) {
    assert.equal(traceOf({ traceparent: bad, tracestate: "a=1" }), undefined, String(bad));
  }
});

test("a later version is read by its version-00 fields", () => {
  const later = "01" + PARENT.slice(2) + "-what-comes-next";
  assert.equal(traceOf({ traceparent: later })?.traceparent, "01" + PARENT.slice(2));
});

test("oversized or unprintable lists are dropped whole, not cut", () => {
  const trace = traceOf({
    traceparent: PARENT,
    tracestate: "a=" + "x".repeat(600),
    baggage: "k=" + "v".repeat(MAX_BAGGAGE),
  });
  assert.deepEqual(trace, { traceparent: PARENT });
  assert.deepEqual(traceOf({ traceparent: PARENT, baggage: "a=1\nb=2" }), { traceparent: PARENT });
  assert.deepEqual(traceOf({ baggage: "k=v" }), { baggage: "k=v" });
});

test("the environment carrier and the log tag", () => {
  const env = withTraceEnv({ PATH: "/bin", TRACESTATE: "old=1" }, { traceparent: PARENT });
  assert.deepEqual(env, { PATH: "/bin", TRACEPARENT: PARENT });
  const same = { PATH: "/bin" };
  assert.equal(withTraceEnv(same, undefined), same);
  assert.equal(traceTag({ traceparent: PARENT }), ` [traceparent ${PARENT}]`);
  assert.equal(traceTag(undefined), "");
});

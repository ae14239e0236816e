/**
 * One budget of calls in flight for all of an --http server's sessions, and one large body at a
 * time (issue 36 §4; mcp/http/admission.ts, mcp/http/body_budget.ts): seen from outside through
 * the test binary's `crowd` fixture, which reports how many of its calls ran at once at most.
 * Before, each session was bounded alone, so 40 sessions × 10 calls of 100 KB replies all ran at
 * once (400), and six 4 MB bodies were read and run together. The calls are short (20 ms), far
 * from the half second after which a call gives its place back (a busy machine stretches them,
 * but not that far).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { openLegacySession, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { TEST_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

/** Characters of replies the calls in flight may build (mcp/server/read_ahead.ts's IN_FLIGHT_CHARS). */
const IN_FLIGHT_CHARS = 2 << 20;
const REPLY_CHARS = 100_000;

/** A legacy session over HTTP: initialize, then one POST per call. */
async function session(url: string) {
  const own = await openLegacySession(url, "application/json");
  let next = 1;
  return {
    /** A crowd call: its `most=N` and the reply's HTTP status. */
    async crowd(args: Record<string, unknown>): Promise<{ most: number; status: number }> {
      const response = await fetch(url, {
        method: "POST",
        headers: own,
        body: JSON.stringify({
          jsonrpc: "2.0",
          id: next++,
          method: "tools/call",
          params: { name: "crowd", arguments: args },
        }),
      });
      const text = await response.text();
      return { most: Number(/most=(\d+)/.exec(text)?.[1] ?? NaN), status: response.status };
    },
  };
}

test("calls of 40 sessions at once run within one budget for the server, and every one is answered", async () => {
  const server = await startHttpServer(TEST_BINARY, ["--root", e2e.scratch("admission")]);
  try {
    const sessions = await Promise.all(Array.from({ length: 40 }, () => session(server.url)));
    // The budget goes by the size replies have had lately: a few of 100 KB first.
    for (let i = 0; i < 40; i++) {
      await sessions[0].crowd({ group: "warm", size: REPLY_CHARS });
    }
    const replies = await Promise.all(
      sessions.flatMap((s) =>
        Array.from({ length: 10 }, () => s.crowd({ group: "burst", ms: 20, size: REPLY_CHARS }))
      ),
    );
    assert.deepEqual(replies.filter((r) => r.status !== 200 || !(r.most > 0)), []);
    const most = Math.max(...replies.map((r) => r.most));
    // Replies of 100 KB (and their JSON): about 20 at once.
    assert.ok(most <= IN_FLIGHT_CHARS / REPLY_CHARS + 4, `${most} of 400 calls ran at once`);
    assert.ok(most >= 8, `${most} ran at once: at least 8 always may`);
  } finally {
    await server.terminate();
  }
});

test("request bodies over 1 MiB are read and run one at a time, whoever sends them", async () => {
  const server = await startHttpServer(TEST_BINARY, ["--root", e2e.scratch("bodies")]);
  try {
    const sessions = await Promise.all(Array.from({ length: 6 }, () => session(server.url)));
    const pad = "p".repeat(4 << 20);
    // Small calls beside them: not held back behind them, they run together.
    const [large, small] = await Promise.all([
      Promise.all(sessions.map((s) => s.crowd({ group: "large", ms: 200, pad }))),
      Promise.all(sessions.map((s) => s.crowd({ group: "small", ms: 500 }))),
    ]);
    assert.deepEqual([...large, ...small].map((r) => r.status), Array(12).fill(200));
    assert.equal(Math.max(...large.map((r) => r.most)), 1);
    assert.ok(Math.max(...small.map((r) => r.most)) > 1);
  } finally {
    await server.terminate();
  }
});

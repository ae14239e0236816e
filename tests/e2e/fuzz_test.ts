/**
 * Fuzzing the wire: thousands of random and mutated lines into the binary. It must not crash,
 * must answer every well-formed request exactly once (and correctly), and stdout must stay pure.
 * The seed is printed so a failure can be replayed with TOOLHOST_FUZZ_SEED.
 */
import assert from "node:assert/strict";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, TEST_BINARY } from "../helpers/raw_client.ts";

const e2e = e2eFixture();

/** mulberry32: small, seedable, good enough to pick test cases. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ALPHABET = 'abc{}[]":,\\ 0123456789-.eEtrufalsn\t\r\u0000\u001f\u00e9\u4e2d\u{1f600}\u2028';

test("fuzz: random and mutated lines never crash the server or dirty stdout", async () => {
  const seed = Number(process.env.TOOLHOST_FUZZ_SEED ?? Date.now() % 1_000_000);
  console.log(`fuzz seed ${seed} (replay with TOOLHOST_FUZZ_SEED=${seed})`);
  const rand = random(seed);
  const pick = <T>(items: readonly T[]) => items[Math.floor(rand() * items.length)];
  const int = (n: number) => Math.floor(rand() * n);
  const randomText = (max: number) =>
    Array.from({ length: int(max) }, () => pick([...ALPHABET])).join("");

  let tracked = 0;
  const expected = new Map<string, string | null>(); // id → echoed text, or null for "any reply"
  const wellFormed = (): string => {
    const id = `tracked-${tracked++}`;
    switch (int(4)) {
      case 0:
        expected.set(id, null);
        return JSON.stringify({ jsonrpc: "2.0", id, method: "ping" });
      case 1:
        expected.set(id, null);
        return JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: pick(["tools/list", "no/such/method"]),
          params: modern(),
        });
      default: {
        const text = randomText(200);
        expected.set(id, text);
        return JSON.stringify({
          jsonrpc: "2.0",
          id,
          method: "tools/call",
          params: modern({ name: "echo", arguments: { text } }),
        });
      }
    }
  };
  const mutated = (): string => {
    let line = JSON.stringify({
      jsonrpc: "2.0",
      id: `mutant-${int(1e6)}`,
      method: pick(["ping", "tools/list", "tools/call", "initialize", "notifications/cancelled"]),
      params: modern({ name: "echo", arguments: { text: randomText(20) }, requestId: int(5) }),
    });
    for (let edits = 1 + int(3); edits > 0; edits--) {
      const at = int(line.length);
      const op = int(3);
      if (op === 0) line = line.slice(0, at) + line.slice(at + 1 + int(5));
      else if (op === 1) line = line.slice(0, at) + randomText(4) + line.slice(at);
      else line = line.slice(0, at) + pick([...ALPHABET]) + line.slice(at + 1);
    }
    return line.replaceAll("\n", " ");
  };
  const garbage = (): string => {
    switch (int(5)) {
      case 0:
        return randomText(300);
      case 1:
        return "[".repeat(1 + int(20_000)) + "]".repeat(int(3)); // deep nesting
      case 2:
        return JSON.stringify(
          pick([null, 1, -0.5, "s", true, [], {}, [1, { a: [] }], { jsonrpc: "2.0" }]),
        );
      case 3:
        return JSON.stringify({
          jsonrpc: "2.0",
          method: `notifications/${randomText(8)}`,
          params: { x: randomText(10) },
        });
      default:
        return JSON.stringify([
          { jsonrpc: "2.0", id: `mutant-batch-${int(1e6)}`, method: "ping" },
          randomText(5),
        ]);
    }
  };

  const cwd = e2e.scratch("fuzz");
  const c = e2e.server({ binary: TEST_BINARY, cwd });
  await c.initialize("2025-03-26"); // so that batches are processed, not just refused
  const lines: string[] = [];
  for (let i = 0; i < 5000; i++) {
    const kind = rand();
    lines.push(kind < 0.35 ? wellFormed() : kind < 0.75 ? mutated() : garbage());
  }
  // Several lines per write, so lines also straddle chunk boundaries.
  for (let i = 0; i < lines.length; i += 50) {
    c.child.stdin!.write(lines.slice(i, i + 50).join("\n") + "\n");
  }
  const last = `tracked-${tracked - 1}`;
  await c.responseTo(last, 60_000);
  await Promise.all([...expected.keys()].map((id) => c.responseTo(id, 20_000)));

  for (const [id, text] of expected) {
    const replies = c.messages.filter((m) => m.id === id);
    assert.equal(replies.length, 1, `exactly one reply to ${id}`);
    if (text !== null) {
      assert.deepEqual(replies[0].result?.content, [{ type: "text", text }], `echo of ${id}`);
    }
  }
  const status = await c.close();
  assert.deepEqual(
    status,
    { code: 0, signal: null },
    `server exit; stderr tail: ${c.stderr.slice(-2000)}`,
  );
  assert.deepEqual(c.strayLines, [], "stdout carried only JSON-RPC");
  assert.equal(c.unterminated, "");
  assert.ok(c.messages.every((m) => m.jsonrpc === "2.0"), "every message is JSON-RPC 2.0");
  // The input really was hostile: all kinds of rejection happened, and batches were answered.
  const codes = new Set(c.messages.map((m) => m.error?.code));
  for (const code of [-32700, -32600, -32601, -32602]) {
    assert.ok(codes.has(code), `saw error ${code}`);
  }
  assert.ok(c.batches.length > 0, "batch replies");
});

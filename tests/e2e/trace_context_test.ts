/**
 * Trace context (SEP-414) through the compiled binary: the traceparent, tracestate and baggage a
 * client puts in a tools/call's `_meta` reach the command bash starts (TRACEPARENT, TRACESTATE,
 * BAGGAGE, as OpenTelemetry's environment carrier names them), the call's journal entry and its
 * log lines; a malformed or oversized one is dropped, never echoed. Driven by the official
 * legacy client (@modelcontextprotocol/sdk), the 2026-07-28 one (@modelcontextprotocol/client)
 * and raw lines.
 */
import assert from "node:assert/strict";
import { mkdtempSync, readdirSync, readFileSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { Client as LegacyClient } from "@modelcontextprotocol/sdk/client";
// The SDK's "./*" export maps types to "*.js.d.ts", which does not exist; name the types here.
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport as LegacyStdio } from "@modelcontextprotocol/sdk/client/stdio.js";
import { Client } from "@modelcontextprotocol/client";
import { StdioClientTransport } from "@modelcontextprotocol/client/stdio";
import {
  binary,
  isolatedEnv,
  PRODUCT_BINARY,
  RawClient,
  TEST_BINARY,
} from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const TRACEPARENT = "00-0af7651916cd43dd8448eb211c80319c-00f067aa0ba902b7-01";
const TRACESTATE = "congo=t61rcWkgMzE,rojo=00f067aa0ba902b7";
const BAGGAGE = "userId=alice,step=42";
const PRINT = 'printf "%s|%s|%s" "$TRACEPARENT" "$TRACESTATE" "$BAGGAGE"';

const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));

function journalLines(state: string): Record<string, unknown>[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name === "journal.jsonl") found.push(path);
    }
  };
  walk(state);
  return found.flatMap((file) =>
    readFileSync(file, "utf8").split("\n").filter(Boolean).map((line) => JSON.parse(line))
  );
}

test(
  "raw lines: the trace reaches the command and the journal; a malformed one is dropped",
  posixOnly("the command reads its environment with sh"),
  async () => {
    const root = scratch("trace-root");
    const state = scratch("trace-state");
    // What toolhost itself inherited stays for calls without a trace of their own.
    const c = new RawClient(PRODUCT_BINARY, ["--root", root], root, {
      TOOLHOST_STATE_DIR: state,
      TRACEPARENT: "00-11111111111111111111111111111111-2222222222222222-00",
      TRACESTATE: "inherited=1",
    });
    clients.push(c);
    const traced = (await callTool(c, "bash", { command: PRINT }, {
      meta: {
        traceparent: TRACEPARENT,
        tracestate: TRACESTATE,
        baggage: BAGGAGE,
      },
    })).text;
    assert.match(traced, new RegExp(`^${TRACEPARENT}\\|${TRACESTATE}\\|${BAGGAGE}`));
    const junk = "00-" + "Z".repeat(5000);
    const dropped = (await callTool(c, "bash", { command: PRINT }, {
      meta: { traceparent: junk, tracestate: "x=1", baggage: "\u0000bad" },
    })).text;
    assert.match(
      dropped,
      /^00-11111111111111111111111111111111-2222222222222222-00\|inherited=1\|/,
    );
    const zeros = (await callTool(c, "bash", { command: PRINT }, {
      meta: {
        traceparent: "00-00000000000000000000000000000000-00f067aa0ba902b7-01",
        tracestate: "a=1",
      },
    })).text;
    assert.match(zeros, /^00-1111/);
    // Without its traceparent, a tracestate means nothing: the inherited pair stays whole.
    assert.match(zeros, /\|inherited=1\|/);
    await c.close();
    const entries = journalLines(state).filter((e) => e.tool === "bash");
    assert.equal(entries.length, 3);
    assert.deepEqual(entries[0].trace, {
      traceparent: TRACEPARENT,
      tracestate: TRACESTATE,
      baggage: BAGGAGE,
    });
    assert.equal(entries[1].trace, undefined);
    assert.equal(entries[2].trace, undefined);
    assert.ok(!c.stderr.includes("ZZZZ"), "the malformed traceparent is not echoed");
  },
);

test("raw lines: a call's log lines on stderr name its traceparent", async () => {
  const c = new RawClient(TEST_BINARY);
  clients.push(c);
  await c.initialize("2025-11-25");
  const reply = await c.request("tools/call", {
    name: "logs",
    arguments: {},
    _meta: { traceparent: TRACEPARENT },
  });
  assert.ok(reply.result, JSON.stringify(reply.error));
  await c.request("tools/call", { name: "logs", arguments: {}, _meta: { traceparent: "nope" } });
  await c.close();
  const lines = c.stderr.split("\n").filter((line) => line.includes("a warning message"));
  assert.equal(lines.length, 2, c.stderr);
  assert.ok(lines[0].includes(`[traceparent ${TRACEPARENT}]`), lines[0]);
  assert.ok(!lines[1].includes("traceparent"), lines[1]);
  assert.ok(!c.stderr.includes("nope"));
});

test(
  "the legacy SDK client's _meta trace reaches bash",
  posixOnly("the command reads its environment with sh"),
  async () => {
    const client = new LegacyClient({ name: "trace-legacy", version: "1.0.0" });
    await client.connect(
      new LegacyStdio({ command: binary(PRODUCT_BINARY), env: isolatedEnv(), stderr: "pipe" }),
    );
    try {
      const result = await client.callTool({
        name: "bash",
        arguments: { command: PRINT },
        _meta: { traceparent: TRACEPARENT, baggage: BAGGAGE },
      });
      const text = (result.content as { text: string }[])[0].text;
      assert.match(text, new RegExp(`^${TRACEPARENT}\\|\\|${BAGGAGE}`));
    } finally {
      await client.close();
    }
  },
);

test(
  "the 2026-07-28 SDK client's _meta trace reaches bash",
  posixOnly("the command reads its environment with sh"),
  async () => {
    const client = new Client(
      { name: "trace-modern", version: "1.0.0" },
      { versionNegotiation: { mode: { pin: "2026-07-28" } } },
    );
    await client.connect(
      new StdioClientTransport({
        command: binary(PRODUCT_BINARY),
        env: isolatedEnv(),
        stderr: "pipe",
      }),
    );
    try {
      const result = await client.callTool({
        name: "bash",
        arguments: { command: PRINT },
        _meta: { traceparent: TRACEPARENT, tracestate: TRACESTATE },
      });
      const text = (result.content as { text: string }[])[0].text;
      assert.match(text, new RegExp(`^${TRACEPARENT}\\|${TRACESTATE}\\|`));
    } finally {
      await client.close();
    }
  },
);

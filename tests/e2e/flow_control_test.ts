/**
 * How far the binary reads ahead of its answers on stdio (mcp/server/read_ahead.ts): at most 256
 * requests run at once, the rest wait in order (a cancellation still reaches them), and a flood of
 * pipelined requests is answered in full without the server's memory growing with it.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { isolatedEnv, modern, PRODUCT_BINARY, TEST_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const e2e = e2eFixture();

const slowCall = (id: number, ms: number) => ({
  jsonrpc: "2.0",
  id,
  method: "tools/call",
  params: modern({ name: "slow", arguments: { ms, step_ms: 50 } }),
});

/** The highest resident set size the process has reached, in MB (10^6 bytes). */
function peakRssMb(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(kb![1]) * 1024 / 1e6;
}

test("past 256 unanswered requests, the next ones wait in order; a queued one can be cancelled", async () => {
  const c = e2e.server({ binary: TEST_BINARY });
  try {
    const started = Date.now();
    const lines: string[] = [];
    for (let id = 1; id <= 256; id++) lines.push(JSON.stringify(slowCall(id, 1500)));
    for (let id = 257; id <= 300; id++) lines.push(JSON.stringify(slowCall(id, 0)));
    c.sendLine(lines.join("\n"));
    // Behind 44 queued calls: a cancellation for one of them, read at once.
    c.notify("notifications/cancelled", { requestId: 280, reason: "changed my mind" });
    const quick = await c.responseTo(257, 10_000);
    const waited = Date.now() - started;
    assert.match(JSON.stringify(quick.result), /slept 0 ms/);
    assert.ok(waited >= 1_200, `a queued call was answered after ${waited} ms, before room freed`);
    for (let id = 1; id <= 300; id++) {
      if (id !== 280) assert.ok((await c.responseTo(id, 10_000)).result, `reply to ${id}`);
    }
    // Everything else is answered; the cancelled one never ran and got no reply.
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(c.messages.filter((m) => m.id === 280).length, 0);
    assert.match(c.stderr, /request 280 .*cancelled by the client before it started/);
  } finally {
    await c.close();
  }
});

test("requests still waiting at end of input are answered before the server exits", async () => {
  const c = e2e.server({ binary: TEST_BINARY });
  const lines: string[] = [];
  for (let id = 1; id <= 300; id++) lines.push(JSON.stringify(slowCall(id, id <= 256 ? 500 : 0)));
  c.sendLine(lines.join("\n"));
  c.closeStdin();
  const { code } = await c.close();
  assert.equal(code, 0);
  for (let id = 1; id <= 300; id++) {
    const reply = c.messages.find((m) => m.id === id);
    assert.ok(reply?.result, `reply to ${id}: ${JSON.stringify(reply)}`);
  }
});

test(
  "100,000 pipelined tool calls are all answered, and the server's memory stays bounded",
  posixOnly("reads the server's peak memory from /proc/PID/status"),
  async () => {
    const n = 100_000;
    // A legacy session read as fast as it is written: unbounded, the server started every request
    // at once (about 400 MB).
    const lines = [
      JSON.stringify({
        jsonrpc: "2.0",
        id: 0,
        method: "initialize",
        params: {
          protocolVersion: "2025-06-18",
          capabilities: {},
          clientInfo: { name: "flood", version: "1" },
        },
      }),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
    ];
    for (let id = 1; id <= n; id++) {
      lines.push(
        `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"bash_list","arguments":{}}}`,
      );
    }
    // Written by cat, as fast as the pipe takes it (this test's own writes would be slower), and
    // kept open until the test ends its stdin; `exec` leaves the binary as the child itself.
    const file = join(e2e.scratch("flood"), "requests.jsonl");
    writeFileSync(file, lines.join("\n") + "\n");
    const child = spawn("bash", ["-c", 'exec "$1" < <(cat "$0" -)', file, PRODUCT_BINARY], {
      env: { ...process.env, ...isolatedEnv() },
      stdio: ["pipe", "pipe", "ignore"],
    });
    let results = 0;
    let peak = 0;
    const done = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${results} results after 60 s`)), 60_000);
      let partial = "";
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", (text: string) => {
        const got = (partial + text).split("\n");
        partial = got.pop()!;
        for (const line of got) if (line.includes('"result"')) results++;
        if (results === n + 1) {
          peak = peakRssMb(child.pid!);
          clearTimeout(timer);
          resolve();
        }
      });
    });
    try {
      await done;
    } finally {
      child.stdin!.end();
      child.kill();
    }
    assert.ok(peak < 200, `peak RSS ${peak.toFixed(0)} MB`);
  },
);

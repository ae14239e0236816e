/**
 * The binary's peak resident memory (VmHWM) under bursts a client can send over stdio stays within
 * the promise (docs/security.md: 150 MB), and every request is still answered exactly once:
 * pipelined read_file calls (each scan's buffer sized to the file, a few scans at a time, fewer
 * requests in flight while replies are large, garbage collected in step with the work) and one
 * line that would build millions of nested arrays (refused before it is parsed). The figures are
 * memory, never time: these tests hold on a loaded machine.
 */
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { isolatedEnv, PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const PROMISED_PEAK_MB = 150;

const INITIALIZE = JSON.stringify({
  jsonrpc: "2.0",
  id: 0,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "burst", version: "1" },
  },
});

const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "tools/call", params: { name, arguments: args } });

interface Burst {
  peakMb: number;
  /** Each reply line by its id ("null" for an error whose id could not be read). */
  replies: Map<string, string[]>;
}

/**
 * Sends initialize and `lines` through `cat` (as fast as the pipe takes them) to a fresh binary
 * rooted at `root`, reads replies until `expected` of them (initialize's included) have come,
 * then reads VmHWM before stdin closes.
 */
async function burst(root: string, lines: string[], expected: number): Promise<Burst> {
  const file = join(root, "requests.jsonl");
  writeFileSync(file, [INITIALIZE, ...lines].join("\n") + "\n");
  const child = spawn(
    "bash",
    ["-c", 'exec "$1" --root "$2" < <(cat "$0" -)', file, PRODUCT_BINARY, root],
    { env: { ...process.env, ...isolatedEnv() }, stdio: ["pipe", "pipe", "ignore"] },
  );
  child.stdin!.on("error", () => {});
  const replies = new Map<string, string[]>();
  let count = 0;
  try {
    const peakMb = await new Promise<number>((resolve, reject) => {
      child.once("exit", (code) => reject(new Error(`exited (${code}) after ${count} replies`)));
      let partial = "";
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", (text: string) => {
        const got = (partial + text).split("\n");
        partial = got.pop()!;
        for (const line of got) {
          const id = /^\{"jsonrpc":"2\.0","id":(\d+|null),/.exec(line)?.[1];
          if (id === undefined) continue;
          replies.set(id, [...(replies.get(id) ?? []), line.slice(0, 2000)]);
          count++;
        }
        if (count >= expected) {
          const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${child.pid}/status`, "utf8"));
          resolve(Number(kb![1]) * 1024 / 1e6);
        }
      });
    });
    return { peakMb, replies };
  } finally {
    child.stdin!.end();
    child.kill("SIGKILL");
  }
}

function assertEachAnsweredOnce(replies: Map<string, string[]>, ids: number) {
  for (let id = 0; id <= ids; id++) {
    const got = replies.get(String(id)) ?? [];
    assert.equal(got.length, 1, `request ${id} answered ${got.length} times`);
    assert.match(got[0], /"result":/, `request ${id}: ${got[0]}`);
  }
}

test(
  "30,000 pipelined ping, list_roots and read_file calls of a tiny file stay within 150 MB",
  posixOnly("reads the server's peak memory from /proc/PID/status"),
  async () => {
    // Before: every read_file allocated a 1 MiB buffer and 256 ran at once (507 MB).
    const root = mkdtempSync(join(tmpdir(), "toolhost-burst-"));
    try {
      const path = join(root, "tiny.txt");
      writeFileSync(path, "one\ntwo\n");
      const n = 30_000;
      const lines: string[] = [];
      for (let id = 1; id <= n; id++) {
        lines.push(
          id % 3 === 0
            ? `{"jsonrpc":"2.0","id":${id},"method":"ping"}`
            : id % 3 === 1
            ? call(id, "list_roots", {})
            : call(id, "read_file", { path }),
        );
      }
      const { peakMb, replies } = await burst(root, lines, n + 1);
      assertEachAnsweredOnce(replies, n);
      assert.match(replies.get("2")![0], /one/);
      assert.ok(peakMb <= PROMISED_PEAK_MB, `peak RSS ${peakMb.toFixed(0)} MB`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  "3,000 pipelined read_file calls of a 100 KB file stay within 150 MB",
  posixOnly("reads the server's peak memory from /proc/PID/status"),
  async () => {
    // Before: 525 MB (256 scans at once, each with its buffer and lines, and the heap not
    // collected in step with the replies).
    const root = mkdtempSync(join(tmpdir(), "toolhost-burst-"));
    try {
      const path = join(root, "page.txt");
      writeFileSync(path, `${"x".repeat(99)}\n`.repeat(1000));
      const n = 3_000;
      const lines: string[] = [];
      for (let id = 1; id <= n; id++) lines.push(call(id, "read_file", { path }));
      const { peakMb, replies } = await burst(root, lines, n + 1);
      assertEachAnsweredOnce(replies, n);
      assert.ok(peakMb <= PROMISED_PEAK_MB, `peak RSS ${peakMb.toFixed(0)} MB`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

test(
  "a 16 MB line of nested brackets is refused unparsed, the next request is answered, memory stays within 150 MB",
  posixOnly("reads the server's peak memory from /proc/PID/status"),
  async () => {
    // Before: JSON.parse built 8 million nested arrays (1.35 GB, and it stayed resident).
    const root = mkdtempSync(join(tmpdir(), "toolhost-burst-"));
    try {
      const deep = `{"jsonrpc":"2.0","id":7,"method":"ping","params":{"x":${
        "[".repeat(16 << 20)
      }}}`;
      const { peakMb, replies } = await burst(
        root,
        [deep, '{"jsonrpc":"2.0","id":8,"method":"ping"}'],
        3,
      );
      const refused = replies.get("7") ?? [];
      assert.equal(refused.length, 1);
      assert.match(refused[0], /"code":-32600/);
      assert.match(refused[0], /refused unparsed: it nests deeper than 128 levels/);
      assert.deepEqual(replies.get("8"), ['{"jsonrpc":"2.0","id":8,"result":{}}']);
      assert.ok(peakMb <= PROMISED_PEAK_MB, `peak RSS ${peakMb.toFixed(0)} MB`);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  },
);

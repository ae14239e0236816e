/** The bash tool through the server: output, exit codes, stdin, timeouts, process groups. */
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import bash from "../../tools/shell/bash.ts";
import { harness, initializeParams, tick } from "../helpers/in_process.ts";
import { callTool } from "../helpers/tool_calls.ts";
import { isRunning } from "../helpers/processes.ts";

const test = posixOnlyTest(
  "bash syntax, process groups and /proc (the Windows shell has its own unit tests)",
);

type Result = {
  content: { text: string }[];
  structuredContent: {
    exitCode: number | null;
    signal: string | null;
    timedOut: boolean;
    truncated: boolean;
    durationMs: number;
  };
  isError?: boolean;
};

/** bash called in a legacy session of its own; `root`, when given, is the call's root (where its
 * commands may write). The result, and the connection for what it sent. */
async function run(args: Record<string, unknown>, meta?: Record<string, unknown>, root?: string) {
  const h = harness([bash], undefined, rootsOf(root));
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  const reply = await callTool(h, "bash", args, { legacy: true, meta });
  return { result: reply.result as unknown as Result, h };
}

/** A directory the commands write into: a root, since the sandbox keeps writes in the roots. */
const scratch = () => mkdtempSync(join(tmpdir(), "toolhost-bash-"));
const rootsOf = (root?: string) =>
  root ? { fixed: [root], fallback: [] } : { fixed: [], fallback: [process.cwd()] };

test("stdout and stderr come back interleaved in the order written, with the exit code", async () => {
  const { result } = await run({ command: "echo one; echo two >&2; echo three" });
  assert.equal(
    result.content[0].text,
    "one\ntwo\nthree\n\n[exit code 0 · " + result.structuredContent.durationMs + " ms]",
  );
  assert.equal(result.isError, undefined);
  assert.deepEqual(
    { ...result.structuredContent, durationMs: 0 },
    { exitCode: 0, signal: null, timedOut: false, truncated: false, durationMs: 0 },
  );
});

test("a non-zero exit is an error result carrying the code", async () => {
  const { result } = await run({ command: "echo failing; exit 7" });
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.exitCode, 7);
  assert.match(result.content[0].text, /failing\n\n\[exit code 7 · \d+ ms\]/);
});

test("stdin is closed: commands that read it get end-of-file at once", async () => {
  // Were stdin open, cat would wait for it until the call timed out, and nothing would be read.
  const { result } = await run({ command: 'cat; read line; echo "read:[$line]"' });
  assert.match(result.content[0].text, /^read:\[\]/);
  assert.notEqual(result.structuredContent.timedOut, true);
});

test("a timeout stops the whole process group, grandchildren included, and keeps the output so far", async () => {
  const dir = scratch();
  const { result } = await run(
    {
      command: `echo before; (sleep 30; echo never) & echo $! > ${dir}/pid; sleep 30`,
      timeout_ms: 400,
    },
    undefined,
    dir,
  );
  const grandchild = Number(readFileSync(join(dir, "pid"), "utf8"));
  assert.equal(result.isError, true);
  assert.equal(result.structuredContent.timedOut, true);
  assert.equal(result.structuredContent.exitCode, null);
  assert.equal(result.structuredContent.signal, "SIGTERM");
  assert.match(result.content[0].text, /^before\n/);
  assert.match(result.content[0].text, /Timed out after 400 ms/);
  await tick(100);
  assert.equal(isRunning(grandchild), false, "the background grandchild was killed too");
});

test("a command that ignores SIGTERM is killed with SIGKILL after the grace period", async () => {
  const started = Date.now();
  const { result } = await run({
    command: "trap '' TERM; echo stubborn; while :; do sleep 0.1; done",
    timeout_ms: 300,
  });
  const elapsed = Date.now() - started;
  assert.equal(result.structuredContent.signal, "SIGKILL");
  // Only the grace period is a bound: a busy machine may take any longer.
  assert.ok(elapsed >= 2000, `took ${elapsed} ms`);
  assert.match(result.content[0].text, /stubborn/);
});

test("cancellation kills the process group and sends no response", async () => {
  const dir = scratch();
  const h = harness([bash], undefined, rootsOf(dir));
  await h.request(0, "initialize", initializeParams("2025-11-25"));
  h.line({
    jsonrpc: "2.0",
    id: "job",
    method: "tools/call",
    params: { name: "bash", arguments: { command: `sleep 30 & echo $! > ${dir}/pid; wait` } },
  });
  let pid = 0;
  for (let i = 0; i < 100 && !pid; i++) {
    await tick(20);
    try {
      pid = Number(readFileSync(join(dir, "pid"), "utf8"));
    } catch { /* not yet */ }
  }
  assert.ok(pid > 0 && isRunning(pid));
  h.line({ jsonrpc: "2.0", method: "notifications/cancelled", params: { requestId: "job" } });
  for (let i = 0; i < 100 && isRunning(pid); i++) await tick(20);
  assert.equal(isRunning(pid), false);
  await tick(100);
  assert.ok(!h.sent.some((m) => !Array.isArray(m) && m.id === "job"));
});

test("long output keeps its beginning and end and says how much was cut", async () => {
  const { result } = await run({ command: "seq 1 100000" });
  const text = result.content[0].text;
  assert.equal(result.structuredContent.truncated, true);
  assert.ok(text.startsWith("1\n2\n3\n"));
  assert.match(text, /99999\n100000\n\n\[exit code 0/);
  assert.match(
    text,
    /characters cut from the middle; to see all of it, redirect the output to a file/,
  );
  assert.ok(text.length < 31_000);
});

test("multi-byte characters split across pipe reads arrive intact", async () => {
  const { result } = await run({ command: "for i in $(seq 1 3000); do printf 'é中'; done" });
  const text = result.content[0].text.split("\n")[0];
  assert.equal(text, "é中".repeat(3000));
});

test("cwd: relative to the server's directory; a missing directory is a clear error", async () => {
  const here = await run({ command: "pwd", cwd: "tests" });
  assert.equal(here.result.content[0].text.split("\n")[0], join(process.cwd(), "tests"));
  const missing = await run({ command: "pwd", cwd: "/no/such/dir" });
  assert.equal(missing.result.isError, true);
  assert.match(
    missing.result.content[0].text,
    /cwd "\/no\/such\/dir" is not an existing directory/,
  );
});

test("with a progress token, a long command reports progress at least once a second", async () => {
  const { h } = await run({ command: "sleep 2.5" }, { progressToken: 11 });
  const progress = h.notifications("notifications/progress");
  assert.ok(progress.length >= 2, `got ${progress.length}`);
  assert.match(String(progress[0].params!.message), /running for 1s/);
});

test("a background process holding the output open does not hold up the result", async () => {
  const dir = scratch();
  // Waiting for the output to close would have taken the 20 s of sleep and no note.
  const { result } = await run(
    { command: `sleep 20 & echo $! > ${dir}/pid; echo started` },
    undefined,
    dir,
  );
  assert.match(result.content[0].text, /^started\n/);
  assert.match(result.content[0].text, /still hold the output open/);
  process.kill(Number(readFileSync(join(dir, "pid"), "utf8")));
});

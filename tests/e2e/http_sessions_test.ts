/**
 * Every HTTP session its own, through the binary and the official SDK client: two sessions of one
 * `--http` server are two journal sessions (a plain undo steps back only through its own
 * session's edits, history tells which calls are whose) and two process tables (another session
 * lists, reads, feeds and stops none of them, by tool or by resource); a session that ends takes
 * its background processes with it (one started to outlive the server stays); and 2026-07-28
 * requests, which carry no session, are one session per server here (no OAuth): they remember
 * what they read, so the unseen-change check holds for them too.
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { before } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/streamableHttp"
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
// @ts-types="@modelcontextprotocol/sdk/client/sse"
import { SSEClientTransport } from "@modelcontextprotocol/sdk/client/sse.js";
// @ts-types="@modelcontextprotocol/sdk/client/websocket"
import { WebSocketClientTransport } from "@modelcontextprotocol/sdk/client/websocket.js";
// @ts-types="@modelcontextprotocol/sdk/shared/transport"
import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { type HttpServer, postModern, startHttpServer } from "../helpers/http_server.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { PRODUCT_BINARY } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";

const test = posixOnlyTest("runs sh and looks processes up by pid");
const e2e = e2eFixture();

let server: HttpServer;
let root: string;
const headers: Record<string, string> = {};

before(async () => {
  root = e2e.file.scratch("sessions-root");
  server = await startHttpServer(PRODUCT_BINARY, ["--root", root], {}, root);
});

e2e.file.cleanup(() => server?.terminate());

interface Session<T extends Transport = StreamableHTTPClientTransport> {
  client: Client;
  transport: T;
  call(
    name: string,
    args?: Record<string, unknown>,
  ): Promise<{ text: string; isError: boolean; data: Record<string, unknown> }>;
  read(uri: string): Promise<string>;
}

/** A legacy Streamable HTTP session, unless given another transport. */
function session(name: string): Promise<Session>;
function session<T extends Transport>(name: string, transport: T): Promise<Session<T>>;
async function session(name: string, given?: Transport): Promise<Session<Transport>> {
  const client = new Client({ name, version: "1.0.0" });
  const transport = given ??
    new StreamableHTTPClientTransport(new URL(server.url), { requestInit: { headers } });
  await client.connect(transport);
  return {
    client,
    transport,
    async call(tool, args = {}) {
      const result = await client.callTool({ name: tool, arguments: args });
      const content = result.content as { type: string; text?: string }[];
      return {
        text: content.map((c) => c.text ?? "").join("\n"),
        isError: result.isError === true,
        data: (result.structuredContent ?? {}) as Record<string, unknown>,
      };
    },
    async read(uri) {
      const read = await client.readResource({ uri });
      return read.contents.map((c) => "text" in c ? c.text : "").join("");
    },
  };
}

/** A 2026-07-28 tools/call, which carries no session; fails the test on a JSON-RPC error. */
async function stateless(name: string, args: Record<string, unknown>, id = 1) {
  const response = await postModern(
    server.url,
    id,
    "tools/call",
    { name, arguments: args },
    headers,
  );
  const body = await response.json();
  assert.equal(body.error, undefined, JSON.stringify(body.error));
  const content = body.result.content as { type: string; text?: string }[];
  return {
    text: content.map((c) => c.text ?? "").join("\n"),
    isError: body.result.isError === true,
    data: (body.result.structuredContent ?? {}) as Record<string, unknown>,
  };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Waits for `pid` to be gone, polling; false if it still runs after `ms` (a generous bound). */
async function gone(pid: number, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (alive(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

test("session B's plain undo never reverts session A's edit, and B's history says whose each call is", async () => {
  const a = await session("a");
  const b = await session("b");
  try {
    const rounds = 20;
    let reverted = 0;
    for (let i = 0; i < rounds; i++) {
      const file = `a${i}.txt`;
      const wrote = await a.call("write_file", { path: file, content: `A ${i}\n` });
      assert.equal(wrote.isError, false, wrote.text);
      const undo = await b.call("undo", {});
      if (!existsSync(join(root, file))) reverted++;
      else assert.match(undo.text, /no file change of this session/);
    }
    assert.equal(reverted, 0, `session B's undo reverted ${reverted} of ${rounds} of A's edits`);

    const history = await b.call("history", { path: "a0.txt" });
    assert.doesNotMatch(history.text, /\[this session\]/, history.text);
    assert.match(history.text, /\[session [^\]]+\] write_file/, history.text);
    const own = await a.call("history", { path: "a0.txt" });
    assert.match(own.text, /\[this session\] write_file/, own.text);

    // A's own plain undo still takes its newest edit.
    const undone = await a.call("undo", {});
    assert.equal(undone.isError, false, undone.text);
    assert.equal(existsSync(join(root, `a${rounds - 1}.txt`)), false);
  } finally {
    await a.client.close();
    await b.client.close();
  }
});

test("session B sees none of session A's background processes: tools, resources, completion", async () => {
  const a = await session("a");
  const b = await session("b");
  try {
    const started = await a.call("bash_background", {
      command: "echo secret-of-a; read line; echo got $line",
      name: "a's job",
      grace_ms: 200,
    });
    assert.equal(started.isError, false, started.text);
    const id = started.data.id as string;

    const listed = await b.call("bash_list", {});
    assert.deepEqual(listed.data.processes, [], listed.text);
    for (
      const [tool, args] of [
        ["bash_output", { id }],
        ["bash_input", { id, text: "x", newline: true }],
        ["bash_kill", { id }],
      ] as const
    ) {
      const reply = await b.call(tool, args);
      assert.equal(reply.isError, true, `${tool}: ${reply.text}`);
      assert.match(reply.text, /no background process/, `${tool}: ${reply.text}`);
      assert.doesNotMatch(reply.text, /secret-of-a|a's job/);
    }
    assert.deepEqual(JSON.parse(await b.read("toolhost://processes")).processes, []);
    await assert.rejects(b.read(`toolhost://processes/${id}/output`), /no background process/);
    const templates = await b.client.listResources();
    assert.equal(templates.resources.some((r) => r.uri.startsWith("toolhost://processes/")), false);
    const completion = await b.client.complete({
      ref: { type: "ref/resource", uri: "toolhost://processes/{id}/output" },
      argument: { name: "id", value: "" },
    });
    assert.deepEqual(completion.completion.values, []);

    // A still has it, untouched by B's attempts.
    const mine = await a.call("bash_input", { id, text: "hello", newline: true, wait_ms: 2000 });
    assert.match(mine.text, /got hello/, mine.text);
    assert.match(await a.read(`toolhost://processes/${id}/output`), /secret-of-a/);
  } finally {
    await a.client.close();
    await b.client.close();
  }
});

test("a session that ends stops its background processes; one started to outlive the server stays", async () => {
  const a = await session("a");
  const bound = await a.call("bash_background", { command: "sleep 300", grace_ms: 0 });
  const free = await a.call("bash_background", {
    command: "sleep 300",
    grace_ms: 0,
    outlive_server: true,
  });
  const boundPid = bound.data.pid as number;
  const freePid = free.data.pid as number;
  try {
    assert.ok(alive(boundPid) && alive(freePid));
    await a.transport.terminateSession(); // DELETE: the session ends
    await a.client.close();
    assert.equal(await gone(boundPid), true, "the ended session's process still runs");
    assert.equal(alive(freePid), true, "the process started with outlive_server was stopped");
  } finally {
    for (const pid of [boundPid, freePid]) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

/** Whether `pid` runs (a zombie left to a PID 1 that does not reap does not count). */
function running(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return !/^[ZX]/.test(stat.slice(stat.lastIndexOf(")") + 2));
  } catch {
    return false;
  }
}

/** Waits for `pid` to stop running, polling; false if it still runs after `ms` (a generous bound). */
async function stopsRunning(pid: number, ms = 30_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (running(pid)) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return true;
}

/**
 * A bash call that leaves `sleep` behind twice, once in its group and once in a session of its
 * own (setsid), and says their pids.
 */
async function leaveRunning(s: Session, tag: string): Promise<number[]> {
  const pidFile = `setsid-${tag}.pid`;
  const left = await s.call("bash", {
    command: `sleep 301 >/dev/null 2>&1 & echo $!; ` +
      `setsid sh -c 'echo $$ > ${pidFile}; exec sleep 302' >/dev/null 2>&1 & ` +
      `while [ ! -s ${pidFile} ]; do sleep 0.05; done; cat ${pidFile}`,
  });
  assert.equal(left.isError, false, left.text);
  const pids = (left.text.match(/^\d+$/gm) ?? []).map(Number);
  assert.equal(pids.length, 2, left.text);
  return pids;
}

test("a session that ends stops what its bash calls left running, setsid included; another session's stays", async () => {
  const a = await session("leaves-a");
  const b = await session("leaves-b");
  const pidsA = await leaveRunning(a, "a");
  const pidsB = await leaveRunning(b, "b");
  try {
    for (const pid of [...pidsA, ...pidsB]) assert.equal(running(pid), true, `${pid} not running`);
    const sid = (pid: number) =>
      readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[3];
    assert.notEqual(sid(pidsA[1]), sid(pidsA[0]), "the setsid process did not leave the session");
    await a.transport.terminateSession(); // DELETE: session a ends
    await a.client.close();
    for (const pid of pidsA) {
      assert.equal(await stopsRunning(pid), true, `${pid}, left by the ended session, still runs`);
    }
    for (const pid of pidsB) assert.equal(running(pid), true, `${pid} of the live session stopped`);
  } finally {
    await b.client.close();
    for (const pid of [...pidsA, ...pidsB]) {
      try {
        process.kill(pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

test("a command's note names the session's own commands running alongside, and only counts another session's", async () => {
  const a = await session("alongside-a");
  const b = await session("alongside-b");
  const go = join(root, "alongside-go");
  try {
    const started = await a.call("bash_background", {
      command: `while [ ! -e ${go} ]; do sleep 0.05; done; echo a > alongside-a.txt`,
      grace_ms: 0,
    });
    assert.equal(started.isError, false, started.text);
    const id = started.data.id as string;
    const theirs = await b.call("bash", { command: "echo b > alongside-b.txt" });
    assert.match(theirs.text, /Also running meanwhile: a command of another session;/);
    assert.doesNotMatch(theirs.text, new RegExp(`\\b${id}\\b`));
    const mine = await a.call("bash", { command: "echo a2 > alongside-a2.txt" });
    assert.match(mine.text, new RegExp(`Also running meanwhile: ${id}\\b`));
  } finally {
    writeFileSync(go, "");
    await a.client.close();
    await b.client.close();
  }
});

test("2026-07-28 requests are one session per server: they see their processes and what they read", async () => {
  const file = join(root, "stateless.txt");
  writeFileSync(file, "first\n");
  const read = await stateless("read_file", { path: "stateless.txt" }, 1);
  assert.equal(read.isError, false, read.text);
  writeFileSync(file, "changed by someone else\n");
  const write = await stateless("write_file", { path: "stateless.txt", content: "mine\n" }, 2);
  assert.equal(write.isError, true, `the unseen change was overwritten: ${write.text}`);
  assert.match(write.text, /changed since/);
  assert.equal(readFileSync(file, "utf8"), "changed by someone else\n");

  const started = await stateless("bash_background", { command: "sleep 30", grace_ms: 0 }, 3);
  const listed = await stateless("bash_list", {}, 4);
  const ids = (listed.data.processes as { id: string }[]).map((p) => p.id);
  assert.ok(ids.includes(started.data.id as string), listed.text);
  // A legacy session is another session: it sees none of them.
  const a = await session("a");
  try {
    assert.deepEqual((await a.call("bash_list", {})).data.processes, []);
  } finally {
    await a.client.close();
  }
  await stateless("bash_kill", { id: started.data.id, signal: "SIGKILL" }, 5);
});

test("a WebSocket and an SSE stream are sessions of their own; closing one stops its processes", async () => {
  const ws = await session(
    "ws",
    new WebSocketClientTransport(new URL(`ws://127.0.0.1:${server.port}/mcp`)),
  );
  const sse = await session(
    "sse",
    new SSEClientTransport(new URL(`http://127.0.0.1:${server.port}/sse`), {
      requestInit: { headers },
    }),
  );
  const pids: number[] = [];
  try {
    for (const each of [ws, sse]) {
      const started = await each.call("bash_background", { command: "sleep 300", grace_ms: 0 });
      assert.equal(started.isError, false, started.text);
      pids.push(started.data.pid as number);
    }
    for (const [each, pid] of [[ws, pids[0]], [sse, pids[1]]] as const) {
      const listed = (await each.call("bash_list", {})).data.processes as { pid: number }[];
      assert.deepEqual(listed.map((p) => p.pid), [pid]);
    }
    const wrote = await ws.call("write_file", { path: "ws.txt", content: "ws\n" });
    assert.equal(wrote.isError, false, wrote.text);
    const refused = await sse.call("undo", {});
    assert.equal(refused.isError, true, refused.text);
    assert.equal(
      existsSync(join(root, "ws.txt")),
      true,
      "the SSE session undid the WebSocket's edit",
    );

    await ws.client.close(); // the socket closes: its session ends
    assert.equal(await gone(pids[0]), true, "the closed WebSocket's process still runs");
    assert.equal(
      alive(pids[1]),
      true,
      "the SSE session's process was stopped with the WebSocket's",
    );
    await sse.client.close();
    assert.equal(await gone(pids[1]), true, "the closed SSE stream's process still runs");
  } finally {
    await ws.client.close().catch(() => {});
    await sse.client.close().catch(() => {});
    for (const pid of pids) {
      try {
        process.kill(-pid, "SIGKILL");
      } catch {
        // gone
      }
    }
  }
});

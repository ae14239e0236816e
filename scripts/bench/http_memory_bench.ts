/**
 * Peak resident memory of dist/toolhost --http under the loads of issue 36 §4: 200 Streamable HTTP
 * sessions with 10 `read_file` calls of a 100 KB file each in flight (10,000 calls), the same with
 * clients that stop reading each reply for a while, and eight 60 MB request bodies at once. Each
 * case runs on a fresh server; the figure is VmHWM from /proc/<pid>/status once every request is
 * answered, and every request must be answered (a reset or a refusal is counted, not hidden).
 * Runs alone: `./node_modules/.bin/deno run --allow-all scripts/bench/http_memory_bench.ts`
 * (`TOOLHOST_BENCH_BINARY=path` measures another build; `TOOLHOST_BENCH_HTTP_CASES=bodies` only
 * the cases whose name holds it).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { HttpServerProcess } from "./http_server_process.ts";
import { WireConnection, type WireResponse } from "./http_wire.ts";
import { markdownTable, mb } from "./report.ts";

const TARGET_PEAK_BYTES = 150e6;
const LEGACY = "2025-11-25";
const ACCEPT = "application/json, text/event-stream";

export interface HttpMemoryRun {
  name: string;
  peakRssBytes: number;
  /** Replies by HTTP status, and connections reset before their reply ("reset"). */
  outcomes: Record<string, number>;
  seconds: number;
}

interface HttpMemoryCase {
  name: string;
  run(url: string, dir: string): Promise<Record<string, number>>;
}

const count = (
  outcomes: Record<string, number>,
  key: string,
) => (outcomes[key] = (outcomes[key] ?? 0) + 1);

function head(url: URL, headers: Record<string, string>): string {
  const lines = [`POST ${url.pathname} HTTP/1.1`, `host: ${url.host}`];
  for (const [name, value] of Object.entries(headers)) lines.push(`${name}: ${value}`);
  return lines.join("\r\n") + "\r\n";
}

/** initialize and notifications/initialized on `connection`; the session's headers. */
async function openSession(url: URL, connection: WireConnection): Promise<string> {
  const base = { "content-type": "application/json", accept: ACCEPT };
  const reply = await connection.request(
    head(url, base),
    JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: LEGACY,
        capabilities: {},
        clientInfo: { name: "b", version: "1" },
      },
    }),
  );
  const id = reply.headers.get("mcp-session-id");
  if (reply.status !== 200 || !id) {
    throw new Error(`initialize: HTTP ${reply.status} ${reply.body}`);
  }
  const session = head(url, { ...base, "mcp-session-id": id, "mcp-protocol-version": LEGACY });
  await connection.request(session, `{"jsonrpc":"2.0","method":"notifications/initialized"}`);
  return session;
}

/**
 * `sessions` legacy sessions, each with `inFlight` connections that call read_file of a 100 KB
 * file one call after another until `calls` were made in all; with `holdMs`, each reply is left
 * unread that long after its request is sent.
 */
function sessionsReading(sessions: number, inFlight: number, calls: number, holdMs = 0) {
  return async (endpoint: string, dir: string) => {
    const url = new URL(endpoint);
    const path = join(dir, "page.txt");
    writeFileSync(path, `${"x".repeat(99)}\n`.repeat(1000));
    const outcomes: Record<string, number> = {};
    const connections: WireConnection[] = [];
    const connect = () => {
      const connection = new WireConnection(url.hostname, Number(url.port));
      connections.push(connection);
      return connection;
    };
    const heads: string[] = [];
    for (let i = 0; i < sessions; i += 50) {
      heads.push(
        ...await Promise.all(
          Array.from({ length: Math.min(50, sessions - i) }, () => openSession(url, connect())),
        ),
      );
    }
    let next = 0;
    const body = (id: number) =>
      JSON.stringify({
        jsonrpc: "2.0",
        id,
        method: "tools/call",
        params: { name: "read_file", arguments: { path } },
      });
    const worker = async (session: string) => {
      let connection = connect();
      while (next < calls) {
        const id = ++next;
        let reply: WireResponse;
        try {
          reply = await connection.request(session, body(id), holdMs);
        } catch {
          count(outcomes, "reset");
          connection = connect();
          continue;
        }
        count(outcomes, String(reply.status));
        if (reply.status === 200 && !reply.body.includes("xxxxxxxx")) count(outcomes, "no page");
      }
    };
    try {
      await Promise.all(
        heads.flatMap((session) => Array.from({ length: inFlight }, () => worker(session))),
      );
    } finally {
      for (const connection of connections) connection.close();
    }
    return outcomes;
  };
}

/** `bodies` 2026-07-28 tools/list requests at once, each with a body of `bytes` (a parameter it ignores). */
function largeBodies(bodies: number, bytes: number) {
  return async (endpoint: string) => {
    const url = new URL(endpoint);
    const outcomes: Record<string, number> = {};
    const meta = {
      "io.modelcontextprotocol/protocolVersion": "2026-07-28",
      "io.modelcontextprotocol/clientCapabilities": {},
    };
    const prefix = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":${
      JSON.stringify(meta)
    },"pad":"`;
    const body = prefix + "x".repeat(bytes - prefix.length - 3) + '"}}';
    const requestHead = head(url, {
      "content-type": "application/json",
      accept: ACCEPT,
      "mcp-protocol-version": "2026-07-28",
      "mcp-method": "tools/list",
    });
    await Promise.all(Array.from({ length: bodies }, async () => {
      const connection = new WireConnection(url.hostname, Number(url.port));
      try {
        const reply = await connection.request(requestHead, body);
        count(outcomes, String(reply.status));
      } catch {
        count(outcomes, "reset");
      } finally {
        connection.close();
      }
    }));
    return outcomes;
  };
}

export const HTTP_MEMORY_CASES: HttpMemoryCase[] = [
  {
    name: "200 sessions × 10 read_file (100 KB) in flight, 10,000 calls",
    run: sessionsReading(200, 10, 10_000),
  },
  {
    name: "the same, each reply left unread 2 s",
    run: sessionsReading(200, 10, 10_000, 2_000),
  },
  { name: "8 request bodies of 60 MB at once", run: largeBodies(8, 60e6) },
];

export async function httpMemory(binary: string, flood: HttpMemoryCase): Promise<HttpMemoryRun> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-http-memory-"));
  const server = await HttpServerProcess.start(
    { command: binary, args: [] },
    ["--root", dir, "--http", "127.0.0.1:0"],
  );
  const started = performance.now();
  try {
    const outcomes = await flood.run(server.url, dir);
    return {
      name: flood.name,
      peakRssBytes: server.peakRss(),
      outcomes,
      seconds: (performance.now() - started) / 1000,
    };
  } catch (error) {
    throw server.describeFailure(error);
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section `deno task bench` prints. */
export async function httpMemoryReport(
  root: string,
  progress: (text: string) => void,
): Promise<string> {
  const only = process.env.TOOLHOST_BENCH_HTTP_CASES;
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  const rows: string[][] = [];
  for (const flood of HTTP_MEMORY_CASES) {
    if (only && !flood.name.includes(only)) continue;
    progress(`http memory: ${flood.name}`);
    const run = await httpMemory(binary, flood);
    rows.push([
      run.name,
      mb(run.peakRssBytes),
      Object.entries(run.outcomes).map(([what, n]) => `${what}: ${n.toLocaleString("en-US")}`)
        .join(", "),
      `${run.seconds.toFixed(1)} s`,
      run.peakRssBytes <= TARGET_PEAK_BYTES ? "≤ 150 MB: met" : "≤ 150 MB: MISSED",
    ]);
  }
  return [
    "## Peak memory over HTTP (dist/toolhost --http)",
    "",
    markdownTable(["load", "peak RSS (VmHWM)", "replies by status", "time", "target"], rows),
    "",
    "Method: a fresh server per case on loopback, driven by raw keep-alive HTTP/1.1 connections " +
    "(one request at a time on each); VmHWM from /proc/<pid>/status once every request was " +
    "answered. Sessions: legacy (2025-11-25) Streamable HTTP sessions, each with its own " +
    "connections. 'Left unread': the client reads nothing on a connection for 2 s after sending " +
    "its request. Bodies: 2026-07-28 `tools/list` requests padded to 60 MB (a parameter it ignores), sent at once. A reset is a " +
    "connection closed before its reply. MB = 10^6 bytes.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  process.stdout.write(
    await httpMemoryReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

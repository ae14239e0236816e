/**
 * The Streamable HTTP part of the benchmark: toolhost --http against the official TypeScript
 * SDK (v1) with its StreamableHTTPServerTransport on node:http, measured in the same run with the
 * same client. `deno task bench` prints it after the stdio report; run it alone with
 * `deno run --allow-all scripts/bench/http_bench.ts`. The toolhost binary is
 * $TOOLHOST_BENCH_BINARY when set, else dist/toolhost-test (it needs the `echo` fixture).
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  type EchoCall,
  HttpClient,
  type LegacySession,
  modernCall,
  openLegacySession,
} from "./http_client.ts";
import { Ids, type LoadRun, sequentialLatencies, throughput } from "./http_measurements.ts";
import { HttpServerProcess } from "./http_server_process.ts";
import { describeMachine } from "./machine.ts";
import type { ServerCommand } from "./measurements.ts";
import { markdownTable, mb, perSecond, times, us } from "./report.ts";
import { median, percentile } from "./stats.ts";

const SDK_BUNDLE = "dist/bench/sdk-http-server.mjs";
const LISTEN = ["--http", "127.0.0.1:0"];

const SEQUENTIAL_WARM_UP = 200;
const SEQUENTIAL_CALLS = 2_000;
const CONCURRENCY = [16, 64];
const LOAD_SECONDS = 3;
const LOAD_WARM_UP_SECONDS = 0.5;
const LOAD_ROUNDS = 2;

/**
 * toolhost with a legacy session, the SDK server with one, toolhost with 2026-07-28 stateless
 * requests, and the calibration server (http_floor_server.ts) with the legacy requests.
 */
const KINDS = ["toolhost", "sdk", "modern", "floor"] as const;
type Kind = typeof KINDS[number];

type Progress = (text: string) => void;

interface PeakRss {
  bytes: number;
  /** Echo calls the server had answered by then. */
  calls: number;
}

interface Figures {
  sequential: Record<Kind, number[]>;
  load: Map<number, Record<Kind, LoadRun[]>>;
  rss: Record<Exclude<Kind, "floor">, PeakRss>;
}

/** One server under test with its client; `ids` count the echo calls it was sent. */
interface Target {
  server: HttpServerProcess;
  client: HttpClient;
  call: EchoCall;
  ids: Ids;
  session?: LegacySession;
}

function toolhostBinary(root: string): ServerCommand {
  const path = process.env.TOOLHOST_BENCH_BINARY || `${root}dist/toolhost-test`;
  if (!existsSync(path)) {
    throw new Error(
      `${path} is missing: run \`deno task bench\` (which builds it) or set ` +
        "TOOLHOST_BENCH_BINARY to a toolhost binary built from tests/fixtures/main.ts",
    );
  }
  return { command: path, args: [] };
}

/** Bundled first so node loads one file, as for the stdio SDK server. */
function buildSdkServer(root: string): ServerCommand {
  mkdirSync(`${root}dist/bench`, { recursive: true });
  execFileSync(`${root}node_modules/.bin/bun`, [
    "build",
    "--target=node",
    "--minify",
    "--outfile",
    SDK_BUNDLE,
    "scripts/bench/sdk_http_server.ts",
  ], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
  return { command: "node", args: [`${root}${SDK_BUNDLE}`] };
}

async function target(command: ServerCommand, args: string[], legacy: boolean): Promise<Target> {
  const server = await HttpServerProcess.start(command, args);
  const client = new HttpClient(server.url);
  try {
    const session = legacy ? await openLegacySession(client) : undefined;
    return { server, client, call: session?.call ?? modernCall(client), ids: new Ids(), session };
  } catch (error) {
    client.close();
    await server.stop();
    throw server.describeFailure(error);
  }
}

async function measure(root: string, progress: Progress): Promise<Figures> {
  const binary = toolhostBinary(root);
  const sdk = buildSdkServer(root);
  const floor = {
    command: `${root}node_modules/.bin/bun`,
    args: [`${root}scripts/bench/http_floor_server.ts`],
  };
  // Started up front and loaded one at a time (the idle ones sleep), each on its own process so
  // that each peak RSS belongs to one kind of traffic.
  const targets: Partial<Record<Kind, Target>> = {};
  try {
    targets.toolhost = await target(binary, LISTEN, true);
    targets.sdk = await target(sdk, [], true);
    targets.modern = await target(binary, LISTEN, false);
    targets.floor = await target(floor, [], true);
    const all = targets as Record<Kind, Target>;
    const guarded = async <T>(kind: Kind, work: (target: Target) => Promise<T>): Promise<T> => {
      try {
        return await work(all[kind]);
      } catch (error) {
        throw all[kind].server.describeFailure(new Error(`${kind}: ${(error as Error).message}`));
      }
    };

    progress(
      `http sequential: ${SEQUENTIAL_CALLS} echo calls each after ${SEQUENTIAL_WARM_UP} untimed`,
    );
    const sequential = { toolhost: [], sdk: [], modern: [], floor: [] } as Figures["sequential"];
    for (const kind of KINDS) {
      sequential[kind] = await guarded(
        kind,
        ({ call, ids }) => sequentialLatencies(call, ids, SEQUENTIAL_WARM_UP, SEQUENTIAL_CALLS),
      );
    }

    const load: Figures["load"] = new Map();
    for (const concurrency of CONCURRENCY) {
      load.set(concurrency, { toolhost: [], sdk: [], modern: [], floor: [] });
    }
    for (let round = 1; round <= LOAD_ROUNDS; round++) {
      for (const concurrency of CONCURRENCY) {
        progress(
          `http load round ${round}/${LOAD_ROUNDS}: ${concurrency} in flight, ` +
            `${LOAD_SECONDS} s per server`,
        );
        for (const kind of KINDS) {
          const run = await guarded(
            kind,
            ({ server, call, ids }) =>
              throughput(server, call, ids, concurrency, LOAD_SECONDS, LOAD_WARM_UP_SECONDS),
          );
          load.get(concurrency)![kind].push(run);
        }
      }
    }
    const rss = (kind: Kind) => ({ bytes: all[kind].server.peakRss(), calls: all[kind].ids.count });
    return {
      sequential,
      load,
      rss: { toolhost: rss("toolhost"), sdk: rss("sdk"), modern: rss("modern") },
    };
  } finally {
    for (const kind of KINDS) {
      const target = targets[kind];
      if (!target) continue;
      await target.session?.close().catch(() => {});
      target.client.close();
      await target.server.stop();
    }
  }
}

const best = (runs: LoadRun[]) =>
  runs.reduce((a, b) => (b.requestsPerSecond > a.requestsPerSecond ? b : a));

/** The best run, every run's rate, and what both sides spent in the best one. */
function loadCell(runs: LoadRun[]): string {
  const top = best(runs);
  const all = runs.map((r) => `${(r.requestsPerSecond / 1000).toFixed(1)}k`).join(", ");
  return `${perSecond(top.requestsPerSecond)} (runs: ${all}; CPU client ` +
    `${top.clientCpu.toFixed(2)}, server ${top.serverCpu.toFixed(2)} = ` +
    `${Math.round(top.serverCpuPerCall)} µs/call)`;
}

const latencyCell = (samples: number[]) =>
  `${us(median(samples))} (${us(percentile(samples, 99))})`;

const rssCell = ({ bytes, calls }: PeakRss) =>
  `${mb(bytes)} (after ${calls.toLocaleString("en-US")} calls)`;

function table({ sequential, load, rss }: Figures): string {
  const noSdk = "n/a (SDK v1 has no 2026-07-28)";
  const rows: string[][] = [[
    `sequential echo, one legacy session, median (p99), ${
      SEQUENTIAL_CALLS.toLocaleString("en-US")
    } calls`,
    latencyCell(sequential.toolhost),
    latencyCell(sequential.sdk),
    `${times(median(sequential.sdk) / median(sequential.toolhost))} faster`,
  ], [
    "sequential echo, 2026-07-28 stateless, median (p99)",
    latencyCell(sequential.modern),
    noSdk,
    "n/a",
  ]];
  for (const [concurrency, runs] of load) {
    rows.push([
      `echo throughput, ${concurrency} in flight, one legacy session, best of ${LOAD_ROUNDS}`,
      loadCell(runs.toolhost),
      loadCell(runs.sdk),
      `${
        times(best(runs.toolhost).requestsPerSecond / best(runs.sdk).requestsPerSecond)
      } the SDK's`,
    ]);
  }
  for (const [concurrency, runs] of load) {
    rows.push([
      `echo throughput, ${concurrency} in flight, 2026-07-28 stateless`,
      loadCell(runs.modern),
      noSdk,
      "n/a",
    ]);
  }
  rows.push([
    "peak RSS (VmHWM after all the load above), legacy session",
    rssCell(rss.toolhost),
    rssCell(rss.sdk),
    `${times(rss.toolhost.bytes / rss.sdk.bytes)} the SDK's`,
  ], ["peak RSS, the 2026-07-28 stateless server", rssCell(rss.modern), "n/a", "n/a"]);
  rows.push([
    "calibration: bare Bun.serve, no MCP, sequential median (p99)",
    latencyCell(sequential.floor),
    "",
    "",
  ]);
  for (const [concurrency, runs] of load) {
    rows.push([
      `calibration: bare Bun.serve, no MCP, ${concurrency} in flight`,
      loadCell(runs.floor),
      "",
      "",
    ]);
  }
  return markdownTable(["metric", "toolhost --http", "SDK v1 on node:http", "ratio"], rows);
}

/** The share of all CPUs busy over one second, from /proc/stat: other work on the machine. */
async function busyShare(): Promise<number> {
  const sample = () => readFileSync("/proc/stat", "utf8").split("\n")[0].split(/\s+/).slice(1, 9);
  const before = sample();
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const delta = sample().map((ticks, i) => Number(ticks) - Number(before[i]));
  const total = delta.reduce((a, b) => a + b, 0);
  // The fourth and fifth fields are idle and iowait.
  return total === 0 ? 0 : 1 - (delta[3] + delta[4]) / total;
}

/** Runs the HTTP measurements and returns their markdown section. */
export async function httpReport(root: string, progress: Progress): Promise<string> {
  const busy = await busyShare();
  const figures = await measure(root, progress);
  return [
    "## toolhost vs the official TypeScript SDK (v1) over Streamable HTTP",
    "",
    table(figures),
    "",
    "Method: four servers on 127.0.0.1, started together and loaded one at a time: toolhost " +
    "--http with a legacy session; the SDK server (scripts/bench/sdk_http_server.ts: " +
    "StreamableHTTPServerTransport on node:http, stateful sessions, `enableJsonResponse: " +
    "true`, so every reply is one application/json body); a second toolhost for 2026-07-28 " +
    "stateless requests (MCP-Protocol-Version, Mcp-Method and Mcp-Name headers, `_meta` in the " +
    "body); and for calibration a bare Bun.serve that returns the expected replies with no MCP " +
    "behind them (scripts/bench/http_floor_server.ts), the most this client and Bun's HTTP " +
    "layer manage together here. One client for all: scripts/bench/http_wire.ts, a minimal " +
    "HTTP/1.1 client in this script with one keep-alive connection per request in flight, " +
    "Accept allowing JSON and SSE, each reply checked for status 200, a JSON body and the " +
    "echoed text. Legacy: initialize (2025-11-25), notifications/initialized, then " +
    '`tools/call` echo {"text":"hi"} with Mcp-Session-Id and MCP-Protocol-Version. ' +
    `Sequential: ${SEQUENTIAL_WARM_UP} untimed calls, then ` +
    `${SEQUENTIAL_CALLS.toLocaleString("en-US")} timed, each sent after the previous reply. ` +
    "Throughput: N callers sharing one session (or stateless), each sending its next call when " +
    `its reply is in; ${LOAD_WARM_UP_SECONDS} s untimed, then ${LOAD_SECONDS} s timed; calls ` +
    "completed ÷ time to the last reply; rounds interleave the servers. CPU: user+system " +
    "seconds ÷ wall seconds of the client (this process) and of the server during the best " +
    "run, from /proc/<pid>/stat (1.00 = one core busy throughout), and the server's CPU per " +
    "call, which other load on the machine moves less than the rates. Peak RSS: VmHWM of each server " +
    "process after all its load; MB = 10^6 bytes. The SDK's RSS grows with the calls it has " +
    "served and its rate sinks as its heap grows: in JSON-response mode SDK 1.32.2 keeps one " +
    "stream-mapping entry per POST until the session closes (modelcontextprotocol/" +
    `typescript-sdk#2559). CPUs busy with other work in the second before this part: ` +
    `${(busy * 100).toFixed(0)}%.`,
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  const report = await httpReport(root, (text) => process.stderr.write(`bench: ${text}\n`));
  process.stdout.write(`${report}\n\n${describeMachine(root)}\n`);
}

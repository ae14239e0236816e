/**
 * The protocol core against the runtime's floor over stdio: dist/toolhost-test (the product plus
 * the `echo` fixture) beside a bare Bun line-echo server compiled the same way
 * (floor_server.ts) and the official SDK's echo server (sdk_server.ts, under node). Each
 * measurement runs on fresh processes, the servers taking turns round after round, and reports
 * medians; ratios are toolhost ÷ floor (and ÷ SDK for memory).
 *
 * `deno task bench` prints it after the stdio section; run it alone with
 * `deno run --allow-all scripts/bench/floor_bench.ts` (after `deno task build -- --test`).
 * $TOOLHOST_BENCH_BASELINE names another toolhost-test binary to measure in a fourth column
 * (a build of an older commit), for before/after figures from one run.
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  payloadRoundTrips,
  pipelined,
  type PipelinedRun,
  sequentialRoundTrips,
  type ServerCommand,
  startedRss,
} from "./measurements.ts";
import { markdownTable, ms, perSecond, times, us } from "./report.ts";
import { median } from "./stats.ts";
import { binaryServer, FLOOR_BINARY, floorServer, sdkServer } from "./servers.ts";

const ROUNDS = 5;
const SEQUENTIAL_CALLS = 400;
const PIPELINED_CALLS = 20_000;
const PIPELINED_ROUNDS = 3;
const PAYLOAD_CHARS = 1 << 20;
const PAYLOAD_CALLS = 4;

type Progress = (text: string) => void;

interface Figures {
  startMs: number[];
  startRss: number[];
  sequential: number[];
  pipelined: PipelinedRun[];
  payload: number[];
}

const empty = (): Figures => ({
  startMs: [],
  startRss: [],
  sequential: [],
  pipelined: [],
  payload: [],
});

export async function floorReport(root: string, progress: Progress): Promise<string> {
  const servers: [string, ServerCommand][] = [
    ["floor", floorServer(root)],
    ["toolhost", binaryServer(root, "dist/toolhost-test")],
    ["SDK", sdkServer(root)],
  ];
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  if (baseline) servers.splice(2, 0, ["baseline", binaryServer(root, baseline)]);
  const figures = new Map(servers.map(([name]) => [name, empty()]));
  const each = async (what: (server: ServerCommand, into: Figures) => Promise<void>) => {
    for (const [name, server] of servers) await what(server, figures.get(name)!);
  };

  progress(`floor: ${ROUNDS} rounds of start, ${SEQUENTIAL_CALLS} sequential calls, 1 MiB echo`);
  // One untimed start each so none pays for a cold page cache.
  await each(async (server) => void await startedRss(server));
  for (let round = 0; round < ROUNDS; round++) {
    await each(async (server, into) => {
      const { ms, rssBytes } = await startedRss(server);
      into.startMs.push(ms);
      into.startRss.push(rssBytes);
    });
    await each(async (server, into) => {
      into.sequential.push(...await sequentialRoundTrips(server, SEQUENTIAL_CALLS));
    });
    await each(async (server, into) => {
      into.payload.push(...await payloadRoundTrips(server, PAYLOAD_CHARS, PAYLOAD_CALLS));
    });
  }
  progress(`floor: ${PIPELINED_ROUNDS} rounds of ${PIPELINED_CALLS} pipelined calls`);
  for (let round = 0; round < PIPELINED_ROUNDS; round++) {
    await each(async (server, into) => {
      into.pipelined.push(await pipelined(server, PIPELINED_CALLS));
    });
  }

  const names = servers.map(([name]) => name);
  const of = (name: string) => figures.get(name)!;
  const metric = (f: Figures) => ({
    startMs: median(f.startMs),
    startRss: median(f.startRss),
    sequential: median(f.sequential),
    rate: median(f.pipelined.map((r) => r.requestsPerSecond)),
    peakRss: median(f.pipelined.map((r) => r.peakRssBytes)),
    cpu: median(f.pipelined.map((r) => r.cpuMicrosPerCall)),
    payload: median(f.payload),
  });
  const m = new Map(names.map((name) => [name, metric(of(name))]));
  const floor = m.get("floor")!;
  const sdk = m.get("SDK")!;
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const ratios = (pick: (x: ReturnType<typeof metric>) => number, vs = floor) =>
    names.filter((n) => n === "toolhost" || n === "baseline").map((n) =>
      `${n} ${times(pick(m.get(n)!) / pick(vs))}`
    ).join(", ");
  const row = (
    label: string,
    pick: (x: ReturnType<typeof metric>) => number,
    format: (v: number) => string,
    target: string,
    vs = floor,
  ) => [
    label,
    ...names.map((n) => format(pick(m.get(n)!))),
    ratios(pick, vs),
    target,
  ];
  const rows = [
    row("start to initialize reply", (x) => x.startMs, ms, ""),
    row("peak RSS (VmHWM) at the initialize reply", (x) => x.startRss, mib, ""),
    row(
      `sequential echo round trip (${SEQUENTIAL_CALLS} calls × ${ROUNDS})`,
      (x) => x.sequential,
      us,
      "≤ 1.3×",
    ),
    row(
      `pipelined echo, ${PIPELINED_CALLS.toLocaleString("en-US")} calls`,
      (x) => x.rate,
      perSecond,
      "≥ 0.9×",
    ),
    row(
      "  server CPU per pipelined call (all threads)",
      (x) => x.cpu,
      (v) => `${v.toFixed(1)} µs`,
      "",
    ),
    row("peak RSS (VmHWM) after the pipelined calls", (x) => x.peakRss, mib, "≤ 1.2×"),
    row("  the same, against the SDK", (x) => x.peakRss, mib, "≤ 0.6×", sdk),
    row(
      `1 MiB echo round trip (${PAYLOAD_CALLS} calls × ${ROUNDS})`,
      (x) => x.payload,
      ms,
      "≤ 1.3×",
    ),
  ];
  return [
    "## The protocol core against the runtime's floor (stdio)",
    "",
    markdownTable(["metric", ...names, "ratio (÷ floor unless said)", "target"], rows),
    "",
    `Medians over rounds in which the servers take turns, each on fresh processes. floor: ` +
    `${FLOOR_BINARY} (scripts/bench/floor_server.ts, a bare Bun line echo compiled with the ` +
    "product's flags); toolhost: dist/toolhost-test; SDK: the official SDK's echo server on node" +
    (baseline ? `; baseline: ${baseline}` : "") + `. Peak RSS in MiB (2^20 bytes). ` +
    "Sequential and large echo: after initialize, `tools/call` echo, each sent after the " +
    "previous reply (the large one checked to come back unchanged). Pipelined: all requests " +
    "written at once, requests ÷ time to the last reply; VmHWM read before stdin closes; CPU " +
    "from /proc (user + system, 10 ms ticks) over the same run, less swayed by other load.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await floorReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

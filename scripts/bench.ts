/**
 * `deno task bench`: dist/toolhost against an equivalent server on the official TypeScript SDK
 * (v1, under node), measured in the same run on the same machine. Prints a markdown table to
 * stdout and progress to stderr. The targets are printed for reference and never asserted: a
 * benchmark that fails on a busy machine teaches nothing.
 */
import process from "node:process";
import { fileURLToPath } from "node:url";
import {
  coldStart,
  payloadRoundTrips,
  pipelined,
  type PipelinedRun,
  sequentialRoundTrips,
} from "./bench/measurements.ts";
import { describeMachine } from "./bench/machine.ts";
import { flood, type FloodRun } from "./bench/flood.ts";
import { floorReport } from "./bench/floor_bench.ts";
import { httpReport } from "./bench/http_bench.ts";
import { httpAuthReport } from "./bench/http_auth_bench.ts";
import { webReport } from "./bench/web_bench.ts";
import { webBodiesReport } from "./bench/web_bodies_bench.ts";
import { grepRgReport } from "./bench/grep_rg_bench.ts";
import { filesReport } from "./bench/files_bench.ts";
import { journalTreesReport } from "./bench/journal_trees_bench.ts";
import { journalCommandsReport } from "./bench/journal_commands_bench.ts";
import { journalFloodReport } from "./bench/journal_flood_bench.ts";
import { memoryFloodsReport } from "./bench/memory_floods_bench.ts";
import { httpMemoryReport } from "./bench/http_memory_bench.ts";
import { documentsMemoryReport } from "./bench/documents_memory_bench.ts";
import { searchReport } from "./bench/search_bench.ts";
import { codeReport } from "./bench/code_bench.ts";
import { codeLspReport } from "./bench/code_lsp_bench.ts";
import { codeLspServersReport } from "./bench/code_lsp_servers_bench.ts";
import { sandboxReport } from "./bench/sandbox_bench.ts";
import { confineNetworkReport } from "./bench/confine_network_bench.ts";
import { against, markdownTable, mb, ms, perSecond, times, us } from "./bench/report.ts";
import { median, percentile } from "./bench/stats.ts";
import { binaryServer, sdkServer } from "./bench/servers.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

const COLD_STARTS = 20;
const SEQUENTIAL_CALLS = 2_000;
const PIPELINED_CALLS = 20_000;
const PIPELINED_RUNS = 3;
const PAYLOAD_CHARS = 1_000_000;
const PAYLOAD_RUNS = 10;
const FLOOD_CALLS = [100_000, 300_000];

const TARGET_COLD_START_MS = 30;
const TARGET_THROUGHPUT_RATIO = 2;
const TARGET_PEAK_RSS_BYTES = 70e6;
const TARGET_FLOOD_RSS_BYTES = 150e6;

const progress = (text: string) => process.stderr.write(`bench: ${text}\n`);

const sdk = sdkServer(ROOT);
const product = binaryServer(ROOT, "dist/toolhost");
const withFixtures = binaryServer(ROOT, "dist/toolhost-test");

progress(`cold start: ${COLD_STARTS} spawns each, interleaved`);
// One untimed start each so neither pays for a cold page cache.
await coldStart(sdk);
await coldStart(product);
const cold = { sdk: [] as number[], toolhost: [] as number[] };
for (let run = 0; run < COLD_STARTS; run++) {
  cold.sdk.push(await coldStart(sdk));
  cold.toolhost.push(await coldStart(product));
}

progress(`sequential round trips: ${SEQUENTIAL_CALLS} echo calls each`);
const sequential = {
  sdk: await sequentialRoundTrips(sdk, SEQUENTIAL_CALLS),
  toolhost: await sequentialRoundTrips(withFixtures, SEQUENTIAL_CALLS),
};

progress(`pipelined: ${PIPELINED_RUNS} runs of ${PIPELINED_CALLS} echo calls each`);
const runs = {
  sdk: [] as PipelinedRun[],
  toolhost: [] as PipelinedRun[],
  modern: [] as PipelinedRun[],
};
for (let run = 0; run < PIPELINED_RUNS; run++) {
  runs.sdk.push(await pipelined(sdk, PIPELINED_CALLS));
  runs.toolhost.push(await pipelined(withFixtures, PIPELINED_CALLS));
  runs.modern.push(await pipelined(withFixtures, PIPELINED_CALLS, true));
}

progress(
  `payload: ${PAYLOAD_RUNS} echo calls of ${PAYLOAD_CHARS.toLocaleString("en-US")} characters each`,
);
const payload = {
  sdk: await payloadRoundTrips(sdk, PAYLOAD_CHARS, PAYLOAD_RUNS),
  toolhost: await payloadRoundTrips(withFixtures, PAYLOAD_CHARS, PAYLOAD_RUNS),
};

progress(`flood: ${FLOOD_CALLS.map((n) => n.toLocaleString("en-US")).join(" and ")} echo calls`);
const floods: { toolhost: FloodRun; sdk: FloodRun }[] = [];
for (const count of FLOOD_CALLS) {
  floods.push({ toolhost: await flood(withFixtures, count), sdk: await flood(sdk, count) });
}

const best = (list: PipelinedRun[]) => Math.max(...list.map((r) => r.requestsPerSecond));
/** Every run, so the spread between fresh processes is visible next to the best. */
const spread = (list: PipelinedRun[]) =>
  `${perSecond(best(list))} (runs: ${
    list.map((r) => `${Math.round(r.requestsPerSecond / 1000)}k`).join(", ")
  })`;
const peak = (list: PipelinedRun[]) => Math.max(...list.map((r) => r.peakRssBytes));
const rssSpread = (list: PipelinedRun[]) =>
  `${mb(peak(list))} (runs: ${list.map((r) => (r.peakRssBytes / 1e6).toFixed(0)).join(", ")})`;
const faster = (sdkValue: number, toolhostValue: number) => {
  const ratio = sdkValue / toolhostValue;
  return `${times(ratio)} ${ratio >= 1 ? "faster" : "slower"}`;
};

const coldMedian = { sdk: median(cold.sdk), toolhost: median(cold.toolhost) };
const sequentialMedian = { sdk: median(sequential.sdk), toolhost: median(sequential.toolhost) };
const throughput = {
  sdk: best(runs.sdk),
  toolhost: best(runs.toolhost),
  modern: best(runs.modern),
};
const rss = { sdk: peak(runs.sdk), toolhost: peak(runs.toolhost) };
const payloadMedian = { sdk: median(payload.sdk), toolhost: median(payload.toolhost) };

const rows = [
  [
    `cold start to initialize reply, median (p90), ${COLD_STARTS} runs`,
    `${ms(coldMedian.toolhost)} (${ms(percentile(cold.toolhost, 90))})`,
    `${ms(coldMedian.sdk)} (${ms(percentile(cold.sdk, 90))})`,
    faster(coldMedian.sdk, coldMedian.toolhost),
    against(`≤ ${TARGET_COLD_START_MS} ms median`, coldMedian.toolhost <= TARGET_COLD_START_MS),
  ],
  [
    `sequential echo round trip, median (p99), ${SEQUENTIAL_CALLS.toLocaleString("en-US")} calls`,
    `${us(sequentialMedian.toolhost)} (${us(percentile(sequential.toolhost, 99))})`,
    `${us(sequentialMedian.sdk)} (${us(percentile(sequential.sdk, 99))})`,
    faster(sequentialMedian.sdk, sequentialMedian.toolhost),
    "",
  ],
  [
    `pipelined echo, ${PIPELINED_CALLS.toLocaleString("en-US")} calls, best of ${PIPELINED_RUNS}`,
    spread(runs.toolhost),
    spread(runs.sdk),
    `${times(throughput.toolhost / throughput.sdk)} the SDK's`,
    against(
      `≥ ${TARGET_THROUGHPUT_RATIO}× the SDK's`,
      throughput.toolhost >= TARGET_THROUGHPUT_RATIO * throughput.sdk,
    ),
  ],
  [
    "pipelined echo, 2026-07-28 stateless requests (no initialize)",
    spread(runs.modern),
    "n/a (SDK v1 has no 2026-07-28)",
    "n/a",
    "",
  ],
  [
    "peak RSS (VmHWM after the pipelined run), worst of runs",
    rssSpread(runs.toolhost),
    rssSpread(runs.sdk),
    `${times(rss.toolhost / rss.sdk)} the SDK's`,
    against(`≤ ${TARGET_PEAK_RSS_BYTES / 1e6} MB`, rss.toolhost <= TARGET_PEAK_RSS_BYTES),
  ],
  ...floods.map(({ toolhost, sdk }) => [
    `peak RSS (VmHWM) under a flood of ${toolhost.count.toLocaleString("en-US")} pipelined echo ` +
    "calls (time to the last reply)",
    `${mb(toolhost.peakRssBytes)} (${toolhost.seconds.toFixed(1)} s)`,
    `${mb(sdk.peakRssBytes)} (${sdk.seconds.toFixed(1)} s)`,
    `${times(toolhost.peakRssBytes / sdk.peakRssBytes)} the SDK's`,
    against(
      `≤ ${TARGET_FLOOD_RSS_BYTES / 1e6} MB`,
      toolhost.peakRssBytes <= TARGET_FLOOD_RSS_BYTES,
    ),
  ]),
  [
    `${PAYLOAD_CHARS.toLocaleString("en-US")}-character echo round trip, median of ${PAYLOAD_RUNS}`,
    ms(payloadMedian.toolhost),
    ms(payloadMedian.sdk),
    faster(payloadMedian.sdk, payloadMedian.toolhost),
    "",
  ],
];

const report = [
  "## toolhost vs the official TypeScript SDK (v1) over stdio",
  "",
  markdownTable(["metric", "toolhost", "SDK v1 on node", "ratio", "target (reference only)"], rows),
  "",
  "Ratios: times are SDK ÷ toolhost (above 1: toolhost is faster); throughput and RSS are " +
  "toolhost ÷ SDK (throughput above 1: toolhost serves more; RSS below 1: toolhost uses less).",
  "",
  describeMachine(ROOT),
  "",
  "Method: every figure is wall-clock time on the client's side of the pipes, one server at a " +
  "time, each measurement on fresh processes. Cold start: spawn, write `initialize` " +
  "(2025-11-25), wait for its reply line; runs interleave the two servers after one untimed " +
  "start each; toolhost is dist/toolhost (the product). Everything else uses " +
  "dist/toolhost-test (the product plus an `echo` fixture) against an SDK server with the same " +
  "`echo` tool. Sequential: after initialize and notifications/initialized, `tools/call` echo " +
  `{"text":"hi"}, each sent after the previous reply, no warm-up. Pipelined: all ` +
  `${PIPELINED_CALLS.toLocaleString("en-US")} requests encoded beforehand and written at ` +
  "once while replies are read; requests ÷ time from the write to the last reply; each run " +
  "on a fresh process (after initialize, except the 2026-07-28 row), runs interleaved. Peak " +
  "RSS: VmHWM from /proc/<pid>/status of the server process itself (node, or the binary) " +
  "after each pipelined run, before stdin closes; MB = 10^6 bytes. Flood: after initialize, " +
  "that many echo calls in a file that `cat` writes into the server's stdin as fast as the pipe " +
  "takes them (a client's own writes would pace the server), on a fresh process; VmHWM read at " +
  "the last reply, before stdin closes: how far the server reads ahead of its answers. " +
  "Large echo: one session, " +
  "calls one after another. Every reply is checked for a result; the large echo must come " +
  "back unchanged.",
];
process.stdout.write(report.join("\n") + "\n");

// The protocol core against a bare Bun line echo, the runtime's floor (scripts/bench/floor_bench.ts).
process.stdout.write("\n" + await floorReport(ROOT, progress) + "\n");

// Streamable HTTP: a section of its own after the stdio one (scripts/bench/http_bench.ts).
process.stdout.write("\n" + await httpReport(ROOT, progress) + "\n");
// What checking a bearer token costs a request: none, static, OAuth JWT (scripts/bench/http_auth_bench.ts).
process.stdout.write("\n" + await httpAuthReport(progress) + "\n");

// fetch_url: head-of-line blocking and conversion time (scripts/bench/web_bench.ts).
process.stdout.write("\n" + await webReport(ROOT, progress) + "\n");
process.stdout.write("\n" + await webBodiesReport(ROOT, progress) + "\n");

// What confining a command costs: bash true with and without the sandbox (scripts/bench/sandbox_bench.ts).
process.stdout.write("\n" + await sandboxReport(ROOT, progress) + "\n");

// grep with rg against rg itself (scripts/bench/grep_rg_bench.ts).
process.stdout.write("\n" + await grepRgReport(ROOT, progress) + "\n");

// write_file, edit_file and read_file against cp, sed -i and tail (scripts/bench/files_bench.ts).
process.stdout.write("\n" + await filesReport(ROOT, progress) + "\n");
process.stdout.write("\n" + await journalTreesReport(ROOT, progress) + "\n");
process.stdout.write("\n" + await journalCommandsReport(ROOT, progress) + "\n");
process.stdout.write("\n" + await journalFloodReport(ROOT, progress) + "\n");

// Peak memory under bursts: pipelined reads, a deeply nested line (scripts/bench/memory_floods_bench.ts).
process.stdout.write("\n" + await memoryFloodsReport(ROOT, progress) + "\n");
// The same over HTTP: many sessions' reads, clients that stop reading, large bodies
// (scripts/bench/http_memory_bench.ts).
process.stdout.write("\n" + await httpMemoryReport(ROOT, progress) + "\n");
// Hostile documents: a PDF bomb, a workbook of millions of shared strings
// (scripts/bench/documents_memory_bench.ts).
process.stdout.write("\n" + await documentsMemoryReport(ROOT, progress) + "\n");

// grep's built-in search vs GNU grep, glob vs rg --files (scripts/bench/search_bench.ts).
process.stdout.write("\n" + await searchReport(ROOT, progress) + "\n");

// symbols: outline, map and find on this repository, cold and warm (scripts/bench/code_bench.ts).
process.stdout.write("\n" + await codeReport(ROOT, progress) + "\n");
// code_nav and diagnostics after edits against a bare LSP client (scripts/bench/code_lsp_bench.ts).
process.stdout.write("\n" + await codeLspReport(ROOT, progress) + "\n");
// Each real language server, cold and warm, against a bare client
// (scripts/bench/code_lsp_servers_bench.ts).
process.stdout.write("\n" + await codeLspServersReport(ROOT, progress) + "\n");

// The sandbox's network: a session's first command, a proxied connection against a direct one
// (scripts/bench/confine_network_bench.ts).
process.stdout.write("\n" + await confineNetworkReport(progress) + "\n");

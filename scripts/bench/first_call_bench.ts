/**
 * A session's first tool call, and the start before it: what validating a tool's arguments and
 * output costs the first time (Ajv loaded and the schemas compiled at run time, or validators
 * compiled ahead of time and imported on first use). For each fresh process: spawn to the
 * `initialize` answer, resident memory once started (VmRSS, after notifications/initialized),
 * the first `read_file` (a cheap tool with input and output schemas), a second one (warm), and
 * resident memory after them. With TOOLHOST_BENCH_BASELINE=<binary>, an older build is run
 * alternately with this one (TOOLHOST_BENCH_BINARY, dist/toolhost by default), and each
 * figure's median ratio of paired runs is printed: on a shared machine ratios of runs side by
 * side hold better than times. TOOLHOST_BENCH_FIRST_CALL_RUNS runs each (default 20).
 * Runs alone: `deno run --allow-all scripts/bench/first_call_bench.ts`; figures are printed,
 * never asserted.
 */
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, mb, ms, times } from "./report.ts";
import { initializeRequest, ServerProcess } from "./server_process.ts";
import { median, percentile } from "./stats.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_FIRST_CALL_RUNS ?? 20);
const ROOT = fileURLToPath(new URL("../..", import.meta.url));

interface Run {
  initializeMs: number;
  startedRss: number;
  firstCallMs: number;
  secondCallMs: number;
  calledRss: number;
}

function rss(pid: number): number {
  const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!kb) throw new Error(`no VmRSS in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

async function once(binary: string, project: string, state: string): Promise<Run> {
  process.env.TOOLHOST_STATE_DIR = state;
  const spawned = performance.now();
  const server = new ServerProcess(binary, ["--root", project]);
  try {
    await server.request(initializeRequest(0));
    const initializeMs = performance.now() - spawned;
    server.notify("notifications/initialized");
    // Whatever start-up work follows the answer (timers, the sandbox probe) settles first.
    await new Promise((resolve) => setTimeout(resolve, 300));
    const startedRss = rss(server.pid);
    const first = await server.tool("read_file", { path: "notes.txt" });
    if (first.reply.result?.isError) throw new Error(JSON.stringify(first.reply.result));
    const second = await server.tool("read_file", { path: "notes.txt", offset: 2 });
    return {
      initializeMs,
      startedRss,
      firstCallMs: first.ms,
      secondCallMs: second.ms,
      calledRss: rss(server.pid),
    };
  } finally {
    await server.close();
  }
}

const FIGURES: [keyof Run, string, (value: number) => string][] = [
  ["initializeMs", "spawn to initialize answer", ms],
  ["startedRss", "RSS once started (VmRSS)", mb],
  ["firstCallMs", "first read_file call", ms],
  ["secondCallMs", "second read_file call", ms],
  ["calledRss", "RSS after the two calls", mb],
];

const spread = (values: number[], unit: (value: number) => string) =>
  `${unit(median(values))} (${unit(percentile(values, 25))}–${unit(percentile(values, 75))})`;

if (import.meta.main) {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? join(ROOT, "dist", "toolhost");
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  const project = mkdtempSync(join(tmpdir(), "toolhost-first-call-"));
  writeFileSync(join(project, "notes.txt"), "one\ntwo\nthree\nfour\n");
  const state = mkdtempSync(join(tmpdir(), "toolhost-first-call-state-"));
  const builds = baseline ? [binary, baseline] : [binary];
  const runs = new Map<string, Run[]>(builds.map((b) => [b, []]));
  const load = [loadavg()[0]];
  for (let i = 0; i < RUNS; i++) {
    // Alternating, and which goes first alternates too.
    const order = i % 2 === 0 ? builds : [...builds].reverse();
    for (const build of order) runs.get(build)!.push(await once(build, project, state));
  }
  load.push(loadavg()[0]);
  const mine = runs.get(binary)!;
  const theirs = baseline ? runs.get(baseline)! : undefined;
  const rows = FIGURES.map(([key, what, unit]) => {
    const row = [what, spread(mine.map((r) => r[key]), unit)];
    if (theirs) {
      row.push(spread(theirs.map((r) => r[key]), unit));
      row.push(times(median(mine.map((r, i) => r[key] / theirs[i][key]))));
    }
    return row;
  });
  const header = theirs
    ? ["", "this build, median (p25–p75)", "baseline", "ratio (median of pairs)"]
    : ["", "median (p25–p75)"];
  console.log(markdownTable(header, rows));
  console.log(
    `\n${RUNS} runs each, alternating; load average (1 min) ${load[0].toFixed(2)} at the start, ` +
      `${load[1].toFixed(2)} at the end. This build: ${binary}` +
      (baseline ? `; baseline: ${baseline}` : ""),
  );
}

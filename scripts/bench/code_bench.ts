/**
 * The code family's tier 1 on this repository, through the binary: `symbols` outline of one
 * file and map of the whole project, each cold (a fresh server: the parse worker, tree-sitter's
 * runtime and the grammar load on first use) and warm (the same call again: files unchanged are
 * not parsed again), find of a name path warm, the server's peak RSS after the map (the worker
 * is a thread of the same process), and how much the embedded grammars add to the binary. The
 * cold map's CPU time is given beside its wall time: on a busy machine the wall time mostly
 * measures the other load.
 *
 * Cold figures come from `RUNS` fresh servers, warm ones from `RUNS` repeats in one; medians.
 * Run alone with `deno run --allow-all scripts/bench/code_bench.ts`; the binary is
 * $TOOLHOST_BENCH_BINARY when set, else dist/toolhost. With TOOLHOST_BENCH_BASELINE=<binary>
 * (a build without the code family) the size growth is measured against it.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { WASM_FILES } from "../../tools/code/_lib/parse/mod.ts";
import { markdownTable, mb, ms } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_CODE_RUNS ?? 3);
const OUTLINED = "tools/_lib/sandbox/_sandbox.ts";

type Progress = (text: string) => void;

async function server(binary: string, root: string, state: string): Promise<ServerProcess> {
  const saved = process.env.TOOLHOST_STATE_DIR;
  process.env.TOOLHOST_STATE_DIR = state;
  const started = new ServerProcess(binary, ["--root", root]);
  if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
  else process.env.TOOLHOST_STATE_DIR = saved;
  await started.initialize();
  return started;
}

async function timed(s: ServerProcess, args: Record<string, unknown>): Promise<number> {
  const { ms, reply } = await s.tool("symbols", args);
  const result = reply.result as { isError?: boolean; content: { text: string }[] } | undefined;
  if (!result || result.isError) {
    throw new Error(`symbols ${JSON.stringify(args)} failed: ${JSON.stringify(reply)}`);
  }
  return ms;
}

export async function codeReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const state = mkdtempSync(join(tmpdir(), "toolhost-code-bench-"));
  const times = { outlineCold: [], outlineWarm: [], mapCold: [], mapWarm: [], find: [] } as Record<
    string,
    number[]
  >;
  /** CPU time of the whole process (main thread and workers), less at the mercy of other load. */
  const cpu = { mapCold: [] as number[] };
  let files = 0;
  let definitions = 0;
  let peak = 0;
  try {
    for (let run = 0; run < RUNS; run++) {
      progress(`code: fresh server ${run + 1} of ${RUNS}`);
      const s = await server(binary, root, state);
      try {
        times.outlineCold.push(await timed(s, { operation: "outline", path: OUTLINED }));
        times.outlineWarm.push(await timed(s, { operation: "outline", path: OUTLINED }));
        const cpuBefore = s.cpuMs();
        times.mapCold.push(await timed(s, { operation: "map" }));
        cpu.mapCold.push(s.cpuMs() - cpuBefore);
        const { reply } = await s.tool("symbols", { operation: "map" });
        const data = (reply.result as { structuredContent: { files: number; total: number } })
          .structuredContent;
        files = data.files;
        definitions = data.total;
        for (let i = 0; i < RUNS; i++) {
          times.mapWarm.push(await timed(s, { operation: "map" }));
          times.find.push(await timed(s, { operation: "find", name: "Sandbox/resolve" }));
        }
        peak = Math.max(peak, s.peakRss());
      } finally {
        await s.close();
      }
    }
  } finally {
    rmSync(state, { recursive: true, force: true });
  }
  const wasm = WASM_FILES.reduce((sum, path) => sum + statSync(join(root, path)).size, 0);
  const size = statSync(binary).size;
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  const growth = baseline ? size - statSync(baseline).size : undefined;
  const rows = [
    [`outline ${OUTLINED}, cold (fresh server)`, ms(median(times.outlineCold))],
    [`outline ${OUTLINED}, warm`, ms(median(times.outlineWarm))],
    [
      `map of this repository, cold (${files} files, ${definitions} definitions)`,
      ms(median(times.mapCold)),
    ],
    ["map of this repository, cold: CPU time (all threads)", ms(median(cpu.mapCold))],
    ["map of this repository, warm", ms(median(times.mapWarm))],
    ['find "Sandbox/resolve" across the repository, warm', ms(median(times.find))],
    ["toolhost peak RSS after the maps (VmHWM)", mb(peak)],
    ["grammars and runtime embedded (.wasm)", mb(wasm)],
    [
      "binary size",
      `${mb(size)}${
        growth === undefined ? "" : ` (${growth >= 0 ? "+" : ""}${mb(growth)} over the baseline)`
      }`,
    ],
  ];
  return [
    "## Code symbols (tier 1: tree-sitter in a worker)",
    "",
    markdownTable(["case", "median"], rows),
    "",
    `Cold: the first call of a fresh server (${RUNS} servers); the map is cold for the parse ` +
    "but follows one outline, so the worker and TypeScript's grammar are loaded. Warm: the same " +
    "call again, files unchanged (stat only). Set TOOLHOST_BENCH_BASELINE to a build without " +
    "the code family to see the binary's growth.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await codeReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

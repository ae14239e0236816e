/**
 * The code family's tier 1, through the binary:
 *
 * - this repository: `symbols` outline of one file and map of the whole project, each cold (a
 *   fresh server and state directory: the parse workers, tree-sitter's runtime and the grammars
 *   load on first use) and warm (the same call again: files unchanged are not parsed again), a
 *   new session's map warm from the disk cache, find of a name path warm, the peak RSS;
 * - a generated tree of 20,000 files (code_tree.ts): the cold map and a second session's, with
 *   the longest a ping waited while the cold map ran (pings sent one after another throughout);
 * - hostile files (1 MiB each of `-----…1` in Rust, `!!!…x` and `x?1:x?1:…` in TypeScript, a
 *   one-line `var a,a,…,b;`, beside a small file): the map's peak RSS, and what it said;
 * - how much the embedded grammars add to the binary.
 *
 * The cold map's CPU time (all threads) is given beside its wall time: on a busy machine the wall
 * time mostly measures the other load. Cold figures come from `RUNS` fresh servers, warm ones
 * from `RUNS` repeats; medians. Run alone with `deno run --allow-all scripts/bench/code_bench.ts`;
 * the binary is $TOOLHOST_BENCH_BINARY when set, else dist/toolhost. With
 * TOOLHOST_BENCH_BASELINE=<binary> (a build without the code family) the size growth is measured
 * against it. TOOLHOST_BENCH_CODE_TREE_FILES sets the generated tree's size (0: skip it).
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { WASM_FILES } from "../../tools/code/_lib/parse/mod.ts";
import { writeCodeTree, writeHostileFiles } from "./code_tree.ts";
import { markdownTable, mb, ms } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_CODE_RUNS ?? 3);
const TREE_FILES = Number(process.env.TOOLHOST_BENCH_CODE_TREE_FILES ?? 20_000);
const OUTLINED = "tools/_lib/sandbox/_sandbox.ts";
/** A map of 20,000 files may take minutes on a busy machine. */
const LONG_STEP_MS = 600_000;

type Progress = (text: string) => void;

async function server(binary: string, root: string, state: string): Promise<ServerProcess> {
  const saved = process.env.TOOLHOST_STATE_DIR;
  process.env.TOOLHOST_STATE_DIR = state;
  const started = new ServerProcess(binary, ["--root", root], LONG_STEP_MS);
  if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
  else process.env.TOOLHOST_STATE_DIR = saved;
  await started.initialize();
  return started;
}

interface Answer {
  ms: number;
  cpuMs: number;
  text: string;
  data: { files?: number; total?: number; parsed?: number; skipped?: number };
}

async function call(s: ServerProcess, args: Record<string, unknown>): Promise<Answer> {
  const cpuBefore = s.cpuMs();
  const { ms, reply } = await s.tool("symbols", args);
  const result = reply.result as {
    isError?: boolean;
    content: { text: string }[];
    structuredContent?: Answer["data"];
  };
  if (!result || result.isError) {
    throw new Error(`symbols ${JSON.stringify(args)} failed: ${JSON.stringify(reply)}`);
  }
  return {
    ms,
    cpuMs: s.cpuMs() - cpuBefore,
    text: result.content[0].text,
    data: result.structuredContent ?? {},
  };
}

const IDLE_PINGS = 2_000;

/** The longest a ping waits with nothing else running: what the machine's load alone costs. */
async function idlePings(s: ServerProcess): Promise<number> {
  let longest = 0;
  for (let id = 1; id <= IDLE_PINGS; id++) {
    const sent = performance.now();
    await s.request({ id: 400_000 + id, method: "ping" });
    longest = Math.max(longest, performance.now() - sent);
  }
  return longest;
}

/** The call's answer, and the longest a ping waited while it ran (one ping after another). */
async function pinged(
  s: ServerProcess,
  args: Record<string, unknown>,
): Promise<Answer & { pings: number; longestPingMs: number }> {
  let done = false;
  let pings = 0;
  let longest = 0;
  const pinging = (async () => {
    for (let id = 1; !done; id++) {
      const sent = performance.now();
      await s.request({ id: 500_000 + id, method: "ping" });
      longest = Math.max(longest, performance.now() - sent);
      pings++;
    }
  })();
  try {
    return { ...(await call(s, args)), pings, longestPingMs: longest };
  } finally {
    done = true;
    await pinging;
  }
}

async function repository(binary: string, root: string, progress: Progress) {
  const times = {
    outlineCold: [] as number[],
    outlineWarm: [] as number[],
    mapCold: [] as number[],
    mapColdCpu: [] as number[],
    mapWarm: [] as number[],
    secondSession: [] as number[],
    secondSessionCpu: [] as number[],
    find: [] as number[],
  };
  let files = 0;
  let definitions = 0;
  let secondParsed: number | undefined;
  let peak = 0;
  for (let run = 0; run < RUNS; run++) {
    progress(`code: this repository, fresh server ${run + 1} of ${RUNS}`);
    const state = mkdtempSync(join(tmpdir(), "toolhost-code-bench-"));
    try {
      const s = await server(binary, root, state);
      try {
        times.outlineCold.push((await call(s, { operation: "outline", path: OUTLINED })).ms);
        times.outlineWarm.push((await call(s, { operation: "outline", path: OUTLINED })).ms);
        const cold = await call(s, { operation: "map" });
        times.mapCold.push(cold.ms);
        times.mapColdCpu.push(cold.cpuMs);
        files = cold.data.files ?? 0;
        definitions = cold.data.total ?? 0;
        for (let i = 0; i < RUNS; i++) {
          times.mapWarm.push((await call(s, { operation: "map" })).ms);
          times.find.push((await call(s, { operation: "find", name: "Sandbox/resolve" })).ms);
        }
        peak = Math.max(peak, s.peakRss());
      } finally {
        await s.close();
      }
      const second = await server(binary, root, state);
      try {
        const warm = await call(second, { operation: "map" });
        times.secondSession.push(warm.ms);
        times.secondSessionCpu.push(warm.cpuMs);
        secondParsed = warm.data.parsed;
      } finally {
        await second.close();
      }
    } finally {
      rmSync(state, { recursive: true, force: true });
    }
  }
  const parsedNote = secondParsed === undefined ? "" : `, ${secondParsed} parsed`;
  return [
    [`outline ${OUTLINED}, cold (fresh server)`, ms(median(times.outlineCold))],
    [`outline ${OUTLINED}, warm`, ms(median(times.outlineWarm))],
    [
      `map of this repository, cold (${files} files, ${definitions} definitions)`,
      ms(median(times.mapCold)),
    ],
    ["map of this repository, cold: CPU time (all threads)", ms(median(times.mapColdCpu))],
    ["map of this repository, warm", ms(median(times.mapWarm))],
    [
      `map of this repository, second session (disk cache${parsedNote})`,
      ms(median(times.secondSession)),
    ],
    ["map of this repository, second session: CPU time", ms(median(times.secondSessionCpu))],
    ['find "Sandbox/resolve" across the repository, warm', ms(median(times.find))],
    ["toolhost peak RSS after the maps (VmHWM)", mb(peak)],
  ];
}

async function largeTree(binary: string, progress: Progress) {
  const root = mkdtempSync(join(tmpdir(), "toolhost-code-tree-"));
  const state = mkdtempSync(join(tmpdir(), "toolhost-code-bench-"));
  try {
    progress(`code: writing ${TREE_FILES} files`);
    writeCodeTree(root, TREE_FILES);
    progress(`code: map of ${TREE_FILES} files, cold, pinged throughout`);
    const s = await server(binary, root, state);
    let cold;
    let peak;
    let idle;
    try {
      idle = await idlePings(s);
      cold = await pinged(s, { operation: "map" });
      peak = s.peakRss();
    } finally {
      await s.close();
    }
    progress(`code: map of ${TREE_FILES} files, second session`);
    const second = await server(binary, root, state);
    let warm;
    try {
      warm = await pinged(second, { operation: "map" });
    } finally {
      await second.close();
    }
    const parsed = warm.data.parsed === undefined ? "" : `, ${warm.data.parsed} parsed`;
    return [
      [`map of ${TREE_FILES} generated files, cold`, ms(cold.ms)],
      [`map of ${TREE_FILES} files, cold: CPU time (all threads)`, ms(cold.cpuMs)],
      [
        `map of ${TREE_FILES} files, cold: longest ping wait (${cold.pings} pings)`,
        ms(cold.longestPingMs),
      ],
      [`longest ping wait with nothing running, the control (${IDLE_PINGS} pings)`, ms(idle)],
      [`map of ${TREE_FILES} files, cold: peak RSS (VmHWM)`, mb(peak)],
      [`map of ${TREE_FILES} files, second session (disk cache${parsed})`, ms(warm.ms)],
      [
        `map of ${TREE_FILES} files, second session: longest ping wait (${warm.pings} pings)`,
        ms(warm.longestPingMs),
      ],
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

async function hostile(binary: string, progress: Progress) {
  const root = mkdtempSync(join(tmpdir(), "toolhost-code-hostile-"));
  const state = mkdtempSync(join(tmpdir(), "toolhost-code-bench-"));
  try {
    writeHostileFiles(root);
    progress("code: map of the hostile files");
    const s = await server(binary, root, state);
    try {
      const map = await call(s, { operation: "map" });
      const note = /\[(\d+) files? not parsed, e\.g\. ([^\]]*)\]/.exec(map.text);
      return [
        [
          "map of 4 hostile files of 1 MiB and a small one: peak RSS (VmHWM)",
          `${mb(s.peakRss())} (${note ? `${note[1]} not parsed: ${note[2]}` : "all parsed"})`,
        ],
        ["map of the hostile files: wall time", ms(map.ms)],
      ];
    } finally {
      await s.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
    rmSync(state, { recursive: true, force: true });
  }
}

export async function codeReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const rows = [
    ...(await repository(binary, root, progress)),
    ...(TREE_FILES > 0 ? await largeTree(binary, progress) : []),
    ...(await hostile(binary, progress)),
  ];
  const wasm = WASM_FILES.reduce((sum, path) => sum + statSync(join(root, path)).size, 0);
  const size = statSync(binary).size;
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  const growth = baseline ? size - statSync(baseline).size : undefined;
  rows.push(
    ["grammars and runtime embedded (.wasm)", mb(wasm)],
    [
      "binary size",
      `${mb(size)}${
        growth === undefined ? "" : ` (${growth >= 0 ? "+" : ""}${mb(growth)} over the baseline)`
      }`,
    ],
  );
  return [
    "## Code symbols (tier 1: tree-sitter in workers)",
    "",
    markdownTable(["case", "median"], rows),
    "",
    `Cold: the first call of a fresh server and state directory (${RUNS} servers); the map is ` +
    "cold for the parse but follows one outline, so a worker and TypeScript's grammar are " +
    "loaded. Warm: the same call again, files unchanged (stat only). Second session: a new " +
    "server on the same state directory (the disk cache). The generated tree and the hostile " +
    "files are measured once. Set TOOLHOST_BENCH_BASELINE to a build without the code family " +
    "to see the binary's growth.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await codeReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

/**
 * The search part of the benchmark, on a generated tree (search_corpus.ts):
 *
 * - `grep` with its built-in search (the server runs with no rg on its PATH and
 *   TOOLHOST_GREP=builtin, so no rg shipped beside the binary is used either) against GNU
 *   `grep -r`, told to skip what toolhost skips (.git, build/, *.log);
 * - `glob` against `rg --files -g <glob>`.
 *
 * Each case: one untimed run of each, then RUNS runs alternating toolhost and the alternative,
 * medians. toolhost's time is one `tools/call` on a warm session, from request to reply; the
 * alternative's is spawning the command and reading all its output. Run it alone with
 * `deno run --allow-all scripts/bench/search_bench.ts`; the binary is $TOOLHOST_BENCH_BINARY
 * when set, else dist/toolhost. $TOOLHOST_BENCH_SEARCH_RUNS changes the number of runs;
 * $TOOLHOST_BENCH_SEARCH_CASES keeps only the cases whose name holds it (e.g. "glob");
 * $TOOLHOST_BENCH_BASELINE names an older toolhost binary, timed in the same alternation (each
 * case: toolhost, the older build, the alternative) in a column of its own.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, ms, times } from "./report.ts";
import { makeCorpus } from "./search_corpus.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";
import { cpuMs } from "./cpu_time.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_SEARCH_RUNS ?? 7);
const ONLY = process.env.TOOLHOST_BENCH_SEARCH_CASES ?? "";
const BASELINE = process.env.TOOLHOST_BENCH_BASELINE;
const TARGET_GREP = 1.5;
const TARGET_GLOB = 1.2;
/** What GNU grep must skip to search what toolhost searches. */
const GREP_SKIPS = ["--exclude-dir=.git", "--exclude-dir=build", "--exclude=*.log"];

type Progress = (text: string) => void;

interface Case {
  name: string;
  tool: "grep" | "glob";
  args: Record<string, unknown>;
  /** The alternative command line. */
  command: string[];
}

const LITERAL = "TODO_frobnicate";
const REGEX = "function [a-z]+Handler\\(";

function cases(): Case[] {
  const grep = (flags: string, pattern: string) => [
    "grep",
    flags,
    ...GREP_SKIPS,
    "--",
    pattern,
    ".",
  ];
  const rgFiles = (glob: string) => ["rg", "--files", "-g", glob];
  return [
    {
      name: "grep literal, files_with_matches (grep -rl)",
      tool: "grep",
      args: { pattern: LITERAL },
      command: grep("-rl", LITERAL),
    },
    {
      name: "grep literal, content (grep -rn)",
      tool: "grep",
      args: { pattern: LITERAL, output_mode: "content" },
      command: grep("-rn", LITERAL),
    },
    {
      name: "grep literal, case-insensitive, content (grep -rni)",
      tool: "grep",
      args: { pattern: "frobnicator", output_mode: "content", case_insensitive: true },
      command: grep("-rni", "frobnicator"),
    },
    {
      name: "grep regex, content (grep -rnE)",
      tool: "grep",
      args: { pattern: REGEX, output_mode: "content" },
      command: grep("-rnE", REGEX),
    },
    {
      name: "grep regex, count (grep -rcE)",
      tool: "grep",
      args: { pattern: REGEX, output_mode: "count" },
      command: grep("-rcE", REGEX),
    },
    {
      name: "grep regex \\w, files_with_matches (grep -rlE)",
      tool: "grep",
      args: { pattern: "\\w+Handler\\(token" },
      command: grep("-rlE", "\\w+Handler\\(token"),
    },
    {
      name: "glob **/*.ts (rg --files -g)",
      tool: "glob",
      args: { pattern: "**/*.ts" },
      command: rgFiles("**/*.ts"),
    },
    {
      name: "glob src/m1/**/*.md (rg --files -g)",
      tool: "glob",
      args: { pattern: "src/m1/**/*.md" },
      command: rgFiles("src/m1/**/*.md"),
    },
  ];
}

class Session {
  private constructor(readonly server: ServerProcess) {}

  /** The binary with `env`: `PATH` and extra variables for it alone. */
  static async start(binary: string, root: string, env: string[]): Promise<Session> {
    const session = new Session(new ServerProcess("env", [...env, binary, "--root", root]));
    await session.server.initialize();
    return session;
  }

  /** Milliseconds for one call, and what it found (structuredContent). */
  async call(tool: string, args: Record<string, unknown>): Promise<[number, unknown]> {
    const { ms, reply } = await this.server.tool(tool, args);
    return [ms, (reply.result as { structuredContent?: unknown }).structuredContent];
  }
}

/** Milliseconds to run `command` in `cwd` and read its output, and the lines it printed. */
function runCommand(command: string[], cwd: string): [number, number] {
  const started = performance.now();
  const run = spawnSync(command[0], command.slice(1), {
    cwd,
    maxBuffer: 1 << 30,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const elapsed = performance.now() - started;
  // grep exits 1 when nothing matched; anything above is a failure.
  if (run.error || (run.status ?? 2) > 1) {
    throw new Error(`${command.join(" ")} failed: ${run.error ?? run.stderr}`);
  }
  return [elapsed, run.stdout.toString().split("\n").filter(Boolean).length];
}

/** The search section of the report, in markdown. */
export async function searchReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  for (const tool of ["grep", "rg"]) {
    if (spawnSync(tool, ["--version"]).status !== 0) {
      return `## search\n\nskipped: \`${tool}\` is not installed`;
    }
  }
  const scratch = mkdtempSync(join(tmpdir(), "toolhost-search-bench-"));
  const noTools = join(scratch, "empty-bin");
  mkdirSync(noTools);
  try {
    progress("search: generating the corpus");
    const corpus = makeCorpus(join(scratch, "tree"));
    const builtin = await Session.start(binary, corpus.root, [
      `PATH=${noTools}`,
      "TOOLHOST_GREP=builtin",
    ]);
    const plain = await Session.start(binary, corpus.root, []);
    const before = BASELINE ? await Session.start(BASELINE, corpus.root, []) : undefined;
    const rows: string[][] = [];
    try {
      for (const c of cases().filter((c) => c.name.includes(ONLY))) {
        progress(`search: ${c.name}, ${RUNS} runs each after one untimed`);
        const session = c.tool === "grep" ? builtin : plain;
        // The older build is timed on glob only: its grep would need a session of its own.
        const older = c.tool === "glob" ? before : undefined;
        const [, found] = await session.call(c.tool, c.args);
        await older?.call(c.tool, c.args);
        const [, lines] = runCommand(c.command, corpus.root);
        const ours: number[] = [];
        const olders: number[] = [];
        const theirs: number[] = [];
        // CPU time over all runs: the server's (every thread), and the command's.
        let ourCpu = 0;
        let theirCpu = 0;
        for (let run = 0; run < RUNS; run++) {
          const server = cpuMs(session.server.pid).own;
          ours.push((await session.call(c.tool, c.args))[0]);
          ourCpu += cpuMs(session.server.pid).own - server;
          if (older) olders.push((await older.call(c.tool, c.args))[0]);
          const children = cpuMs("self").children;
          theirs.push(runCommand(c.command, corpus.root)[0]);
          theirCpu += cpuMs("self").children - children;
        }
        const ratio = median(ours) / median(theirs);
        const target = c.tool === "grep" ? TARGET_GREP : TARGET_GLOB;
        const summary = found as { files?: number; lines?: number | null; total?: number };
        const what = c.tool === "glob"
          ? `${summary.total} files`
          : `${summary.files} files${summary.lines == null ? "" : `, ${summary.lines} lines`}`;
        rows.push([
          c.name,
          ms(median(ours)),
          ms(median(theirs)),
          times(ratio),
          `≤ ${target}× (${ratio <= target ? "met" : "MISSED"})`,
          `${what}; ${lines} output lines`,
          `${ms(ourCpu / RUNS)} / ${ms(theirCpu / RUNS)} (${times(ourCpu / theirCpu)})`,
          ...(before
            ? [
              olders.length
                ? `${ms(median(olders))} (${times(median(olders) / median(theirs))})`
                : "",
            ]
            : []),
        ]);
      }
    } finally {
      await builtin.server.close();
      await plain.server.close();
      await before?.server.close();
    }
    return [
      "## search: built-in grep vs GNU grep, glob vs rg --files",
      "",
      markdownTable(
        [
          "case",
          "toolhost",
          "alternative",
          "ratio",
          "target (reference only)",
          "found",
          "CPU per run: toolhost / alternative",
          ...(before ? [`older build (${BASELINE})`] : []),
        ],
        rows,
      ),
      "",
      `Corpus: ${corpus.files.toLocaleString("en-US")} generated files, ` +
      `${(corpus.bytes / 1e6).toFixed(1)} MB, 1–4 levels deep, a .gitignore (*.log, build/) ` +
      "in a repository root (scripts/bench/search_corpus.ts). toolhost: dist/toolhost with " +
      "--root at the corpus, one warm session each; grep through the built-in search (no rg " +
      "on PATH, TOOLHOST_GREP=builtin). The alternative is spawned per run: GNU grep with " +
      `${GREP_SKIPS.join(" ")}, or rg --files -g. One untimed run each, then ${RUNS} ` +
      "alternating runs; medians. Ratio: toolhost ÷ the alternative. CPU: user + system time " +
      "from /proc (the server's, all threads; the command's as a waited-for child), averaged " +
      "over the runs.",
    ].join("\n");
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await searchReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

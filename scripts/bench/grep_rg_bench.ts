/**
 * grep with ripgrep against ripgrep itself: toolhost's `grep` called through the binary over
 * stdio (JSON lines) against `rg` run with the flags that give the same answer, on a generated
 * tree of several thousand source-like files. Per case, toolhost and rg alternate (one untimed
 * run each first) and the medians are compared.
 *
 * `rg` is compared twice: with `--sort=path` (toolhost's order: the same output, and rg then
 * walks on one thread) and as a user types it (unsorted, walking on every core).
 *
 * `deno task bench` prints it; run it alone with `deno run --allow-all
 * scripts/bench/grep_rg_bench.ts` (`--runs N`, `--files N`, `--before BINARY` to time an older
 * build too, in the same rounds). The binary is
 * $TOOLHOST_BENCH_BINARY when set, else dist/toolhost; rg is the one on PATH (the section is
 * skipped without one).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { cpuMs } from "./cpu_time.ts";
import { markdownTable, ms, times } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const TARGET_RATIO = 1.2;

type Progress = (text: string) => void;

interface Case {
  name: string;
  args: Record<string, unknown>;
  rg: string[];
}

const WORDS = [
  "alpha",
  "beta",
  "gamma",
  "delta",
  "value",
  "index",
  "buffer",
  "result",
  "config",
  "handler",
  "stream",
  "token",
  "parse",
  "render",
  "cache",
  "state",
];

/** A small deterministic generator, so every run searches the same tree. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    return x / 0x7fffffff;
  };
}

/**
 * `files` files of 40–120 lines in directories 3 deep, about a third of them with 1–6 lines
 * holding "Needle" (in varied case), and a .gitignore that hides one directory.
 */
export function generateTree(files: number): string {
  const root = mkdtempSync(join(tmpdir(), "toolhost-grep-bench-"));
  const next = random(42);
  const pick = <T>(items: T[]) => items[Math.floor(next() * items.length)];
  writeFileSync(join(root, ".gitignore"), "ignored/\n*.log\n");
  for (let i = 0; i < files; i++) {
    const dir = join(root, `pkg${i % 12}`, `mod${Math.floor(i / 12) % 25}`, `part${i % 5}`);
    mkdirSync(dir, { recursive: true });
    const lines: string[] = [];
    const count = 40 + Math.floor(next() * 80);
    const withNeedle = next() < 0.33;
    for (let n = 0; n < count; n++) {
      const words = Array.from({ length: 4 + Math.floor(next() * 8) }, () => pick(WORDS));
      if (withNeedle && next() < 0.05) words.splice(2, 0, pick(["needle", "Needle", "NEEDLE"]));
      lines.push(`  const ${words[0]}_${n} = ${words.slice(1).join(" + ")}; // ${n}`);
    }
    writeFileSync(join(dir, `file${i}.ts`), lines.join("\n") + "\n");
  }
  mkdirSync(join(root, "ignored"));
  writeFileSync(join(root, "ignored", "skip.ts"), "needle\n");
  return root;
}

const CASES: Case[] = [
  { name: "content", args: { output_mode: "content" }, rg: ["-n"] },
  { name: "files_with_matches", args: {}, rg: ["-l"] },
  { name: "count", args: { output_mode: "count" }, rg: ["-c"] },
  {
    name: "content, case-insensitive",
    args: { output_mode: "content", case_insensitive: true },
    rg: ["-n", "-i"],
  },
  {
    name: "count, case-insensitive",
    args: { output_mode: "count", case_insensitive: true },
    rg: ["-c", "-i"],
  },
];
const PATTERN = "needle|Needle";
/** Milliseconds for `rg` to search `root` and write everything to a pipe read to the end. */
function timeRg(rg: string, args: string[], root: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    // toolhost's rg also reads .gitignore without a repository and searches hidden files.
    const child = spawn(rg, ["--no-require-git", "--hidden", ...args, "-e", PATTERN, "."], {
      cwd: root,
      stdio: ["ignore", "pipe", "inherit"],
    });
    child.stdout!.on("data", () => {});
    child.once("error", reject);
    child.once("close", (code) => {
      if (code !== 0) reject(new Error(`rg ${args.join(" ")} exited with ${code}`));
      else resolve(performance.now() - started);
    });
  });
}

class Session {
  constructor(readonly server: ServerProcess) {}

  static async start(binary: string, root: string): Promise<Session> {
    const server = new ServerProcess(binary, ["--root", root]);
    await server.initialize();
    return new Session(server);
  }

  async grep(args: Record<string, unknown>): Promise<number> {
    const { ms, reply } = await this.server.tool("grep", { pattern: PATTERN, ...args });
    if (!/file\d+\.ts/.test(reply.result?.content?.[0]?.text ?? "")) {
      throw new Error(`grep ${JSON.stringify(args)} found nothing`);
    }
    return ms;
  }
}

export async function grepRgReport(
  root: string,
  progress: Progress,
  options: { runs?: number; files?: number; before?: string } = {},
): Promise<string> {
  const runs = options.runs ?? 15;
  const files = options.files ?? 6000;
  const rg = findRipgrep();
  if (!rg) return "## grep with rg against rg\n\nSkipped: no rg on PATH.";
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? join(root, "dist/toolhost");
  const tree = generateTree(files);
  const session = await Session.start(binary, tree);
  const before = options.before ? await Session.start(options.before, tree) : undefined;
  const rows: string[][] = [];
  try {
    for (const c of CASES) {
      progress(`grep vs rg: ${c.name}, ${runs} runs each`);
      const sample = {
        toolhost: [] as number[],
        sorted: [] as number[],
        plain: [] as number[],
        before: [] as number[],
      };
      // CPU time over all rounds: toolhost's server with the rg and find it ran, and sorted rg.
      let toolhostCpu = 0;
      let rgCpu = 0;
      let beforeCpu = 0;
      await session.grep(c.args);
      await before?.grep(c.args);
      await timeRg(rg, ["--sort=path", ...c.rg], tree);
      await timeRg(rg, c.rg, tree);
      for (let i = 0; i < runs; i++) {
        const server = cpuMs(session.server.pid);
        sample.toolhost.push(await session.grep(c.args));
        const served = cpuMs(session.server.pid);
        toolhostCpu += served.own + served.children - server.own - server.children;
        if (before) {
          const was = cpuMs(before.server.pid);
          sample.before.push(await before.grep(c.args));
          const now = cpuMs(before.server.pid);
          beforeCpu += now.own + now.children - was.own - was.children;
        }
        const mine = cpuMs("self");
        sample.sorted.push(await timeRg(rg, ["--sort=path", ...c.rg], tree));
        rgCpu += cpuMs("self").children - mine.children;
        sample.plain.push(await timeRg(rg, c.rg, tree));
      }
      const [t, s, p] = [median(sample.toolhost), median(sample.sorted), median(sample.plain)];
      const b = before ? median(sample.before) : undefined;
      rows.push([
        c.name,
        ...(b === undefined ? [] : [
          `${ms(b)} (${times(b / s)}; CPU ${ms(beforeCpu / runs)} = ${times(beforeCpu / rgCpu)})`,
        ]),
        ms(t),
        ms(s),
        times(t / s),
        ms(p),
        times(t / p),
        `${ms(toolhostCpu / runs)} / ${ms(rgCpu / runs)} = ${times(toolhostCpu / rgCpu)}`,
        `≤ ${TARGET_RATIO}× (${t / s <= TARGET_RATIO ? "met" : "MISSED"})`,
      ]);
    }
  } finally {
    await session.server.close();
    await before?.server.close();
    rmSync(tree, { recursive: true, force: true });
  }
  return [
    "## grep with rg against rg",
    "",
    markdownTable(
      [
        "case",
        ...(before ? ["before (ratio to sorted rg; CPU per run, ratio)"] : []),
        "toolhost grep",
        "rg --sort=path",
        "ratio",
        "rg (unsorted)",
        "ratio",
        "CPU per run: toolhost / sorted rg",
        "target vs sorted (reference only)",
      ],
      rows,
    ),
    "",
    `Pattern \`${PATTERN}\` over ${files} generated files (scripts/bench/grep_rg_bench.ts; ` +
    "about a third hold matches). toolhost: one session of the binary, grep through " +
    "tools/call from request to reply (rg found on PATH). rg: spawned with " +
    "--no-require-git --hidden and the mode's flag (-n, -l, -c, -i), output read from a " +
    `pipe to the end. One untimed run each, then ${runs} rounds alternating toolhost, sorted ` +
    "rg, plain rg; medians. CPU: user + system time from /proc (toolhost's server and the " +
    "rg and find it ran; rg's own), averaged over the rounds; in 10 ms ticks, so rough per run " +
    "but steady in total, and hardly moved by other load on the machine.",
  ].join("\n");
}

if (import.meta.main) {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: { runs: { type: "string" }, files: { type: "string" }, before: { type: "string" } },
  });
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await grepRgReport(root, (text) => process.stderr.write(`bench: ${text}\n`), {
      runs: values.runs ? Number(values.runs) : undefined,
      files: values.files ? Number(values.files) : undefined,
      before: values.before,
    }) + "\n",
  );
}

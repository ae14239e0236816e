/**
 * What journaling a command's changes costs a `bash` call: the snapshot of the roots before and
 * after it (tools/journal/_lib/observed/), measured through the binary as `bash` calls of `true`
 * with the journal on against the same binary with it off (`TOOLHOST_JOURNAL=false`), on this
 * repository (a git work tree: toolhost's private git index) and on a generated tree of 50,000
 * files in 500 directories (1.4 MiB of text), once committed to git and once without git (the
 * journal's own walk). Also a call that appends to one file (the change recorded: one diff, the
 * earlier content kept), and the first call of a fresh server (the private git directory made and
 * seeded, or the first walk reading and keeping every file).
 *
 * Per case, two persistent servers (stdio, legacy session), each with its own state directory;
 * after one untimed call each, calls alternate (on, off, on, ...); medians of wall time, and CPU
 * per call (the server's and the git processes it waited for, from /proc) over all of them.
 * Run alone with `deno run --allow-all scripts/bench/journal_commands_bench.ts`; the binary is
 * $TOOLHOST_BENCH_BINARY when set, else dist/toolhost.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { cpuMs } from "./cpu_time.ts";
import { markdownTable, ms } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_COMMAND_RUNS ?? 15);
const COLD_RUNS = Number(process.env.TOOLHOST_BENCH_COMMAND_COLD_RUNS ?? 3);
const FILES = 50_000;

type Progress = (text: string) => void;

async function server(binary: string, root: string, journal: boolean): Promise<ServerProcess> {
  const state = mkdtempSync(join(tmpdir(), "toolhost-cmd-bench-state-"));
  const saved = {
    TOOLHOST_STATE_DIR: process.env.TOOLHOST_STATE_DIR,
    TOOLHOST_JOURNAL: process.env.TOOLHOST_JOURNAL,
  };
  process.env.TOOLHOST_STATE_DIR = state;
  process.env.TOOLHOST_JOURNAL = String(journal);
  const started = new ServerProcess(binary, ["--root", root]);
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  started.exited.then(() => rmSync(state, { recursive: true, force: true }));
  await started.initialize();
  return started;
}

async function bash(s: ServerProcess, command: string): Promise<number> {
  const { ms, reply } = await s.tool("bash", { command });
  if (!reply.result || reply.result.isError) {
    throw new Error(`bash ${command} failed: ${JSON.stringify(reply).slice(0, 500)}`);
  }
  return ms;
}

/** CPU ms of a server and the children it waited for (git). */
function cpu(s: ServerProcess): number {
  const { own, children } = cpuMs(s.child.pid!);
  return own + children;
}

interface Measured {
  on: number;
  off: number;
  cpuOn: number;
  cpuOff: number;
}

/** `command` alternating on the two servers, RUNS times each after one untimed call. */
async function alternate(on: ServerProcess, off: ServerProcess, command: string) {
  await bash(on, command);
  await bash(off, command);
  const times = { on: [] as number[], off: [] as number[] };
  const cpuStart = { on: cpu(on), off: cpu(off) };
  for (let run = 0; run < RUNS; run++) {
    times.on.push(await bash(on, command));
    times.off.push(await bash(off, command));
  }
  return {
    on: median(times.on),
    off: median(times.off),
    cpuOn: (cpu(on) - cpuStart.on) / RUNS,
    cpuOff: (cpu(off) - cpuStart.off) / RUNS,
  } satisfies Measured;
}

/** The first bash call of fresh servers, journal on: medians of wall time. */
async function cold(binary: string, root: string): Promise<number> {
  const times: number[] = [];
  for (let run = 0; run < COLD_RUNS; run++) {
    const s = await server(binary, root, true);
    try {
      times.push(await bash(s, "true"));
    } finally {
      await s.close();
    }
  }
  return median(times);
}

/** 50,000 files of about 30 bytes in 500 directories; committed when `git`. */
function generated(git: boolean): string {
  const root = mkdtempSync(join(tmpdir(), `toolhost-cmd-bench-${git ? "git" : "plain"}-`));
  for (let d = 0; d < FILES / 100; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < 100; f++) writeFileSync(join(root, `d${d}`, `f${f}.txt`), `${d} ${f}\n`);
  }
  writeFileSync(join(root, "touched.txt"), "start\n");
  if (git) {
    const run = (...args: string[]) =>
      execFileSync("git", ["-c", "user.name=b", "-c", "user.email=b@b", ...args], { cwd: root });
    run("init", "-q");
    run("add", "-A");
    run("commit", "-qm", "generated");
  }
  return root;
}

async function measure(binary: string, root: string, changing: boolean) {
  const on = await server(binary, root, true);
  const off = await server(binary, root, false);
  try {
    const still = await alternate(on, off, "true");
    const change = changing ? await alternate(on, off, "echo x >> touched.txt") : undefined;
    return { still, change, first: await cold(binary, root) };
  } finally {
    await on.close();
    await off.close();
  }
}

function rows(name: string, m: Awaited<ReturnType<typeof measure>>): string[][] {
  const row = (what: string, x: Measured) => [
    `${name}: ${what}`,
    ms(x.on),
    ms(x.off),
    ms(x.on - x.off),
    ms(x.cpuOn),
    ms(x.cpuOff),
  ];
  const out = [row("`true`", m.still)];
  if (m.change) out.push(row("append to one file", m.change));
  out.push([`${name}: first call of a fresh server`, ms(m.first), "", "", "", ""]);
  return out;
}

export async function journalCommandsReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const table: string[][] = [];
  progress(`journal: bash on this repository, journal on vs off, ${RUNS} runs`);
  table.push(...rows("this repository (git)", await measure(binary, root, false)));
  for (const git of [true, false]) {
    const kind = git ? "git" : "no git";
    progress(`journal: generating ${FILES} files (${kind})`);
    const tree = generated(git);
    try {
      progress(`journal: bash on ${FILES} files (${kind}), journal on vs off, ${RUNS} runs`);
      table.push(...rows(`50,000 files, ${kind}`, await measure(binary, tree, true)));
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  }
  return [
    "## Commands' changes in the journal: what a `bash` call pays",
    "",
    markdownTable(
      ["case", "journal on", "journal off", "added", "CPU on", "CPU off"],
      table,
    ),
    "",
    "Wall times are medians per call, from sending it to its reply; CPU is per call, the " +
    "server's and the git processes' it waited for. Journal on: the roots snapshotted before and " +
    "after each call (git's private index at the top of a work tree, the journal's walk " +
    `elsewhere). Off: TOOLHOST_JOURNAL=false. After one untimed call each, ${RUNS} calls ` +
    `alternate (on, off, ...). First call: ${COLD_RUNS} fresh servers, median.`,
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await journalCommandsReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

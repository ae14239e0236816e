/**
 * What undo of directory trees costs the tools that change trees: `copy_file`, `move_file` and
 * `delete_file` of a tree (2,000 files of 4 KiB in 20 directories, 7.8 MiB) through the binary
 * with the journal on (default settings: the tree is kept before a delete, its shape and digests
 * taken after a copy or move) against the same binary with the journal off (`TOOLHOST_JOURNAL=
 * false`), which costs what the tools cost before trees were undoable.
 *
 * Two persistent servers (stdio, legacy session), each with its own root and state directory.
 * One run: copy the tree, move the copy, delete it, each timed from writing the call's line to
 * its reply. Runs alternate (on, off, on, ...) after one untimed run each; figures are medians.
 * Run alone with `deno run --allow-all scripts/bench/journal_trees_bench.ts`; the binary is
 * $TOOLHOST_BENCH_BINARY when set, else dist/toolhost.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, ms, times } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median } from "./stats.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_FILE_RUNS ?? 7);
const STEPS = ["copy_file", "move_file", "delete_file"] as const;

type Progress = (text: string) => void;

class Side {
  #id = 1;
  constructor(readonly server: ServerProcess, readonly root: string) {}

  static async start(binary: string, journal: boolean): Promise<Side> {
    const root = mkdtempSync(join(tmpdir(), "toolhost-trees-bench-"));
    for (let d = 0; d < 20; d++) {
      mkdirSync(join(root, "tree", `d${d}`), { recursive: true });
      for (let f = 0; f < 100; f++) {
        writeFileSync(join(root, "tree", `d${d}`, `f${f}.txt`), `${d} ${f} `.repeat(600));
      }
    }
    const saved = {
      TOOLHOST_STATE_DIR: process.env.TOOLHOST_STATE_DIR,
      TOOLHOST_JOURNAL: process.env.TOOLHOST_JOURNAL,
    };
    process.env.TOOLHOST_STATE_DIR = join(root, ".state");
    process.env.TOOLHOST_JOURNAL = String(journal);
    const server = new ServerProcess(binary, ["--root", root]);
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    await server.initialize();
    return new Side(server, root);
  }

  async time(name: string, args: Record<string, unknown>): Promise<number> {
    const request = { id: this.#id++, method: "tools/call", params: { name, arguments: args } };
    const line = JSON.stringify({ jsonrpc: "2.0", ...request }) + "\n";
    const sent = performance.now();
    await this.server.pipeline([request], line);
    return performance.now() - sent;
  }

  /** One run: copy, move, delete; milliseconds of each. */
  async run(n: number): Promise<number[]> {
    return [
      await this.time("copy_file", { source: "tree", destination: `c${n}`, recursive: true }),
      await this.time("move_file", { source: `c${n}`, destination: `m${n}` }),
      await this.time("delete_file", { path: `m${n}`, recursive: true }),
    ];
  }

  async close(): Promise<void> {
    await this.server.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

export async function journalTreesReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  progress(`journal: copy, move, delete of a 2,000-file tree, journal on vs off, ${RUNS} runs`);
  const on = await Side.start(binary, true);
  const off = await Side.start(binary, false);
  const timesOn: number[][] = [[], [], []];
  const timesOff: number[][] = [[], [], []];
  try {
    await on.run(-1);
    await off.run(-1);
    for (let n = 0; n < RUNS; n++) {
      (await on.run(n)).forEach((t, i) => timesOn[i].push(t));
      (await off.run(n)).forEach((t, i) => timesOff[i].push(t));
    }
  } finally {
    await on.close();
    await off.close();
  }
  const rows = STEPS.map((step, i) => [
    `${step}, 2,000 files (7.8 MiB)`,
    ms(median(timesOn[i])),
    ms(median(timesOff[i])),
    times(median(timesOn[i]) / median(timesOff[i])),
  ]);
  return [
    "## Undo of directory trees: what the journal adds",
    "",
    markdownTable(["case", "journal on, median", "journal off, median", "ratio"], rows),
    "",
    "Journal on: the tree is kept whole before delete_file (files as blobs), its shape and file " +
    "digests taken after copy_file and move_file (here a rename). Off: TOOLHOST_JOURNAL=false. " +
    `After one untimed run each, ${RUNS} runs alternate (on, off, ...).`,
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await journalTreesReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

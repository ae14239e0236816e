/**
 * Peak resident memory of dist/toolhost under the bursts a hostile or careless client can send
 * (issue 28, item 1): pipelined calls mixing `ping`, `list_roots` and `read_file` of a tiny file;
 * pipelined `read_file` of a 100 KB file read as fast as the replies come; one 16 MB request line
 * of nested `[`. Each case runs on a fresh process whose stdin `cat` fills from a file as fast as
 * the pipe takes it; the figure is VmHWM from /proc/<pid>/status at the last reply, and every
 * request must be answered exactly once. Runs alone:
 * `./node_modules/.bin/deno run --allow-all scripts/bench/memory_floods_bench.ts`
 * (`TOOLHOST_BENCH_MEMORY_CASES=mixed` runs only the cases whose name holds it).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable, mb } from "./report.ts";
import { initializeRequest } from "./server_process.ts";

/** The promise the figures are held against (printed, never asserted). */
const TARGET_PEAK_BYTES = 150e6;
const TIMEOUT_MS = 600_000;

export interface MemoryFloodRun {
  name: string;
  peakRssBytes: number;
  replies: number;
  errors: number;
  seconds: number;
}

interface FloodCase {
  name: string;
  /** The request lines after initialize; ids from 1 up, each answered once. */
  lines(dir: string): { lines: string[]; requests: number };
}

const call = (id: number, name: string, args: Record<string, unknown>) =>
  JSON.stringify({
    jsonrpc: "2.0",
    id,
    method: "tools/call",
    params: { name, arguments: args },
  });

const ping = (id: number) => `{"jsonrpc":"2.0","id":${id},"method":"ping"}`;

function mixed(count: number): FloodCase {
  return {
    name: `${count.toLocaleString("en-US")} pipelined ping, list_roots, read_file (tiny file)`,
    lines(dir) {
      writeFileSync(join(dir, "tiny.txt"), "one\ntwo\nthree\n");
      const path = join(dir, "tiny.txt");
      const lines: string[] = [];
      for (let id = 1; id <= count; id++) {
        const turn = id % 3;
        lines.push(
          turn === 0
            ? ping(id)
            : turn === 1
            ? call(id, "list_roots", {})
            : call(id, "read_file", { path }),
        );
      }
      return { lines, requests: count };
    },
  };
}

function largeReads(count: number): FloodCase {
  return {
    name: `${count.toLocaleString("en-US")} pipelined read_file of a 100 KB file`,
    lines(dir) {
      const path = join(dir, "page.txt");
      writeFileSync(path, `${"x".repeat(99)}\n`.repeat(1000));
      const lines: string[] = [];
      for (let id = 1; id <= count; id++) lines.push(call(id, "read_file", { path }));
      return { lines, requests: count };
    },
  };
}

function nestedLine(megabytes: number): FloodCase {
  return {
    name: `one ${megabytes} MB line of nested \`[\`, then a ping`,
    lines() {
      return { lines: ["[".repeat(megabytes << 20), ping(1)], requests: 2 };
    },
  };
}

export const MEMORY_FLOOD_CASES: FloodCase[] = [
  mixed(100_000),
  mixed(300_000),
  largeReads(20_000),
  nestedLine(16),
];

function peakRss(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

/** Runs one case on a fresh server; every reply line is counted once by its id. */
export async function memoryFlood(binary: string, flood: FloodCase): Promise<MemoryFloodRun> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-memory-"));
  const file = join(dir, "requests.jsonl");
  const { lines, requests } = flood.lines(dir);
  writeFileSync(
    file,
    [
      JSON.stringify({ jsonrpc: "2.0", ...initializeRequest(0) }),
      '{"jsonrpc":"2.0","method":"notifications/initialized"}',
      ...lines,
    ].join("\n") + "\n",
  );
  lines.length = 0;
  const child = spawn(
    "bash",
    ["-c", 'exec "$@" < <(cat "$0" -)', file, binary, "--root", dir],
    { stdio: ["pipe", "pipe", "ignore"] },
  );
  child.stdin!.on("error", () => {});
  const started = performance.now();
  try {
    return await new Promise<MemoryFloodRun>((resolve, reject) => {
      const seen = new Uint8Array(requests + 1);
      let replies = 0;
      let errors = 0;
      let partial = "";
      const timer = setTimeout(
        () => reject(new Error(`${flood.name}: ${replies} of ${requests + 1} replies in time`)),
        TIMEOUT_MS,
      );
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${flood.name}: exited (code ${code}) after ${replies} replies`));
      });
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", (text: string) => {
        const got = (partial + text).split("\n");
        partial = got.pop()!;
        for (const line of got) {
          const id = /^\{"jsonrpc":"2\.0","id":(\d+|null)/.exec(line)?.[1] ??
            /"id":(\d+)\}?$/.exec(line)?.[1];
          if (id === undefined) continue; // a notification
          if (line.includes('"error"') || line.includes('"isError":true')) errors++;
          if (id !== "null") {
            if (seen[Number(id)]++ > 0) {
              reject(new Error(`${flood.name}: request ${id} answered twice`));
              return;
            }
          } else if (seen[requests]++ > 0) {
            // An error with id null stands for the one request whose id could not be read.
            reject(new Error(`${flood.name}: two replies with id null`));
            return;
          }
          replies++;
        }
        if (replies === requests + 1) {
          clearTimeout(timer);
          resolve({
            name: flood.name,
            peakRssBytes: peakRss(child.pid!),
            replies,
            errors,
            seconds: (performance.now() - started) / 1000,
          });
        }
      });
    });
  } finally {
    child.stdin!.end();
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section `deno task bench` prints. */
export async function memoryFloodsReport(
  root: string,
  progress: (text: string) => void,
): Promise<string> {
  const only = process.env.TOOLHOST_BENCH_MEMORY_CASES;
  const rows: string[][] = [];
  for (const flood of MEMORY_FLOOD_CASES) {
    if (only && !flood.name.includes(only)) continue;
    progress(`memory: ${flood.name}`);
    const run = await memoryFlood(`${root}dist/toolhost`, flood);
    rows.push([
      run.name,
      mb(run.peakRssBytes),
      `${run.replies.toLocaleString("en-US")} (${run.errors} errors)`,
      `${run.seconds.toFixed(1)} s`,
      run.peakRssBytes <= TARGET_PEAK_BYTES ? "≤ 150 MB: met" : "≤ 150 MB: MISSED",
    ]);
  }
  return [
    "## Peak memory under bursts (dist/toolhost)",
    "",
    markdownTable(["burst", "peak RSS (VmHWM)", "replies", "time", "target"], rows),
    "",
    "Method: after initialize, the requests sit in a file that `cat` writes into a fresh " +
    "server's stdin as fast as the pipe takes them, while the replies are read as they come; " +
    "VmHWM from /proc/<pid>/status at the last reply (counting initialize's); every request " +
    "must be answered exactly once (an error is an answer). MB = 10^6 bytes.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  process.stdout.write(
    await memoryFloodsReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

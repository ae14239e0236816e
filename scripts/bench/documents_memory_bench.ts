/**
 * Peak resident memory of dist/toolhost reading hostile documents (issue 36 §4), made on the spot
 * (hostile_documents.ts): a PDF whose content stream inflates to 1.25 GiB, and .xlsx files whose
 * shared-string tables are 96 and 16 MiB of one-letter strings (5.9 and 1 million), each read with
 * `read_file` on a fresh server over stdio while a ping goes every 50 ms. The figures: VmHWM from
 * /proc/<pid>/status once the call is answered, what the call said, and the longest a ping
 * waited. Runs alone: `./node_modules/.bin/deno run --allow-all scripts/bench/documents_memory_bench.ts`
 * (`TOOLHOST_BENCH_BINARY=path` measures another build).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { pdfBomb, sharedStringsXlsx } from "./hostile_documents.ts";
import { LineReader } from "./line_reader.ts";
import { markdownTable, mb, ms } from "./report.ts";
import { initializeRequest } from "./server_process.ts";

const TARGET_PEAK_BYTES = 150e6;
const PING_EVERY_MS = 50;
const TIMEOUT_MS = 300_000;

interface DocumentCase {
  name: string;
  file: string;
  make(): Promise<Buffer>;
}

export const DOCUMENT_CASES: DocumentCase[] = [
  {
    name: "a PDF whose content stream inflates to 1.25 GiB (1.3 MB file)",
    file: "bomb.pdf",
    make: () => pdfBomb("boom", 1280 * 1024 * 1024),
  },
  {
    name: "an .xlsx of 5.9 million shared strings (96 MiB inflated)",
    file: "strings.xlsx",
    make: () => sharedStringsXlsx(96 * 1024 * 1024),
  },
  {
    name: "an .xlsx of 1 million shared strings (16 MiB inflated, within the zip's bound)",
    file: "strings16.xlsx",
    make: () => sharedStringsXlsx(16 * 1024 * 1024),
  },
];

export interface DocumentRun {
  name: string;
  peakRssBytes: number;
  answer: string;
  longestPingMs: number;
  seconds: number;
}

export async function documentMemory(binary: string, which: DocumentCase): Promise<DocumentRun> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-documents-"));
  writeFileSync(join(dir, which.file), await which.make());
  const child = spawn(binary, ["--root", dir], { stdio: ["pipe", "pipe", "ignore"] });
  child.stdin!.on("error", () => {});
  const waiting = new Map<number, (reply: Record<string, unknown>) => void>();
  const reader = new LineReader((line) => {
    const reply = JSON.parse(line);
    waiting.get(reply.id)?.(reply);
    waiting.delete(reply.id);
  });
  child.stdout!.setEncoding("utf8").on("data", (text: string) => reader.push(text));
  const request = (id: number, method: string, params?: Record<string, unknown>) => {
    const replied = new Promise<Record<string, unknown>>((resolve) => waiting.set(id, resolve));
    child.stdin!.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
    return replied;
  };
  const started = performance.now();
  let longestPingMs = 0;
  let pinging = true;
  try {
    const init = initializeRequest(0);
    await request(0, init.method, init.params);
    child.stdin!.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    const pings = (async () => {
      for (let id = 1_000; pinging; id++) {
        const sent = performance.now();
        await request(id, "ping");
        longestPingMs = Math.max(longestPingMs, performance.now() - sent);
        await new Promise((resolve) => setTimeout(resolve, PING_EVERY_MS));
      }
    })();
    let timer: ReturnType<typeof setTimeout> | undefined;
    const reply = await Promise.race([
      request(1, "tools/call", { name: "read_file", arguments: { path: which.file } }),
      new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new Error(`${which.name}: no answer`)), TIMEOUT_MS);
      }),
    ]).finally(() => clearTimeout(timer));
    pinging = false;
    await pings;
    const status = readFileSync(`/proc/${child.pid}/status`, "utf8");
    const result = reply.result as { content?: { text?: string }[]; isError?: boolean };
    const text = result?.content?.[0]?.text ?? JSON.stringify(reply).slice(0, 200);
    return {
      name: which.name,
      peakRssBytes: Number(/^VmHWM:\s+(\d+) kB$/m.exec(status)![1]) * 1024,
      answer: `${result?.isError ? "refused: " : "read: "}${text.slice(0, 160)}`,
      longestPingMs,
      seconds: (performance.now() - started) / 1000,
    };
  } finally {
    pinging = false;
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The section `deno task bench` prints. */
export async function documentsMemoryReport(
  root: string,
  progress: (text: string) => void,
): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  const rows: string[][] = [];
  for (const which of DOCUMENT_CASES) {
    progress(`documents memory: ${which.name}`);
    const run = await documentMemory(binary, which);
    rows.push([
      run.name,
      mb(run.peakRssBytes),
      run.answer.replace(/\|/g, "\\|").replace(/\n/g, " "),
      ms(run.longestPingMs),
      `${run.seconds.toFixed(1)} s`,
      run.peakRssBytes <= TARGET_PEAK_BYTES ? "≤ 150 MB: met" : "≤ 150 MB: MISSED",
    ]);
  }
  return [
    "## Peak memory reading hostile documents (dist/toolhost)",
    "",
    markdownTable(
      ["document", "peak RSS (VmHWM)", "answer", "longest ping", "time", "target"],
      rows,
    ),
    "",
    "Method: each document made on the spot (scripts/bench/hostile_documents.ts), read with " +
    "`read_file` on a fresh server over stdio, a `ping` sent every 50 ms meanwhile; VmHWM from " +
    "/proc/<pid>/status once the call is answered. MB = 10^6 bytes.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../../", import.meta.url));
  process.stdout.write(
    await documentsMemoryReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

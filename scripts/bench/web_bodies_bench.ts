/**
 * fetch_url on hostile and non-HTML bodies, through the binary, against pages served from
 * 127.0.0.1 by this process:
 *
 * - memory: peak RSS of a fresh server for one fetch_url of a 9.5 MB page of `<br>` (half a
 *   million elements in its first 2 MiB), and for eight such calls sent at once;
 * - the main thread's CPU per fetch_url of a 2 MiB HTML page, 2 MiB of JSON and 2 MiB of text
 *   (Linux: /proc/<pid>/task/<pid>/schedstat), and the slowest ping while 9 MB of JSON is fetched.
 *
 * With $TOOLHOST_BENCH_BASELINE (another build, say of an older commit) every figure is measured
 * for both binaries, alternating, in one run. `deno task bench` prints it after the web section;
 * run it alone with `deno run --allow-all scripts/bench/web_bodies_bench.ts`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { existsSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { markdownTable } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median, percentile } from "./stats.ts";
import { generatedPage } from "./web_page.ts";

type Progress = (text: string) => void;

const MIB = 1024 * 1024;
const ROUNDS = 3;
const PARALLEL = 8;
const CPU_RUNS = 7;
const PING_INTERVAL_MS = 5;

const BODIES: Record<string, { type: string; body: Uint8Array }> = {
  dense: { type: "text/html", body: new TextEncoder().encode("<br>".repeat(9.5 * MIB / 4)) },
  html: { type: "text/html", body: new TextEncoder().encode(generatedPage(2 * MIB)) },
  json: { type: "application/json", body: jsonOf(2 * MIB) },
  bigjson: { type: "application/json", body: jsonOf(9 * MIB) },
  text: {
    type: "text/plain",
    body: new TextEncoder().encode("a line of plain text\n".repeat(MIB / 10)),
  },
};

function jsonOf(bytes: number): Uint8Array {
  const row = (i: number) => `{"id":${i},"name":"row ${i}","tags":["a","b"],"ok":true}`;
  const rows: string[] = [];
  for (let i = 0, size = 2; size < bytes; i++) size += row(i).length + 1, rows.push(row(i));
  return new TextEncoder().encode(`[${rows.join(",")}]`);
}

async function serve(): Promise<{ server: Server; base: string }> {
  const server = createServer((request, response) => {
    const page = BODIES[new URL(request.url!, "http://x").pathname.slice(1)];
    if (!page) return response.writeHead(404).end();
    response.writeHead(200, { "content-type": page.type, "content-length": page.body.length });
    response.end(page.body);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

function cpuMs(pid: number): number {
  return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
}

async function started(binary: string): Promise<ServerProcess> {
  const server = new ServerProcess(binary, ["--allow-private-network"]);
  await server.initialize();
  return server;
}

let n = 0;
const call = (server: ServerProcess, base: string, page: string) =>
  server.tool("fetch_url", { url: `${base}/${page}?n=${n++}` });

/** Peak RSS (MiB) of a fresh server after `calls` fetch_url calls of the dense page at once. */
async function densePeak(binary: string, base: string, calls: number): Promise<number> {
  const server = await started(binary);
  try {
    await Promise.all(Array.from({ length: calls }, () => call(server, base, "dense")));
    return server.peakRss() / MIB;
  } finally {
    await server.close();
  }
}

interface Figures {
  one: number[];
  parallel: number[];
  cpu: Map<string, number[]>;
  pings: number[];
}

/** CPU per fetch by body, and pings while the big JSON is fetched, in one fresh server. */
async function mainThread(binary: string, base: string, into: Figures): Promise<void> {
  const server = await started(binary);
  try {
    for (const page of ["html", "json", "text"]) {
      const list = into.cpu.get(page) ?? [];
      into.cpu.set(page, list);
      for (let run = 0; run <= CPU_RUNS; run++) {
        const before = cpuMs(server.pid);
        await call(server, base, page);
        if (run > 0) list.push(cpuMs(server.pid) - before);
      }
    }
    let id = 1;
    for (let run = 0; run < ROUNDS; run++) {
      let done = false;
      const fetched = call(server, base, "bigjson").finally(() => done = true);
      while (!done) {
        const wait = new Promise((resolve) => setTimeout(resolve, PING_INTERVAL_MS));
        const sent = performance.now();
        await server.request({ id: id++, method: "ping" });
        into.pings.push(performance.now() - sent);
        await wait;
      }
      await fetched;
    }
  } finally {
    await server.close();
  }
}

export async function webBodiesReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  const binaries: [string, string][] = [["toolhost", binary]];
  const baseline = process.env.TOOLHOST_BENCH_BASELINE;
  if (baseline) binaries.unshift(["baseline", baseline]);
  const figures = new Map(binaries.map(([name]) => [name, {
    one: [],
    parallel: [],
    cpu: new Map(),
    pings: [],
  } as Figures]));
  const { server, base } = await serve();
  try {
    for (let round = 0; round < ROUNDS; round++) {
      progress(`web bodies: round ${round + 1} of ${ROUNDS} (${binaries.length} binaries)`);
      for (const [name, path] of binaries) {
        const into = figures.get(name)!;
        into.one.push(await densePeak(path, base, 1));
        into.parallel.push(await densePeak(path, base, PARALLEL));
        if (round === 0) await mainThread(path, base, into);
      }
    }
  } finally {
    server.close();
  }
  const fixed = (value: number, unit: string) => `${value.toFixed(unit === "MiB" ? 0 : 2)} ${unit}`;
  const rows = [...figures].flatMap(([name, f]) => [
    [name, "peak RSS, one fetch_url of 9.5 MB of `<br>`", fixed(median(f.one), "MiB")],
    [name, `peak RSS, ${PARALLEL} such calls at once`, fixed(median(f.parallel), "MiB")],
    ...[...f.cpu].map(([page, list]) => [
      name,
      `main thread's CPU per fetch_url of 2 MiB of ${page}, median of ${list.length}`,
      fixed(median(list), "ms"),
    ]),
    [
      name,
      `ping while fetch_url fetches 9 MB of JSON: p99 / max of ${f.pings.length}`,
      `${fixed(percentile(f.pings, 99), "ms")} / ${fixed(Math.max(...f.pings), "ms")}`,
    ],
  ]);
  return [
    "## fetch_url: dense pages and non-HTML bodies",
    "",
    markdownTable(["binary", "metric", "value"], rows),
    "",
    `Method: bodies served from 127.0.0.1 by the bench process. Peak RSS is the server's VmHWM, ` +
    `a fresh server for each figure, median of ${ROUNDS} rounds (binaries alternating). CPU: ` +
    `/proc/<pid>/task/<pid>/schedstat around each call, after one untimed call. Pings are sent ` +
    `${PING_INTERVAL_MS} ms apart (or as soon as the last reply came) during ${ROUNDS} fetches.`,
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await webBodiesReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

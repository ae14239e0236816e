/**
 * The web part of the benchmark: fetch_url through the binary against generated pages
 * (web_page.ts) served from 127.0.0.1 by a helper process on node (turndown_fetch.ts; the binary
 * runs with --allow-private-network).
 *
 * - Head of line: `ping` round trips, one after another, while fetch_url converts a 2 MiB page,
 *   against pings on an idle server, and against pings on an idle server while the helper
 *   converts the same page with turndown (the same load on the machine, none of it in toolhost).
 * - Conversion: fetch_url of a 1 MiB and a 2 MiB page, default mode (main content) and
 *   `raw: true`, against the plain alternative: `fetch` plus turndown on node, in the helper;
 *   runs alternate (toolhost, toolhost raw, turndown, and again).
 *
 * `deno task bench` prints it after the other sections; run it alone with
 * `deno run --allow-all scripts/bench/web_bench.ts`. The binary is $TOOLHOST_BENCH_BINARY when
 * set, else dist/toolhost.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { LineReader } from "./line_reader.ts";
import { markdownTable, ms, times } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median, percentile } from "./stats.ts";

const TURNDOWN_BUNDLE = "dist/bench/turndown-fetch.mjs";
const MIB = 1024 * 1024;
const SIZES = [MIB, 2 * MIB];
const RUNS = 9;
const IDLE_PINGS = 200;
/** Head-of-line runs: each a 2 MiB conversion with pings going on beside it. */
const BUSY_RUNS = 9;
/** Pings start this far apart, so the client does not take a core from the server. */
const PING_INTERVAL_MS = 5;

const TARGET_BUSY_PING_MS = 5;
const TARGET_RATIO = 0.5;

type Progress = (text: string) => void;

const label = (size: number) => `${size / MIB} MiB`;

/** The node helper: serves the pages, and converts one with fetch + turndown when asked. */
class Helper {
  /** Who gets each line the helper prints, in order. */
  #waiting: { resolve(line: string): void; reject(error: Error): void }[] = [];
  readonly child: ChildProcess;

  constructor(bundle: string) {
    this.child = spawn("node", [bundle, ...SIZES.map(String)], {
      stdio: ["pipe", "pipe", "inherit"],
    });
    const reader = new LineReader((line) => this.#waiting.shift()?.resolve(line));
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (text: string) => reader.push(text));
    this.child.once("exit", (code) => {
      const error = new Error(`the turndown helper exited (code ${code})`);
      for (const waiter of this.#waiting.splice(0)) waiter.reject(error);
    });
  }

  #next(): Promise<string> {
    return new Promise((resolve, reject) => this.#waiting.push({ resolve, reject }));
  }

  /** The address serving /page/<bytes>. */
  async base(): Promise<string> {
    return JSON.parse(await this.#next()).base;
  }

  /** Milliseconds for fetch + turndown of one URL. */
  async turndown(url: string): Promise<number> {
    const line = this.#next();
    this.child.stdin!.write(url + "\n");
    return JSON.parse(await line).ms;
  }

  close(): void {
    this.child.stdin!.end();
    this.child.kill();
  }
}

class Session {
  #id = 1;
  constructor(readonly server: ServerProcess) {}

  static async start(binary: string): Promise<Session> {
    const session = new Session(new ServerProcess(binary, ["--allow-private-network"]));
    await session.server.initialize();
    return session;
  }

  /** Milliseconds for one ping round trip. */
  async ping(): Promise<number> {
    const sent = performance.now();
    await this.server.request({ id: this.#id++, method: "ping" });
    return performance.now() - sent;
  }

  /** Pings, PING_INTERVAL_MS apart (or one after another when slower), until `enough`. */
  async pings(into: number[], enough: () => boolean): Promise<void> {
    while (!enough()) {
      const wait = new Promise((resolve) => setTimeout(resolve, PING_INTERVAL_MS));
      into.push(await this.ping());
      await wait;
    }
  }

  /** Milliseconds for one fetch_url call; fails unless the page came back converted. */
  async fetch(url: string, raw: boolean): Promise<number> {
    const { ms, reply } = await this.server.tool("fetch_url", {
      url,
      ...(raw ? { raw: true } : {}),
    });
    const text = reply.result?.content?.[0]?.text ?? "";
    if (!text.includes("Section 1: ")) throw new Error(`fetch_url ${url}: ${text.slice(0, 300)}`);
    return ms;
  }
}

interface Figures {
  idlePings: number[];
  busyPings: number[];
  /** Pings to the idle server while the helper converts the 2 MiB page with turndown. */
  loadPings: number[];
  /** Milliseconds per run, by `${size} ${mode}`. */
  fetches: Map<string, number[]>;
  turndown: Map<number, number[]>;
  /** The main thread's CPU milliseconds during each default-mode fetch_url of 2 MiB. */
  mainThreadCpu: number[];
}

/** CPU time the process's main thread has used, in ms (Linux), or undefined elsewhere. */
function mainThreadCpuMs(pid: number): number | undefined {
  try {
    return Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, "utf8").split(" ")[0]) / 1e6;
  } catch {
    return undefined;
  }
}

async function measure(root: string, binary: string, progress: Progress): Promise<Figures> {
  const helper = new Helper(`${root}${TURNDOWN_BUNDLE}`);
  const base = await helper.base();
  let n = 0;
  const url = (size: number) => `${base}/page/${size}?n=${n++}`;
  const session = await Session.start(binary);
  try {
    const figures: Figures = {
      idlePings: [],
      busyPings: [],
      loadPings: [],
      fetches: new Map(),
      turndown: new Map(),
      mainThreadCpu: [],
    };
    progress(`web: ${IDLE_PINGS} pings on an idle server, ${PING_INTERVAL_MS} ms apart`);
    let idle = 0;
    await session.pings(figures.idlePings, () => ++idle > IDLE_PINGS);

    progress(
      `web: fetch_url and fetch + turndown alternating, ${RUNS} runs each after one untimed`,
    );
    for (const size of SIZES) {
      const lists = { default: [] as number[], raw: [] as number[], turndown: [] as number[] };
      for (let run = 0; run <= RUNS; run++) {
        const timed = (list: number[], value: number) => run > 0 && list.push(value);
        const cpuBefore = mainThreadCpuMs(session.server.pid);
        timed(lists.default, await session.fetch(url(size), false));
        const cpuAfter = mainThreadCpuMs(session.server.pid);
        if (size === 2 * MIB && cpuBefore !== undefined && cpuAfter !== undefined) {
          timed(figures.mainThreadCpu, cpuAfter - cpuBefore);
        }
        timed(lists.raw, await session.fetch(url(size), true));
        timed(lists.turndown, await helper.turndown(url(size)));
      }
      figures.fetches.set(`${size} false`, lists.default);
      figures.fetches.set(`${size} true`, lists.raw);
      figures.turndown.set(size, lists.turndown);
    }

    progress(`web: pings while a 2 MiB page is converted, by toolhost or by turndown beside it`);
    for (let run = 0; run < BUSY_RUNS; run++) {
      let done = false;
      const call = session.fetch(url(2 * MIB), false).finally(() => done = true);
      await session.pings(figures.busyPings, () => done);
      await call;
      done = false;
      const beside = helper.turndown(url(2 * MIB)).finally(() => done = true);
      await session.pings(figures.loadPings, () => done);
      await beside;
    }
    return figures;
  } finally {
    await session.server.close();
    helper.close();
  }
}

function buildTurndown(root: string): void {
  mkdirSync(`${root}dist/bench`, { recursive: true });
  execFileSync(`${root}node_modules/.bin/bun`, [
    "build",
    "--target=node",
    "--minify",
    "--outfile",
    TURNDOWN_BUNDLE,
    "scripts/bench/turndown_fetch.ts",
  ], { cwd: root, stdio: ["ignore", "ignore", "inherit"] });
}

/** The web section of the report, in markdown. */
export async function webReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  if (!existsSync(binary)) throw new Error(`${binary} is missing: run \`deno task build\``);
  buildTurndown(root);
  const figures = await measure(root, binary, progress);
  const fine = (value: number) => `${value.toFixed(2)} ms`;
  const spread = (list: number[]) =>
    `${fine(median(list))} (p99 ${fine(percentile(list, 99))}, max ` +
    `${fine(list.reduce((a, b) => Math.max(a, b)))}, ${list.length} pings)`;
  const busyP99 = percentile(figures.busyPings, 99);
  const rows = [
    ["ping round trip, idle server, median", spread(figures.idlePings), "", "", ""],
    [
      "ping round trip while fetch_url converts a 2 MiB page, median",
      spread(figures.busyPings),
      "",
      "",
      `≤ ${TARGET_BUSY_PING_MS} ms p99 (${busyP99 <= TARGET_BUSY_PING_MS ? "met" : "MISSED"})`,
    ],
    [
      "ping round trip, idle server, while turndown converts a 2 MiB page beside it, median",
      spread(figures.loadPings),
      "",
      "",
      "the machine's share of the line above",
    ],
    ...(figures.mainThreadCpu.length
      ? [[
        "main thread's CPU time during a default-mode fetch_url of a 2 MiB page, median",
        fine(median(figures.mainThreadCpu)),
        "",
        "",
        "in many short pieces: at most what one request can wait behind, whatever the load",
      ]]
      : []),
  ];
  for (const size of SIZES) {
    const alternative = median(figures.turndown.get(size)!);
    for (const raw of [false, true]) {
      const toolhost = median(figures.fetches.get(`${size} ${raw}`)!);
      const ratio = toolhost / alternative;
      rows.push([
        `fetch_url of a ${label(size)} page, ${raw ? "raw: true" : "default (main content)"}, ` +
        `median of ${RUNS}`,
        ms(toolhost),
        ms(alternative),
        times(ratio),
        raw ? "" : `≤ ${TARGET_RATIO}× (${ratio <= TARGET_RATIO ? "met" : "MISSED"})`,
      ]);
    }
  }
  return [
    "## fetch_url: head-of-line blocking and conversion time",
    "",
    markdownTable(
      ["metric", "toolhost", "fetch + turndown on node", "ratio", "target (reference only)"],
      rows,
    ),
    "",
    "Ratio: toolhost ÷ the alternative (below 1: toolhost is faster). Method: generated pages " +
    "(scripts/bench/web_page.ts: site chrome around an article of sections with headings, " +
    "links, lists, tables and highlighted code) served from 127.0.0.1 by a node process (below); each " +
    "call asks for a URL not asked before, so fetch_url's cache never answers. toolhost: one " +
    "legacy session of the binary with --allow-private-network, each call timed from request " +
    "to reply. The alternative: one node process (the one serving the pages) that fetches each " +
    "URL with `fetch` and converts it with turndown (devDependency). Per page size, one untimed " +
    `round, then ${RUNS} rounds of default mode, raw: true and the alternative, one after ` +
    `another; medians. Head of line: pings are sent one after another (${PING_INTERVAL_MS} ms ` +
    "from one to the next, or as soon as the reply came when it took longer), first to the " +
    "idle server, then while a default-mode fetch_url of the 2 MiB page runs, until its reply, " +
    "and, alternating with it, while the node process converts the same page with turndown " +
    `(toolhost idle), ${BUSY_RUNS} times each. The main thread's CPU time comes from ` +
    "/proc/<pid>/task/<pid>/schedstat (Linux only) around each timed 2 MiB default-mode call.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await webReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

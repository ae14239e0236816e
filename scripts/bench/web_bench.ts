/**
 * The web part of the benchmark: fetch_url through the binary against generated pages
 * (web_page.ts) served from 127.0.0.1 (the binary runs with --allow-private-network).
 *
 * - Head of line: `ping` round trips, one after another, while fetch_url converts a 2 MiB page,
 *   against pings on an idle server.
 * - Conversion: fetch_url of a 1 MiB and a 2 MiB page, default mode (main content) and
 *   `raw: true`, against the plain alternative: `fetch` plus turndown on node
 *   (turndown_fetch.ts).
 *
 * `deno task bench` prints it after the other sections; run it alone with
 * `deno run --allow-all scripts/bench/web_bench.ts`. The binary is $TOOLHOST_BENCH_BINARY when
 * set, else dist/toolhost.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { markdownTable, ms, times } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median, percentile } from "./stats.ts";
import { generatedPage } from "./web_page.ts";

const TURNDOWN_BUNDLE = "dist/bench/turndown-fetch.mjs";
const MIB = 1024 * 1024;
const SIZES = [MIB, 2 * MIB];
const RUNS = 5;
const IDLE_PINGS = 200;
/** Head-of-line runs: each a 2 MiB conversion with pings going on beside it. */
const BUSY_RUNS = 5;
/** Pings start this far apart, so the client does not take a core from the server. */
const PING_INTERVAL_MS = 5;

const TARGET_BUSY_PING_MS = 5;
const TARGET_RATIO = 0.5;

type Progress = (text: string) => void;

const label = (size: number) => `${size / MIB} MiB`;

/** Serves /page/<bytes>?n=<i>: the same generated page under URLs the cache has not seen. */
async function servePages(): Promise<{ base: string; close(): void }> {
  const pages = new Map(SIZES.map((size) => [size, generatedPage(size)]));
  const server = createServer((req, res) => {
    const size = Number(/^\/page\/(\d+)/.exec(req.url ?? "")?.[1]);
    const page = pages.get(size);
    if (!page) {
      res.statusCode = 404;
      return res.end();
    }
    res.setHeader("content-type", "text/html; charset=utf-8");
    res.end(page);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

class Session {
  #id = 1;
  constructor(readonly server: ServerProcess) {}

  static async start(binary: string): Promise<Session> {
    const session = new Session(new ServerProcess(binary, ["--allow-private-network"]));
    await session.server.request({
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: "2025-11-25",
        capabilities: {},
        clientInfo: { name: "toolhost-bench", version: "1" },
      },
    });
    session.server.notify("notifications/initialized");
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
    const sent = performance.now();
    const reply = await this.server.request({
      id: this.#id++,
      method: "tools/call",
      params: { name: "fetch_url", arguments: { url, ...(raw ? { raw: true } : {}) } },
    });
    const elapsed = performance.now() - sent;
    const text = reply.result?.content?.[0]?.text ?? "";
    if (!text.includes("Section 1: ")) throw new Error(`fetch_url ${url}: ${text.slice(0, 300)}`);
    return elapsed;
  }
}

interface Figures {
  idlePings: number[];
  busyPings: number[];
  busyFetches: number[];
  /** Milliseconds per run, by `${size} ${mode}`. */
  fetches: Map<string, number[]>;
  turndown: Map<number, number[]>;
}

async function measure(root: string, binary: string, progress: Progress): Promise<Figures> {
  const pages = await servePages();
  let n = 0;
  const url = (size: number) => `${pages.base}/page/${size}?n=${n++}`;
  const session = await Session.start(binary);
  try {
    const figures: Figures = {
      idlePings: [],
      busyPings: [],
      busyFetches: [],
      fetches: new Map(),
      turndown: new Map(),
    };
    progress(`web: ${IDLE_PINGS} pings on an idle server, ${PING_INTERVAL_MS} ms apart`);
    let idle = 0;
    await session.pings(figures.idlePings, () => ++idle > IDLE_PINGS);

    progress(`web: fetch_url, ${RUNS} runs per page size and mode after one untimed`);
    for (const size of SIZES) {
      for (const raw of [false, true]) {
        await session.fetch(url(size), raw);
        const list: number[] = [];
        for (let run = 0; run < RUNS; run++) list.push(await session.fetch(url(size), raw));
        figures.fetches.set(`${size} ${raw}`, list);
      }
    }

    progress(`web: pings while fetch_url converts a 2 MiB page, ${BUSY_RUNS} runs`);
    for (let run = 0; run < BUSY_RUNS; run++) {
      let done = false;
      const call = session.fetch(url(2 * MIB), false).finally(() => done = true);
      await session.pings(figures.busyPings, () => done);
      figures.busyFetches.push(await call);
    }

    progress("web: fetch + turndown on node");
    const urls: string[] = [];
    for (const size of SIZES) {
      for (let run = 0; run <= RUNS; run++) urls.push(url(size));
    }
    // Not execFileSync: this process serves the pages.
    const { stdout } = await promisify(execFile)("node", [`${root}${TURNDOWN_BUNDLE}`, ...urls]);
    const turndown: number[] = JSON.parse(stdout);
    SIZES.forEach((size, i) => {
      // The first run of each size is the untimed one, as for toolhost.
      figures.turndown.set(size, turndown.slice(i * (RUNS + 1) + 1, (i + 1) * (RUNS + 1)));
    });
    return figures;
  } finally {
    await session.server.close();
    pages.close();
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
    "links, lists, tables and highlighted code) served from 127.0.0.1 by this process; each " +
    "call asks for a URL not asked before, so fetch_url's cache never answers. toolhost: one " +
    "legacy session of the binary with --allow-private-network; per page size and mode one " +
    `untimed call, then ${RUNS} timed calls one after another, from request to reply. Head of ` +
    `line: pings are sent one after another (${PING_INTERVAL_MS} ms from one to the next, or ` +
    "as soon as the reply came when it took longer), first to the idle server, then while a " +
    `default-mode fetch_url of the 2 MiB page runs, until its reply, over ${BUSY_RUNS} calls. ` +
    "The alternative: one node process that fetches each URL with `fetch` and converts it with " +
    "turndown (devDependency), one untimed run per size, then the timed ones.",
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await webReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

/**
 * Language servers through toolhost (issue 29), as figures:
 *
 * - references and definition through `code_nav` against the same request sent to the same
 *   server (typescript-language-server) by a bare LSP client, warm, on a generated project of
 *   60 files that all call one function (target: at most 1.2× the bare time);
 * - time from toolhost's start to the first correct references answer on this repository
 *   (`deno lsp`, a Deno project): the first answer's count against a warm answer's;
 * - the latency of `edit_file` with diagnostics after the edit (a server running), p50 and p95,
 *   edits alternately introducing and fixing a type error, beside the same edits with
 *   TOOLHOST_CODE_DIAGNOSTICS=0;
 * - resident memory of toolhost and of the servers' process groups.
 *
 * Runs alone: `deno run --allow-all scripts/bench/code_lsp_bench.ts`; `deno task bench` prints it
 * too. Figures are medians; targets are printed, never asserted.
 */
import { spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { frame, FrameReader } from "../../tools/code/_lib/lsp/mod.ts";
import { markdownTable, ms, times } from "./report.ts";
import { ServerProcess } from "./server_process.ts";
import { median, percentile } from "./stats.ts";
import { cpuMs } from "./cpu_time.ts";

const RUNS = Number(process.env.TOOLHOST_BENCH_LSP_RUNS ?? 15);
const FILES = 60;

type Progress = (text: string) => void;

/** A project of FILES files calling `shared` from lib.ts, with a tsconfig.json. */
function generated(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-lsp-bench-")));
  writeFileSync(join(root, "tsconfig.json"), JSON.stringify({ compilerOptions: { strict: true } }));
  writeFileSync(
    join(root, "lib.ts"),
    "export function shared(n: number): number {\n  return n * 2;\n}\n",
  );
  mkdirSync(join(root, "src"));
  for (let i = 0; i < FILES; i++) {
    writeFileSync(
      join(root, "src", `m${i}.ts`),
      `import { shared } from "../lib";\nexport const v${i}: number = shared(${i});\n`,
    );
  }
  return root;
}

/** The smallest LSP client: initialize, open, request; what an editor's client costs. */
export class BareClient {
  #child;
  #reader = new FrameReader();
  #id = 1;
  #waiting = new Map<number, (result: unknown) => void>();
  constructor(command: string, args: string[], cwd: string, env?: Record<string, string>) {
    this.#child = spawn(command, args, {
      cwd,
      stdio: ["pipe", "pipe", "ignore"],
      env: env && { ...process.env, ...env },
    });
    this.#child.stdout!.on("data", (chunk: Uint8Array) => {
      for (const message of this.#reader.push(chunk) as Record<string, unknown>[]) {
        if (message.method !== undefined && message.id !== undefined) {
          this.#write({ jsonrpc: "2.0", id: message.id, result: null });
        } else if (typeof message.id === "number") {
          this.#waiting.get(message.id)?.(message.result);
          this.#waiting.delete(message.id);
        }
      }
    });
  }
  #write(message: unknown) {
    this.#child.stdin!.write(frame(message));
  }
  request(method: string, params: unknown): Promise<unknown> {
    const id = this.#id++;
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve);
      this.#write({ jsonrpc: "2.0", id, method, params });
    });
  }
  notify(method: string, params: unknown) {
    this.#write({ jsonrpc: "2.0", method, params });
  }
  close() {
    this.#child.kill("SIGKILL");
  }
}

export async function timed(work: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await work();
  return performance.now() - start;
}

/** Resident MB of a process and of the process groups of its children (the servers). */
function residentMb(pid: number): { self: number; servers: number } {
  const read = (p: string) => readFileSync(p, "latin1");
  const rss = (p: string) => Number(/VmRSS:\s+(\d+)/.exec(read(`/proc/${p}/status`))?.[1] ?? 0);
  const stats = readdirSync("/proc").filter((e) => /^\d+$/.test(e)).flatMap((e) => {
    try {
      const line = read(`/proc/${e}/stat`);
      const fields = line.slice(line.lastIndexOf(")") + 2).split(" ");
      return [{ pid: e, ppid: Number(fields[1]), pgid: Number(fields[2]) }];
    } catch {
      return [];
    }
  });
  const groups = new Set(stats.filter((s) => s.ppid === pid).map((s) => s.pgid));
  let servers = 0;
  for (const s of stats) if (groups.has(s.pgid)) servers += rss(s.pid);
  return { self: rss(String(pid)) / 1024, servers: servers / 1024 };
}

export function toolhost(
  binary: string,
  root: string,
  env: Record<string, string> = {},
): ServerProcess {
  // ServerProcess passes this process's environment on: set for the spawn, then put back.
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  Object.assign(process.env, env);
  const server = new ServerProcess(binary, ["--root", root]);
  for (const [key, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
  return server;
}

export const count = (reply: { result?: Record<string, unknown> }) =>
  (reply.result?.structuredContent as { count?: number } | undefined)?.count ?? -1;

export async function codeLspReport(root: string, progress: Progress): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? `${root}dist/toolhost`;
  const bin = join(root, "node_modules", ".bin");
  const env = {
    PATH: `${bin}:${process.env.PATH}`,
    TOOLHOST_STATE_DIR: mkdtempSync(join(tmpdir(), "toolhost-lsp-bench-state-")),
  };
  const project = generated();
  const lib = join(project, "lib.ts");
  const use = join(project, "src", "m7.ts");
  const rows: string[][] = [];

  progress("code_lsp: bare typescript-language-server");
  const bare = new BareClient(join(bin, "typescript-language-server"), ["--stdio"], project);
  await bare.request("initialize", {
    processId: process.pid,
    rootUri: pathToFileURL(project).href,
    capabilities: { window: { workDoneProgress: true } },
  });
  bare.notify("initialized", {});
  for (const file of [lib, use]) {
    bare.notify("textDocument/didOpen", {
      textDocument: {
        uri: pathToFileURL(file).href,
        languageId: "typescript",
        version: 1,
        text: readFileSync(file, "utf8"),
      },
    });
  }
  const refParams = {
    textDocument: { uri: pathToFileURL(lib).href },
    position: { line: 0, character: 17 },
    context: { includeDeclaration: true },
  };
  const defParams = {
    textDocument: { uri: pathToFileURL(use).href },
    position: { line: 1, character: 27 },
  };
  // Warm: until the answer is complete.
  for (let i = 0; i < 200; i++) {
    const found = await bare.request("textDocument/references", refParams) as unknown[];
    if (found?.length === 2 * FILES + 1) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  progress("code_lsp: toolhost code_nav");
  const th = toolhost(binary, project, env);
  await th.initialize();
  const refArgs = { operation: "references", path: "lib.ts", line: 1, column: 18 };
  const defArgs = { operation: "definition", path: "src/m7.ts", line: 2, column: 28 };
  for (let i = 0; i < 200; i++) {
    if (count((await th.tool("code_nav", refArgs)).reply) === 2 * FILES + 1) break;
  }
  const defined = count((await th.tool("code_nav", defArgs)).reply);
  if (defined !== 1) throw new Error(`definition found ${defined} places, expected 1`);
  const bareRefs: number[] = [],
    thRefs: number[] = [],
    bareDefs: number[] = [],
    thDefs: number[] = [];
  // toolhost's own CPU time per call: what the machine's other load moves least.
  let refCpu = 0, defCpu = 0;
  for (let i = 0; i < RUNS; i++) {
    bareRefs.push(await timed(() => bare.request("textDocument/references", refParams)));
    let before = cpuMs(th.pid).own;
    thRefs.push((await th.tool("code_nav", refArgs)).ms);
    refCpu += cpuMs(th.pid).own - before;
    bareDefs.push(await timed(() => bare.request("textDocument/definition", defParams)));
    before = cpuMs(th.pid).own;
    thDefs.push((await th.tool("code_nav", defArgs)).ms);
    defCpu += cpuMs(th.pid).own - before;
  }
  rows.push([
    "references (121 in 61 files), warm",
    ms(median(thRefs)),
    ms(median(bareRefs)),
    times(median(thRefs) / median(bareRefs)),
    ms(refCpu / RUNS),
  ]);
  rows.push([
    "definition, warm",
    ms(median(thDefs)),
    ms(median(bareDefs)),
    times(median(thDefs) / median(bareDefs)),
    ms(defCpu / RUNS),
  ]);

  progress("code_lsp: diagnostics after edits");
  const edit = async (server: ServerProcess, i: number) =>
    (await server.tool("edit_file", {
      path: "src/m7.ts",
      edits: i % 2 === 0
        ? [{ old_string: "shared(7)", new_string: "shared('7')" }]
        : [{ old_string: "shared('7')", new_string: "shared(7)" }],
    })).ms;
  const withDiagnostics: number[] = [];
  for (let i = 0; i < RUNS * 2; i++) withDiagnostics.push(await edit(th, i));
  const memory = residentMb(th.pid);
  await th.close();
  bare.close();
  const off = toolhost(binary, project, { ...env, TOOLHOST_CODE_DIAGNOSTICS: "0" });
  await off.initialize();
  await off.tool("code_nav", defArgs);
  const without: number[] = [];
  for (let i = 0; i < RUNS * 2; i++) without.push(await edit(off, i));
  await off.close();

  progress("code_lsp: first references on this repository (deno lsp)");
  const repo = toolhost(binary, root.replace(/\/$/, ""), env);
  const started = performance.now();
  await repo.initialize();
  const repoArgs = { operation: "references", path: "mcp/tool/tool.ts", symbol: "defineToolHook" };
  const first = await repo.tool("code_nav", repoArgs);
  const firstMs = performance.now() - started;
  const warm = await repo.tool("code_nav", repoArgs);
  const repoMemory = residentMb(repo.pid);
  await repo.close();

  const table = markdownTable([
    "case",
    "toolhost",
    "bare client",
    "ratio (target ≤ 1.2×)",
    "toolhost CPU per call",
  ], rows);
  const diag = markdownTable(["edit_file (20-line file)", "p50", "p95"], [
    [
      "with diagnostics (typescript-language-server)",
      ms(median(withDiagnostics)),
      ms(percentile(withDiagnostics, 95)),
    ],
    ["TOOLHOST_CODE_DIAGNOSTICS=0", ms(median(without)), ms(percentile(without, 95))],
  ]);
  return [
    "### Language servers (code_nav, diagnostics after edits)",
    "",
    table,
    "",
    diag,
    "",
    `First references answer on this repository (deno lsp, defineToolHook): ${ms(firstMs)} from ` +
    `toolhost's start, ${count(first.reply)} references; warm ${ms(warm.ms)}, ${
      count(warm.reply)
    } ` +
    `(${
      count(first.reply) === count(warm.reply)
        ? "the first answer was complete"
        : "the first answer was INCOMPLETE"
    }).`,
    "",
    `Resident memory: toolhost ${memory.self.toFixed(0)} MB with typescript-language-server's ` +
    `group at ${memory.servers.toFixed(0)} MB (generated project); toolhost ${
      repoMemory.self.toFixed(0)
    } MB ` +
    `with deno lsp at ${repoMemory.servers.toFixed(0)} MB (this repository).`,
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await codeLspReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

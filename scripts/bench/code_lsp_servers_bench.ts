/**
 * Each real language server through toolhost against the same server driven by a bare LSP
 * client (issue 34, "Warm from the first call"), cold and warm, on a small generated project per
 * language where one function is called from every file:
 *
 * - cold references: from spawning toolhost (or the bare server) to the first complete answer
 *   (the bare client asks again until its answer holds every place, each project having a place
 *   an early answer misses; toolhost is asked once and must answer completely: it waits for the
 *   server to load);
 * - warm references and definition: toolhost and bare alternating in one process, each pair's
 *   ratio kept; the median ratio and its spread (25th-75th percentile) are reported, which jump
 *   far less between runs than a ratio of medians on a shared machine.
 *
 * toolhost runs its server inside the command sandbox; the bare client runs it as is, so the
 * sandbox's cost is part of the ratio. What a user feels is the time toolhost adds to each call:
 * the median of the paired differences, in the last column. A server this machine lacks is left
 * out, said so.
 * Runs alone: `deno run --allow-all scripts/bench/code_lsp_servers_bench.ts` (TOOLHOST_BENCH_BINARY
 * for another build, TOOLHOST_BENCH_LSP_SERVERS=go,rust to pick; TOOLHOST_BENCH_BASELINE=<binary>
 * adds an older build to the warm turns, on the same project, each call paired with the build's);
 * figures are printed, never asserted.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";
import { BareClient, count, timed, toolhost } from "./code_lsp_bench.ts";
import { markdownTable, ms, times } from "./report.ts";
import { median, percentile } from "./stats.ts";

const COLD_RUNS = Number(process.env.TOOLHOST_BENCH_LSP_COLD_RUNS ?? 3);
const WARM_RUNS = Number(process.env.TOOLHOST_BENCH_LSP_RUNS ?? 60);
const FILES = 20;
/** How long the bare client asks before its server counts as never complete (a loaded machine). */
const COMPLETE_WITHIN_MS = 180_000;

interface Case {
  name: string;
  /** The bare server's command and arguments, and its language id. */
  command: string[];
  languageId: string;
  /** Its environment beyond this process's (what toolhost tells it too). */
  env?: Record<string, string>;
  /** Writes the project; returns the file defining `shared` and one calling it. */
  make(root: string): { lib: string; use: string };
  /** Where `shared` is named in lib and in use (0-based line, column). */
  libAt: { line: number; character: number };
  useAt: { line: number; character: number };
  /** References expected (declaration included). */
  expected: number;
}

function write(root: string, files: Record<string, string>) {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

const CASES: Case[] = [
  {
    name: "typescript-language-server",
    command: ["typescript-language-server", "--stdio"],
    languageId: "typescript",
    make(root) {
      write(root, {
        "tsconfig.json": "{}",
        "lib.ts": "export function shared(n: number): number {\n  return n * 2;\n}\n",
        ...Object.fromEntries(
          range(FILES).map((i) => [
            `src/m${i}.ts`,
            `import { shared } from "../lib";\nexport const v${i}: number = shared(${i});\n`,
          ]),
        ),
      });
      return { lib: "lib.ts", use: "src/m7.ts" };
    },
    libAt: { line: 0, character: 17 },
    useAt: { line: 1, character: 27 },
    expected: 2 * FILES + 1,
  },
  {
    name: "pyright",
    command: ["pyright-langserver", "--stdio"],
    languageId: "python",
    make(root) {
      write(root, {
        "pyproject.toml": "[project]\nname = 'p'\n",
        "lib.py": "def shared(n: int) -> int:\n    return n * 2\n",
        ...Object.fromEntries(
          range(FILES).map((i) => [
            `m${i}.py`,
            `from lib import shared\n\nv${i} = shared(${i})\n`,
          ]),
        ),
      });
      return { lib: "lib.py", use: "m7.py" };
    },
    libAt: { line: 0, character: 4 },
    useAt: { line: 2, character: 5 },
    expected: 2 * FILES + 1,
  },
  {
    name: "gopls",
    command: ["gopls"],
    languageId: "go",
    env: { GOPROXY: "off" },
    make(root) {
      write(root, {
        "go.mod": "module example.com/b\n\ngo 1.21\n",
        "lib.go": "package b\n\nfunc Shared(n int) int {\n\treturn n * 2\n}\n",
        ...Object.fromEntries(
          range(FILES).map((i) => [
            `m${i}.go`,
            `package b\n\nvar V${i} = Shared(${i})\n`,
          ]),
        ),
      });
      return { lib: "lib.go", use: "m7.go" };
    },
    libAt: { line: 2, character: 5 },
    useAt: { line: 2, character: 9 },
    expected: FILES + 1,
  },
  {
    name: "rust-analyzer",
    command: ["rust-analyzer"],
    languageId: "rust",
    env: { CARGO_NET_OFFLINE: "true" },
    make(root) {
      write(root, {
        "Cargo.toml": '[package]\nname = "b"\nversion = "0.1.0"\nedition = "2021"\n',
        "src/lib.rs": range(FILES).map((i) => `pub mod m${i};\n`).join("") +
          "\npub fn shared(n: u32) -> u32 {\n    n * 2\n}\n",
        ...Object.fromEntries(
          range(FILES).map((i) => [
            `src/m${i}.rs`,
            `pub fn v() -> u32 {\n    crate::shared(${i})\n}\n`,
          ]),
        ),
        // A call inside a standard-library macro: rust-analyzer answers once before the
        // standard library is in its crate graph (~1 s), without this place; that fast answer
        // is not a baseline.
        "src/m0.rs": "pub fn v() -> u32 {\n    crate::shared(0)\n}\n" +
          "pub fn w() -> Vec<u32> {\n    vec![crate::shared(1)]\n}\n",
      });
      return { lib: "src/lib.rs", use: "src/m7.rs" };
    },
    libAt: { line: FILES + 1, character: 7 },
    useAt: { line: 1, character: 11 },
    expected: FILES + 2,
  },
];

/** The directories the servers outside node_modules live in (as the e2e tests find them). */
function serverPath(root: string): string {
  const dirs = [join(root, "node_modules", ".bin")];
  const out = (command: string, args: string[]) => {
    try {
      return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
        .trim();
    } catch {
      return "";
    }
  };
  const gopath = out("go", ["env", "GOPATH"]);
  if (gopath) dirs.push(join(gopath, "bin"));
  const ra = out("rustup", ["which", "rust-analyzer"]);
  if (ra) dirs.push(dirname(ra));
  return [...dirs, process.env.PATH ?? ""].join(":");
}

function installed(command: string, path: string): boolean {
  return path.split(":").some((dir) => {
    try {
      execFileSync("test", ["-x", join(dir, command)]);
      return true;
    } catch {
      return false;
    }
  });
}

interface Figures {
  coldTh: number[];
  /** Of each cold toolhost run: spawning toolhost to its MCP initialize answer (its own start). */
  coldStart: number[];
  coldBare: number[];
  coldIncomplete: number;
  warmRefTh: number[];
  warmRefBare: number[];
  warmDefTh: number[];
  warmDefBare: number[];
  /** The baseline build's warm calls, in the same turns (empty without one). */
  warmRefBase: number[];
  warmDefBase: number[];
}

async function startBare(c: Case, project: string, path: string, files: string[]) {
  const bare = new BareClient(c.command[0], c.command.slice(1), project, {
    ...c.env,
    PATH: path,
  });
  await bare.request("initialize", {
    processId: null,
    rootUri: pathToFileURL(project).href,
    workspaceFolders: [{ uri: pathToFileURL(project).href, name: "b" }],
    capabilities: { window: { workDoneProgress: true } },
  });
  bare.notify("initialized", {});
  for (const file of files) {
    bare.notify("textDocument/didOpen", {
      textDocument: {
        uri: pathToFileURL(join(project, file)).href,
        languageId: c.languageId,
        version: 1,
        text: readFileSync(join(project, file), "utf8"),
      },
    });
  }
  return bare;
}

/** Asks until the answer is complete (the bare client's cold answer). */
async function completeRefs(bare: BareClient, params: unknown, expected: number) {
  const deadline = Date.now() + COMPLETE_WITHIN_MS;
  let last = "no answer";
  while (Date.now() < deadline) {
    const found = await bare.request("textDocument/references", params);
    if (Array.isArray(found) && found.length === expected) return;
    last = Array.isArray(found) ? `${found.length} places` : JSON.stringify(found)?.slice(0, 200);
    await new Promise((r) => setTimeout(r, 25));
  }
  throw new Error(
    `the bare server never answered completely within ${COMPLETE_WITHIN_MS / 1000} s ` +
      `(${expected} places expected; its last answer: ${last})`,
  );
}

async function measure(
  c: Case,
  binary: string,
  path: string,
  baseline?: string,
): Promise<Figures> {
  const f: Figures = {
    coldTh: [],
    coldStart: [],
    coldBare: [],
    coldIncomplete: 0,
    warmRefTh: [],
    warmRefBare: [],
    warmDefTh: [],
    warmDefBare: [],
    warmRefBase: [],
    warmDefBase: [],
  };
  const fresh = () => {
    const project = realpathSync(mkdtempSync(join(tmpdir(), `toolhost-lsp-${c.languageId}-`)));
    return { project, ...c.make(project) };
  };
  const thEnv = () => ({
    PATH: path,
    TOOLHOST_STATE_DIR: mkdtempSync(join(tmpdir(), "toolhost-lsp-bench-state-")),
  });
  const refArgs = (lib: string) => ({
    operation: "references",
    path: lib,
    line: c.libAt.line + 1,
    column: c.libAt.character + 1,
  });
  const params = (project: string, lib: string) => ({
    textDocument: { uri: pathToFileURL(join(project, lib)).href },
    position: c.libAt,
    context: { includeDeclaration: true },
  });
  for (let run = 0; run < COLD_RUNS; run++) {
    // Alternating: toolhost, then bare, each on a project of its own (no cache shared).
    {
      const { project, lib } = fresh();
      const started = performance.now();
      const th = toolhost(binary, project, thEnv());
      await th.initialize();
      f.coldStart.push(performance.now() - started);
      const { reply } = await th.tool("code_nav", refArgs(lib));
      f.coldTh.push(performance.now() - started);
      if (count(reply) !== c.expected) f.coldIncomplete++;
      await th.close();
    }
    {
      const { project, lib } = fresh();
      f.coldBare.push(
        await timed(async () => {
          const bare = await startBare(c, project, path, [lib]);
          await completeRefs(bare, params(project, lib), c.expected);
          bare.close();
        }),
      );
    }
  }
  // Warm: both running on one project, asked in turn.
  const { project, lib, use } = fresh();
  const defArgs = {
    operation: "definition",
    path: use,
    line: c.useAt.line + 1,
    column: c.useAt.character + 1,
  };
  const ready = async (server: ReturnType<typeof toolhost>) => {
    await server.initialize();
    for (
      let i = 0;
      i < 100 && count((await server.tool("code_nav", refArgs(lib))).reply) !== c.expected;
      i++
    );
    await server.tool("code_nav", defArgs);
  };
  const th = toolhost(binary, project, thEnv());
  await ready(th);
  const base = baseline === undefined ? undefined : toolhost(baseline, project, thEnv());
  if (base) await ready(base);
  const bare = await startBare(c, project, path, [lib, use]);
  await completeRefs(bare, params(project, lib), c.expected);
  const defParams = {
    textDocument: { uri: pathToFileURL(join(project, use)).href },
    position: c.useAt,
  };
  await bare.request("textDocument/definition", defParams);
  for (let i = 0; i < WARM_RUNS; i++) {
    // With a baseline, the two builds take turns going first.
    const builds = base && i % 2 ? [base, th] : base ? [th, base] : [th];
    f.warmRefBare.push(
      await timed(() => bare.request("textDocument/references", params(project, lib))),
    );
    for (const build of builds) {
      (build === th ? f.warmRefTh : f.warmRefBase).push(
        (await build.tool("code_nav", refArgs(lib))).ms,
      );
    }
    f.warmDefBare.push(await timed(() => bare.request("textDocument/definition", defParams)));
    for (const build of builds) {
      (build === th ? f.warmDefTh : f.warmDefBase).push((await build.tool("code_nav", defArgs)).ms);
    }
  }
  bare.close();
  await th.close();
  await base?.close();
  return f;
}

/** This build's calls against the baseline's in the same turns: the median paired ratio. */
function against(th: number[], base: number[]): string {
  if (base.length === 0) return "";
  return `${times(median(th.map((t, i) => t / base[i])))} the baseline build's time`;
}

export async function codeLspServersReport(
  root: string,
  progress: (text: string) => void,
): Promise<string> {
  const binary = process.env.TOOLHOST_BENCH_BINARY ?? join(root, "dist", "toolhost");
  const baseline = process.env.TOOLHOST_BENCH_BASELINE || undefined;
  const path = serverPath(root);
  const picked = process.env.TOOLHOST_BENCH_LSP_SERVERS?.split(",");
  const rows: string[][] = [];
  const skipped: string[] = [];
  for (const c of CASES) {
    if (picked && !picked.some((p) => c.name.includes(p))) continue;
    if (!installed(c.command[0], path)) {
      skipped.push(`${c.name} (not installed)`);
      continue;
    }
    progress(`code_lsp_servers: ${c.name}`);
    const load = loadavg()[0];
    const f = await measure(c, binary, path, baseline);
    const loads = `load ${load.toFixed(1)}-${loadavg()[0].toFixed(1)}`;
    const row = (what: string, th: number[], bare: number[], note = "") => {
      // Paired: each toolhost time over the bare time measured next to it.
      const ratios = th.map((t, i) => t / bare[i]);
      return [
        `${c.name}: ${what}`,
        ms(median(th)),
        ms(median(bare)),
        times(median(ratios)),
        `${times(percentile(ratios, 25))}-${times(percentile(ratios, 75))}`,
        `${median(th.map((t, i) => t - bare[i])).toFixed(2)} ms`,
        [`${th.length} pairs`, loads, note].filter(Boolean).join("; "),
      ];
    };
    rows.push(
      row(
        "cold references",
        f.coldTh,
        f.coldBare,
        [
          `toolhost's own start ${ms(median(f.coldStart))}`,
          f.coldIncomplete ? `toolhost incomplete ${f.coldIncomplete} of ${COLD_RUNS}` : "",
        ].filter(Boolean).join("; "),
      ),
      row("warm references", f.warmRefTh, f.warmRefBare, against(f.warmRefTh, f.warmRefBase)),
      row("warm definition", f.warmDefTh, f.warmDefBare, against(f.warmDefTh, f.warmDefBase)),
    );
    if (baseline) {
      rows.push(
        row("warm references, baseline build", f.warmRefBase, f.warmRefBare),
        row("warm definition, baseline build", f.warmDefBase, f.warmDefBare),
      );
    }
  }
  return [
    `### Each language server: toolhost (sandboxed) against a bare client (${FILES + 1} files)`,
    "",
    markdownTable(
      [
        "case",
        "toolhost (median)",
        "bare (median)",
        "ratio (target ≤ 1.2×)",
        "p25-p75",
        "added per call",
        "",
      ],
      rows,
    ),
    ...(skipped.length ? ["", `Left out: ${skipped.join(", ")}.`] : []),
  ].join("\n");
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("../..", import.meta.url));
  process.stdout.write(
    await codeLspServersReport(root, (text) => process.stderr.write(`bench: ${text}\n`)) + "\n",
  );
}

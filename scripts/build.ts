/**
 * `deno task build`: compiles dist/toolhost for this machine with `bun build --compile`
 * (offline; `deno compile` would need a denort download). `--test` also builds
 * dist/toolhost-test, the same program plus the fixture tools in tests/fixtures, which the
 * e2e tests and the benchmark use, and dist/toolhost-conformance, with the fixtures the official
 * conformance suite calls (tests/conformance); the product binary never contains fixtures.
 */
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { commit } from "./release/source.ts";
import { buildConfineHelper } from "./confine_helper.ts";
import { BUN, EXE } from "./toolchain.ts";
import { WASM_FILES } from "../tools/code/_lib/parse/mod.ts";
import { validatorEntryPoints } from "./gen_tool_validators.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));

/**
 * Modules a `new Worker(new URL("./x.ts", import.meta.url))` starts: the compiler bundles only
 * what is reachable by import, so each is an entry point of its own beside the program's.
 */
export const WORKER_ENTRYPOINTS = [
  "tools/web/_lib/convert/worker.ts",
  "tools/_lib/documents/worker.ts",
  "tools/search/_lib/grep/builtin/search_worker.ts",
  "tools/code/_lib/parse/worker.ts",
];

/**
 * `bun build` arguments for one binary; the release adds a target and that target's runtime.
 * One list, so the release and the local build cannot drift apart.
 */
export function compileArguments(
  entry: string,
  outfile: string,
  commitId: string,
  target: string[] = [],
  bytecodeOrder?: string,
  confineHelper?: string,
): string[] {
  return [
    "build",
    "--compile",
    ...target,
    "--minify",
    // Precompiled bytecode: the binary starts without parsing its JavaScript first.
    "--bytecode",
    ...(bytecodeOrder ? [`--bytecode-order=${bytecodeOrder}`] : []),
    "--format=esm",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `TOOLHOST_COMMIT=${JSON.stringify(commitId)}`,
    "--outfile",
    outfile,
    entry,
    ...WORKER_ENTRYPOINTS,
    // The tools' precompiled validators, each loaded on its first call (gen_tool_validators.ts).
    ...validatorEntryPoints(),
    // tree-sitter's runtime and grammars: embedded files the parse worker finds in
    // Bun.embeddedFiles (tools/code/_lib/parse/grammar_bytes.ts).
    ...WASM_FILES,
    // The command sandbox's helper (Linux): written out at first use (tools/_lib/confine).
    ...(confineHelper ? [confineHelper] : []),
  ];
}

/** Where the local build puts the helper: from source, toolhost runs it from here. */
export const CONFINE_HELPER = "dist/toolhost-confine";

/**
 * Builds dist/toolhost-confine for this machine (Linux only); the path to embed, or undefined
 * (with a warning) when it cannot be built here.
 */
export function buildLocalHelper(): string | undefined {
  if (process.platform !== "linux" || (process.arch !== "x64" && process.arch !== "arm64")) {
    return undefined;
  }
  const built = buildConfineHelper(process.arch, `${ROOT}${CONFINE_HELPER}`);
  if (typeof built === "string") {
    console.error(`warning: the sandbox helper is not built: ${built}`);
    return undefined;
  }
  console.error(`built ${CONFINE_HELPER} (${(built / 1024).toFixed(0)} KB)`);
  return CONFINE_HELPER;
}

export function compile(
  entry: string,
  outfile: string,
  bytecodeOrder?: string,
  confineHelper?: string,
): void {
  const started = performance.now();
  mkdirSync(`${ROOT}dist`, { recursive: true });
  const args = compileArguments(entry, outfile, commit(), [], bytecodeOrder, confineHelper);
  execFileSync(BUN, args, {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const mb = (statSync(`${ROOT}${outfile}`).size / 1e6).toFixed(1);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`built ${outfile} (${mb} MB) in ${seconds} s`);
}

/** What a client does first: the handshake, the tool list and one call. */
const FIRST_SESSION = [
  {
    jsonrpc: "2.0",
    id: 0,
    method: "initialize",
    params: {
      protocolVersion: "2025-11-25",
      capabilities: {},
      clientInfo: { name: "toolhost-build", version: "1" },
    },
  },
  { jsonrpc: "2.0", method: "notifications/initialized" },
  { jsonrpc: "2.0", id: 1, method: "tools/list" },
  { jsonrpc: "2.0", id: 2, method: "tools/call", params: { name: "list_roots", arguments: {} } },
].map((message) => JSON.stringify(message) + "\n").join("");

/**
 * The order in which `binary`, run through FIRST_SESSION, used its bytecode (Bun's
 * BUN_BYTECODE_ORDER_OUT), in a directory of its own that `remove` deletes; undefined when the
 * run could not say. Compiled in that order (--bytecode-order), what starting needs lies on few
 * pages. Resident at the first reply, measured here: 41.7 to 46.0 MiB over six ordered builds,
 * 44.7 to 49.7 over nine without (the layout, and so the figure, varies from build to build).
 * The run has its own roots and state directory, so building leaves nothing in the user's
 * journal.
 */
export function bytecodeOrder(binary: string): { file: string; remove(): void } | undefined {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-build-"));
  const file = join(dir, "bytecode-order");
  const remove = () => rmSync(dir, { recursive: true, force: true });
  try {
    execFileSync(binary, [], {
      cwd: dir,
      input: FIRST_SESSION,
      env: { ...process.env, BUN_BYTECODE_ORDER_OUT: file, TOOLHOST_STATE_DIR: join(dir, "state") },
      stdio: ["pipe", "ignore", "ignore"],
      timeout: 30_000,
    });
  } catch {
    // No order then: the binary as first compiled is just as correct.
  }
  if (existsSync(file)) return { file, remove };
  remove();
  return undefined;
}

if (import.meta.main) {
  // Compiled, run once to learn the order its bytecode is used in, and compiled again in that
  // order; the test binaries share the product's order (their fixtures are not on that path).
  // On Windows the names end in .exe (bun would add it, and the stat must find it).
  const helper = buildLocalHelper();
  compile("main.ts", `dist/toolhost${EXE}`, undefined, helper);
  const order = bytecodeOrder(`${ROOT}dist/toolhost${EXE}`);
  if (order) compile("main.ts", `dist/toolhost${EXE}`, order.file, helper);
  if (process.argv.includes("--test")) {
    compile("tests/fixtures/main.ts", `dist/toolhost-test${EXE}`, order?.file, helper);
    compile("tests/conformance/main.ts", `dist/toolhost-conformance${EXE}`, order?.file, helper);
  }
  order?.remove();
}

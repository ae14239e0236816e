/**
 * `deno task build`: compiles dist/toolhost for this machine with `bun build --compile`
 * (offline; `deno compile` would need a denort download). `--test` also builds
 * dist/toolhost-test, the same program plus the fixture tools in tests/fixtures, which the
 * e2e tests and the benchmark use, and dist/toolhost-conformance, with the fixtures the official
 * conformance suite calls (tests/conformance); the product binary never contains fixtures.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, statSync } from "node:fs";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { commit } from "./release/source.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const BUN = `${ROOT}node_modules/.bin/bun`;

/**
 * Modules a `new Worker(new URL("./x.ts", import.meta.url))` starts: the compiler bundles only
 * what is reachable by import, so each is an entry point of its own beside the program's.
 */
export const WORKER_ENTRYPOINTS = [
  "tools/web/_lib/convert_worker.ts",
  "tools/_lib/documents/worker.ts",
  "tools/search/_lib/grep_worker.ts",
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
): string[] {
  return [
    "build",
    "--compile",
    ...target,
    "--minify",
    // Precompiled bytecode: the binary starts without parsing its JavaScript first.
    "--bytecode",
    "--format=esm",
    "--no-compile-autoload-dotenv",
    "--no-compile-autoload-bunfig",
    "--define",
    `TOOLHOST_COMMIT=${JSON.stringify(commitId)}`,
    "--outfile",
    outfile,
    entry,
    ...WORKER_ENTRYPOINTS,
  ];
}

export function compile(entry: string, outfile: string): void {
  const started = performance.now();
  mkdirSync(`${ROOT}dist`, { recursive: true });
  execFileSync(BUN, compileArguments(entry, outfile, commit()), {
    cwd: ROOT,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const mb = (statSync(`${ROOT}${outfile}`).size / 1e6).toFixed(1);
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  console.error(`built ${outfile} (${mb} MB) in ${seconds} s`);
}

if (import.meta.main) {
  compile("main.ts", "dist/toolhost");
  if (process.argv.includes("--test")) {
    compile("tests/fixtures/main.ts", "dist/toolhost-test");
    compile("tests/conformance/main.ts", "dist/toolhost-conformance");
  }
}

/**
 * Runs the official MCP conformance suite (@modelcontextprotocol/conformance, server side) against
 * a toolhost binary served over Streamable HTTP, and exits with the suite's exit code.
 *
 *   deno run -A scripts/conformance.ts [BINARY] [-- SUITE_ARGS...]
 *
 * BINARY defaults to dist/toolhost-conformance (tests/conformance/main.ts: the product plus the
 * fixtures the suite calls by name). SUITE_ARGS go to `conformance server` as they are, e.g.
 * `-- --scenario ping` or `-- --suite draft`. Known failures are listed in
 * tests/conformance/expected_failures.yaml (expected_failures_draft.yaml with `--suite draft`); the run fails on any other failure, and on a listed
 * one that now passes. The suite needs Node > 20, so it runs under the bun we already ship with.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { BUN, distBinary } from "./toolchain.ts";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const SUITE = join(ROOT, "node_modules/@modelcontextprotocol/conformance/dist/index.js");
const EXPECTED_FAILURES = join(ROOT, "tests/conformance/expected_failures.yaml");
/** The draft (2026-07-28) scenarios have their own baseline: see the reasons there. */
const EXPECTED_DRAFT_FAILURES = join(ROOT, "tests/conformance/expected_failures_draft.yaml");
const DEFAULT_BINARY = distBinary("toolhost-conformance");

/** How long the server has to start answering HTTP. */
const STARTUP_TIMEOUT_MS = 15_000;
/** How long the server has to exit after SIGTERM before it is killed. */
const STOP_TIMEOUT_MS = 3_000;

function usage(problem: string): never {
  console.error(`conformance: ${problem}`);
  console.error("usage: deno run -A scripts/conformance.ts [BINARY] [-- SUITE_ARGS...]");
  process.exit(2);
}

function parseArgs(argv: string[]): { binary: string; suiteArgs: string[] } {
  const dashes = argv.indexOf("--");
  const own = dashes === -1 ? argv : argv.slice(0, dashes);
  const suiteArgs = dashes === -1 ? [] : argv.slice(dashes + 1);
  if (own.length > 1) usage(`one binary at most, got ${own.join(" ")}`);
  const binary = own[0] ? resolve(own[0]) : DEFAULT_BINARY;
  if (!existsSync(binary)) {
    usage(
      `${binary} does not exist; build it with bun build --compile tests/conformance/main.ts`,
    );
  }
  return { binary, suiteArgs };
}

/** A port nobody listens on right now (another process could still take it: rare enough). */
function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const probe = createServer();
    probe.once("error", fail);
    probe.listen(0, "127.0.0.1", () => {
      const address = probe.address();
      probe.close(() => {
        if (address && typeof address === "object") done(address.port);
        else fail(new Error("could not learn the port the probe listened on"));
      });
    });
  });
}

function exited(child: ChildProcess): Promise<number> {
  return new Promise((done) => {
    if (child.exitCode !== null) return done(child.exitCode);
    if (child.signalCode !== null) return done(1);
    child.once("exit", (code) => done(code ?? 1));
  });
}

/** Resolves once `url` gives any HTTP answer; rejects if the server exits or takes too long. */
async function answering(url: string, server: ChildProcess): Promise<void> {
  let gone = false;
  server.once("exit", () => gone = true);
  const deadline = Date.now() + STARTUP_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (gone) throw new Error(`the server exited (code ${server.exitCode}) before answering`);
    try {
      // Any status will do (a GET without a session may well be refused): it is listening.
      const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
      await response.body?.cancel();
      return;
    } catch {
      await new Promise((wait) => setTimeout(wait, 100));
    }
  }
  throw new Error(`the server did not answer ${url} within ${STARTUP_TIMEOUT_MS / 1000} s`);
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited(child);
  clearTimeout(timer);
}

/** The part of the suite's output worth reading at the end: its summary and baseline verdict. */
function summaryOf(output: string): string {
  for (const marker of ["=== SUMMARY ===", "Test Results:"]) {
    const at = output.lastIndexOf(marker);
    if (at !== -1) return output.slice(at).trimEnd();
  }
  return output.trimEnd().split("\n").slice(-40).join("\n");
}

/**
 * A project skill in the server's working directory, with a file in a subdirectory: the skills
 * extension's scenarios (SEP-2640) find what to list, get, read and walk through skills/list.
 */
function writeSkillFixture(work: string): void {
  const skill = join(work, ".claude", "skills", "conformance-demo");
  mkdirSync(join(skill, "references"), { recursive: true });
  writeFileSync(
    join(skill, "SKILL.md"),
    "---\nname: conformance-demo\ndescription: A skill the conformance suite reads.\n" +
      "license: MIT\n---\nRead references/guide.md first.\n",
  );
  writeFileSync(join(skill, "references", "guide.md"), "# Guide\n");
}

async function main(): Promise<number> {
  const { binary, suiteArgs } = parseArgs(process.argv.slice(2));
  // The suite writes results/ into its working directory, and the server's sandbox is its own:
  // both run in a scratch directory, kept when the run fails.
  const work = mkdtempSync(join(tmpdir(), "toolhost-conformance-"));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/mcp`;

  writeSkillFixture(work);
  const serverLog = createWriteStream(join(work, "server.log"));
  const server = spawn(binary, ["--http", `127.0.0.1:${port}`], {
    cwd: work,
    stdio: ["ignore", "pipe", "pipe"],
  });
  server.stdout?.pipe(serverLog, { end: false });
  server.stderr?.pipe(serverLog, { end: false });

  // Set once the suite runs, so that an interrupt stops it too.
  const running: { suite?: ChildProcess } = {};
  const interrupt = async () => {
    running.suite?.kill("SIGTERM");
    await stop(server);
    process.exit(130);
  };
  process.on("SIGINT", interrupt);
  process.on("SIGTERM", interrupt);

  try {
    await answering(url, server);
  } catch (error) {
    await stop(server);
    console.error(`conformance: ${(error as Error).message}; its output is in ${work}/server.log`);
    return 1;
  }

  console.log(`conformance: ${binary} serving ${url}; suite output in ${work}/suite.log`);
  const args = [
    SUITE,
    "server",
    "--url",
    url,
    "--expected-failures",
    suiteArgs.includes("draft") ? EXPECTED_DRAFT_FAILURES : EXPECTED_FAILURES,
    "-o",
    join(work, "results"),
    ...suiteArgs,
  ];
  const suite = spawn(BUN, args, { cwd: work, stdio: ["ignore", "pipe", "pipe"] });
  running.suite = suite;
  const suiteLog = createWriteStream(join(work, "suite.log"));
  let output = "";
  let scenarios = 0;
  suite.stdout.setEncoding("utf8");
  suite.stdout.on("data", (chunk: string) => {
    output += chunk;
    suiteLog.write(chunk);
    // One line per scenario, so a long run shows that it is moving.
    for (const match of chunk.matchAll(/=== Running scenario: (\S+) ===/g)) {
      process.stdout.write(`  ${++scenarios}. ${match[1]}\n`);
    }
  });
  suite.stderr.on("data", (chunk: Buffer) => suiteLog.write(chunk));
  const code = await exited(suite);
  suiteLog.end();

  await stop(server);
  serverLog.end();

  console.log(summaryOf(output));
  const total = output.match(/Total: (\d+) passed, (\d+) failed/);
  if (total) console.log(`\nconformance: ${total[1]} checks passed, ${total[2]} failed`);
  if (code === 0) {
    rmSync(work, { recursive: true, force: true });
  } else {
    console.log(`conformance: suite exited ${code}; logs and results kept in ${work}`);
  }
  return code;
}

process.exit(await main());

/**
 * For the code tools' e2e tests: a toolhost on a scratch project whose PATH holds the system
 * directories, this repository's node_modules/.bin (the pinned servers: typescript-language-server,
 * pyright, deno) and the directories of the servers .ci/run installs outside it (gopls,
 * rust-analyzer with its toolchain, TypeScript 7); a call helper on the shared one
 * (tool_calls.ts) that returns the text and structured content; and what each server needs to be
 * tested, or why its test skips.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { homedir, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { RawClient, ROOT } from "./raw_client.ts";
import type { Scope } from "./e2e.ts";
import { callTool } from "./tool_calls.ts";

/** Where .ci/run installs the TypeScript 7 compilers (typescript@7 and the native preview). */
export const TS7_DIR = process.env.TOOLHOST_TEST_TS7 ??
  join(homedir(), ".cache", "toolhost-test-servers", "ts7");

function output(command: string, args: string[]): string | undefined {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] })
      .trim() || undefined;
  } catch {
    return undefined;
  }
}

/** gopls's directory: GOPATH/bin (go install's), or wherever PATH has it. */
function goplsDir(): string | undefined {
  const gopath = output("go", ["env", "GOPATH"]);
  if (gopath && existsSync(join(gopath, "bin", "gopls"))) return join(gopath, "bin");
  const found = output("sh", ["-c", "command -v gopls"]);
  return found ? dirname(found) : undefined;
}

/** The Rust toolchain's own bin directory (rust-analyzer, cargo and rustc, not rustup's proxies). */
function rustDir(): string | undefined {
  const found = output("rustup", ["which", "rust-analyzer"]);
  return found ? dirname(found) : undefined;
}

/** The directory of `go` itself (gopls runs it). */
function goDir(): string | undefined {
  const found = output("sh", ["-c", "command -v go"]);
  return found ? dirname(realpathSync(found)) : undefined;
}

const GOPLS_DIR = goplsDir();
const RUST_DIR = rustDir();

export const SERVER_PATH = [
  join(ROOT, "node_modules", ".bin"),
  ...[GOPLS_DIR, goDir(), RUST_DIR].filter((dir): dir is string => dir !== undefined),
  "/usr/local/bin",
  "/usr/bin",
  "/bin",
].join(":");

/** Why a test of `server` cannot run here, or false when it can. */
export function missing(server: "gopls" | "rust-analyzer" | "clangd" | "ts7"): string | false {
  switch (server) {
    case "gopls":
      return GOPLS_DIR ? false : "gopls is not installed (.ci/run: go install gopls@v0.21.1)";
    case "rust-analyzer":
      return RUST_DIR && existsSync(join(RUST_DIR, "cargo"))
        ? false
        : "rust-analyzer is not installed (.ci/run: rustup component add rust-analyzer)";
    case "clangd":
      return output("sh", ["-c", "command -v clangd"]) ? false : "clangd is not installed";
    case "ts7":
      return existsSync(join(TS7_DIR, "node_modules", ".bin", "tsc"))
        ? false
        : `TypeScript 7 is not installed in ${TS7_DIR} (.ci/run installs it)`;
  }
}

/**
 * An edit's reply waits this long for the diagnostics of what it wrote (2 s by default): on a
 * loaded machine a real server may take longer, and a test of what the reply says must not
 * depend on how fast the server is (the wait ends as soon as it answers).
 */
export const PATIENT = { TOOLHOST_CODE_DIAGNOSTICS_WAIT_SECONDS: "300" };

/** A fresh directory holding `files` (relative path -> content). */
export function project(name: string, files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

export function startOn(
  scope: Scope,
  root: string,
  args: string[] = [],
  env: Record<string, string> = {},
): RawClient {
  return scope.server({
    args: ["--root", root, ...args],
    cwd: root,
    env: { TOOLHOST_STATE_DIR: scope.scratch("code-state"), PATH: SERVER_PATH, ...env },
  });
}

export interface Called {
  text: string;
  isError: boolean;
  structured?: Record<string, unknown>;
}

/** A call (two minutes at most: a language server may be loading a project). */
export async function call(
  c: RawClient,
  name: string,
  args: Record<string, unknown>,
  timeoutMs = 120_000,
): Promise<Called> {
  const reply = await callTool(c, name, args, { timeoutMs });
  return { text: reply.text, isError: reply.isError, structured: reply.result.structuredContent };
}

export async function ok(c: RawClient, name: string, args: Record<string, unknown>) {
  const r = await call(c, name, args);
  assert.equal(r.isError, false, r.text);
  return r;
}

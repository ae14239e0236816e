/**
 * A raw JSON-lines client for e2e tests: spawns a binary, writes lines, and records every line
 * that comes back on stdout (parsed, or kept as a stray line so purity can be asserted).
 * It splits stdout itself, independently of the server's LineSplitStream.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { fileURLToPath } from "node:url";
import { distBinary } from "../../scripts/toolchain.ts";

export const ROOT = fileURLToPath(new URL("../..", import.meta.url));
/** The binary under test; TOOLHOST_BINARY points the e2e suite at another build. */
export const PRODUCT_BINARY = process.env.TOOLHOST_BINARY ?? distBinary("toolhost");
export const TEST_BINARY = distBinary("toolhost-test");

let scratch: Record<string, string> | undefined;
let scratchDir: string | undefined;

/**
 * What every server under test gets in its environment so the developer's own files play no part:
 * an empty home (no ~/.claude/skills), no configured skill directories, and scratch state.
 * Made once per test file; a test that needs its own passes overrides after it.
 */
export function isolatedEnv(): Record<string, string> {
  if (!scratch) {
    const dir = mkdtempSync(join(tmpdir(), "toolhost-e2e-"));
    scratchDir = dir;
    mkdirSync(join(dir, "home"));
    scratch = {
      HOME: join(dir, "home"),
      TOOLHOST_SKILL_DIRS: "",
      TOOLHOST_STATE_DIR: join(dir, "state"),
      // The shell chosen for the whole run (the Windows job's Git Bash) reaches the servers that
      // SDK clients start too, whose environment is only what is passed here.
      ...(process.env.TOOLHOST_SHELL ? { TOOLHOST_SHELL: process.env.TOOLHOST_SHELL } : {}),
    };
  }
  return scratch;
}

/** Removes isolatedEnv()'s directory: the e2e fixture does, after the file's last test. */
export function removeIsolatedEnv(): void {
  if (scratchDir) rmSync(scratchDir, { recursive: true, force: true });
  scratch = scratchDir = undefined;
}

export type Message = Record<string, unknown> & {
  id?: string | number | null;
  method?: string;
  params?: Record<string, unknown>;
  result?: Record<string, unknown>;
  error?: { code: number; message: string; data?: unknown };
};

export const MODERN_VERSION = "2026-07-28";

/** `params` with the per-request `_meta` a 2026-07-28 client sends. */
export function modern(
  params: Record<string, unknown> = {},
  meta: Record<string, unknown> = {},
): Record<string, unknown> {
  return {
    ...params,
    _meta: {
      "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
      "io.modelcontextprotocol/clientCapabilities": {},
      "io.modelcontextprotocol/clientInfo": { name: "raw-test-client", version: "1" },
      ...meta,
    },
  };
}

export function binary(path: string): string {
  if (!existsSync(path)) {
    throw new Error(`${path} is missing: run \`deno task test\` (it builds the binaries first)`);
  }
  return path;
}

export class RawClient {
  readonly child: ChildProcess;
  readonly messages: Message[] = [];
  /** stdout lines that were not JSON objects: must stay empty. */
  readonly strayLines: string[] = [];
  /** Replies that came back as one JSON array (2025-03-26 batches). */
  readonly batches: Message[][] = [];
  stderr = "";
  readonly exited: Promise<{ code: number | null; signal: string | null }>;
  /** The unfinished last line, in pieces (joined once, when its newline arrives). */
  #parts: string[] = [];
  #nextId = 1;
  #waiters: { match: (m: Message) => boolean; resolve: (m: Message) => void }[] = [];
  /** Woken whenever stderr grows. */
  #stderrWaiters: (() => void)[] = [];

  /** `env` is added to this process's environment (and isolatedEnv()) for the server. */
  constructor(
    path = TEST_BINARY,
    args: string[] = [],
    cwd = ROOT,
    env: Record<string, string> = {},
  ) {
    this.child = spawn(binary(path), args, {
      cwd,
      env: { ...process.env, ...isolatedEnv(), ...env },
      stdio: ["pipe", "pipe", "pipe"],
    });
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (text: string) => this.#onStdout(text));
    this.child.stderr!.setEncoding("utf8");
    this.child.stderr!.on("data", (text: string) => {
      this.stderr += text;
      for (const wake of this.#stderrWaiters.splice(0)) wake();
    });
    this.child.stdin!.on("error", () => {}); // the server may exit first
    this.exited = new Promise((resolve) =>
      this.child.once("exit", (code, signal) => resolve({ code, signal }))
    );
  }

  #onStdout(text: string): void {
    if (!text.includes("\n")) {
      this.#parts.push(text);
      return;
    }
    const lines = text.split("\n");
    lines[0] = this.#parts.join("") + lines[0];
    this.#parts = [lines.pop()!];
    for (const line of lines) {
      let message: unknown;
      try {
        message = JSON.parse(line);
      } catch {
        this.strayLines.push(line);
        continue;
      }
      if (Array.isArray(message)) {
        this.batches.push(message);
        for (const m of message) this.#deliver(m);
      } else if (typeof message === "object" && message !== null) {
        this.#deliver(message as Message);
      } else {
        this.strayLines.push(line);
      }
    }
  }

  #deliver(message: Message): void {
    this.messages.push(message);
    this.#waiters = this.#waiters.filter((w) => {
      if (!w.match(message)) return true;
      w.resolve(message);
      return false;
    });
  }

  /** Bytes still on stdout after the last newline: must be empty when the server exits. */
  get unterminated(): string {
    return this.#parts.join("");
  }

  sendLine(text: string): void {
    this.child.stdin!.write(text + "\n");
  }

  send(message: unknown): void {
    this.sendLine(JSON.stringify(message));
  }

  notify(method: string, params?: Record<string, unknown>): void {
    this.send(params ? { jsonrpc: "2.0", method, params } : { jsonrpc: "2.0", method });
  }

  /** Sends a request and returns its id (not waiting). */
  start(method: string, params?: Record<string, unknown>, id?: string | number): string | number {
    const requestId = id ?? this.#nextId++;
    this.send({ jsonrpc: "2.0", id: requestId, method, ...(params ? { params } : {}) });
    return requestId;
  }

  /** Sends a request and waits for the response with its id. */
  request(method: string, params?: Record<string, unknown>, timeoutMs = 10_000): Promise<Message> {
    const id = this.start(method, params);
    return this.responseTo(id, timeoutMs);
  }

  responseTo(id: string | number | null, timeoutMs = 10_000): Promise<Message> {
    return this.waitFor(
      (m) => m.id === id && ("result" in m || "error" in m),
      timeoutMs,
      `a response to id ${JSON.stringify(id)}`,
    );
  }

  /** Waits for the first message (already received or future) that matches. */
  waitFor(
    match: (m: Message) => boolean,
    timeoutMs = 10_000,
    what = "a message",
  ): Promise<Message> {
    const seen = this.messages.find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w.resolve !== done);
        reject(
          new Error(`timed out after ${timeoutMs} ms waiting for ${what}; stderr:\n${this.stderr}`),
        );
      }, timeoutMs);
      const done = (m: Message) => {
        clearTimeout(timer);
        resolve(m);
      };
      this.#waiters.push({ match, resolve: done });
    });
  }

  /**
   * Waits until the server's stderr matches `pattern`, checking as each piece arrives; fails
   * after `timeoutMs`, showing what stderr held.
   */
  async waitForStderr(pattern: RegExp, timeoutMs = 10_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pattern.test(this.stderr)) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(`stderr never matched ${pattern} in ${timeoutMs} ms:\n${this.stderr}`);
      }
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise<void>((wake) => this.#stderrWaiters.push(wake)),
        new Promise<void>((wake) => (timer = setTimeout(wake, left))),
      ]);
      clearTimeout(timer);
    }
  }

  /** The legacy handshake: initialize at `version`, then notifications/initialized. */
  async initialize(
    version = "2025-11-25",
    capabilities: Record<string, unknown> = {},
  ): Promise<Message> {
    const reply = await this.request("initialize", {
      protocolVersion: version,
      capabilities,
      clientInfo: { name: "raw-test-client", version: "1" },
    });
    this.notify("notifications/initialized");
    return reply;
  }

  closeStdin(): void {
    this.child.stdin!.end();
  }

  /** Ends the session and waits for the exit, killing the server if it lingers. */
  async close(): Promise<{ code: number | null; signal: string | null }> {
    this.closeStdin();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), 5000);
    const status = await this.exited;
    clearTimeout(timer);
    return status;
  }
}

/** Starts a toolhost binary with --http on a free port, as a test's server. */
import { type ChildProcess, spawn } from "node:child_process";
import { request as httpRequest } from "node:http";
import process from "node:process";
import { binary, isolatedEnv, ROOT } from "./raw_client.ts";

export interface HttpServer {
  url: string;
  port: number;
  child: ChildProcess;
  stderr(): string;
  exited: Promise<{ code: number | null; signal: string | null }>;
  stop(): Promise<{ code: number | null; signal: string | null }>;
  /** What the server wrote to stdout: an HTTP server writes nothing there. */
  stdout(): string;
  /**
   * SIGTERM, sent with process.kill: Deno reports the exit of a child stopped with child.kill()
   * as that signal even when it exited 0 by itself, so only this shows the real exit code.
   */
  terminate(): Promise<{ code: number | null; signal: string | null }>;
}

/**
 * `args` come before `--http 127.0.0.1:0` unless they hold an --http of their own, or are a
 * `toolhost review` command line (which listens on loopback by itself).
 */
export async function startHttpServer(
  path: string,
  args: string[] = [],
  env: Record<string, string> = {},
  cwd = ROOT,
): Promise<HttpServer> {
  const all = args.includes("--http") || args[0] === "review"
    ? args
    : [...args, "--http", "127.0.0.1:0"];
  const child = spawn(binary(path), all, {
    cwd,
    env: { ...process.env, ...isolatedEnv(), ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let stdout = "";
  child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
  child.stderr!.setEncoding("utf8");
  const exited = new Promise<{ code: number | null; signal: string | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal }))
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no port within 10 s: ${stderr}`)), 10_000);
    child.stderr!.on("data", (text: string) => {
      stderr += text;
      const found = stderr.match(/serving MCP at http:\/\/[^\s]+:(\d+)\/mcp/);
      if (found) {
        clearTimeout(timer);
        resolve(Number(found[1]));
      }
    });
    exited.then(({ code }) => {
      clearTimeout(timer);
      reject(new Error(`the server exited (${code}) before listening: ${stderr}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}/mcp`,
    port,
    child,
    stderr: () => stderr,
    exited,
    async stop() {
      if (stdout !== "") throw new Error(`the HTTP server wrote to stdout: ${stdout}`);
      child.kill("SIGTERM");
      return await exited;
    },
    stdout: () => stdout,
    async terminate() {
      if (child.exitCode === null && child.signalCode === null) process.kill(child.pid!, "SIGTERM");
      return await exited;
    },
  };
}

/**
 * Opens a legacy (2025-11-25) session over Streamable HTTP with `initialize`: the headers each of
 * its requests then carries, or an Error saying what the server answered instead.
 */
export async function openLegacySession(
  url: string,
  accept = "application/json, text/event-stream",
): Promise<Record<string, string>> {
  const version = "2025-11-25";
  const headers = { "content-type": "application/json", accept };
  const response = await fetch(url, {
    method: "POST",
    headers,
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 0,
      method: "initialize",
      params: {
        protocolVersion: version,
        capabilities: {},
        clientInfo: { name: "t", version: "1" },
      },
    }),
  });
  await response.text();
  const id = response.headers.get("mcp-session-id");
  if (!id) throw new Error(`initialize gave no session (HTTP ${response.status})`);
  return { ...headers, "mcp-session-id": id, "mcp-protocol-version": version };
}

/** The headers of a 2026-07-28 request, and its body's _meta. */
export const MODERN_META = {
  "io.modelcontextprotocol/protocolVersion": "2026-07-28",
  "io.modelcontextprotocol/clientCapabilities": {},
};

export function modernHeaders(method: string, name?: string): Record<string, string> {
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "accept": "application/json, text/event-stream",
    "mcp-protocol-version": "2026-07-28",
    "mcp-method": method,
  };
  if (name !== undefined) headers["mcp-name"] = name;
  return headers;
}

/** POSTs one 2026-07-28 request with matching headers; `headers` override them. */
export function postModern(
  url: string,
  id: number | string,
  method: string,
  params: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Response> {
  const name = typeof params.name === "string"
    ? params.name
    : typeof params.uri === "string"
    ? params.uri
    : undefined;
  return fetch(url, {
    method: "POST",
    headers: { ...modernHeaders(method, name), ...headers },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id,
      method,
      params: { ...params, _meta: { ...MODERN_META, ...(params._meta as object ?? {}) } },
    }),
  });
}

/** The JSON-RPC messages of an SSE body, in order. */
export function sseMessages(text: string): Record<string, unknown>[] {
  return text.split(/\r?\n\r?\n/).flatMap((event) => {
    const data = event.split(/\r?\n/).filter((line) => line.startsWith("data:"))
      .map((line) => line.slice(5).trimStart()).join("\n");
    return data ? [JSON.parse(data)] : [];
  });
}

export interface RawHttpReply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/**
 * One request through node:http, which (unlike fetch) sends the Host header it is given: what a
 * browser sends for a page whose name was rebound to this machine.
 */
export function rawHttp(
  port: number,
  options: { method?: string; path?: string; headers?: Record<string, string>; body?: string },
): Promise<RawHttpReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({
      host: "127.0.0.1",
      port,
      method: options.method ?? "POST",
      path: options.path ?? "/mcp",
      headers: options.headers,
    }, (res) => {
      let body = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => (body += chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(options.body);
  });
}

/**
 * Reads an SSE response one JSON-RPC message at a time, as a client does while the stream stays
 * open: `next` waits for the following message, or undefined once the server ends the stream.
 */
export class SseReader {
  readonly #reader: ReadableStreamDefaultReader<string>;
  readonly #queue: Record<string, unknown>[] = [];
  #buffer = "";
  #ended = false;
  #pending?: Promise<ReadableStreamReadResult<string>>;

  constructor(response: Response) {
    this.#reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  async next(timeoutMs = 5000): Promise<Record<string, unknown> | undefined> {
    const deadline = Date.now() + timeoutMs;
    while (this.#queue.length === 0 && !this.#ended) {
      this.#pending ??= this.#reader.read();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const timeout = new Promise<"timeout">((resolve) => {
        timer = setTimeout(() => resolve("timeout"), Math.max(0, deadline - Date.now()));
      });
      const read = await Promise.race([this.#pending, timeout]);
      clearTimeout(timer);
      if (read === "timeout") {
        throw new Error(`no SSE message within ${timeoutMs} ms (buffered: ${this.#buffer})`);
      }
      this.#pending = undefined;
      if (read.done) this.#ended = true;
      else this.#buffer += read.value;
      const events = this.#buffer.split(/\r?\n\r?\n/);
      this.#buffer = events.pop()!;
      this.#queue.push(...sseMessages(events.map((event) => event + "\n\n").join("")));
    }
    return this.#queue.shift();
  }

  /** Closes the stream from the client's side, as a client that stops listening does. */
  async cancel(): Promise<void> {
    await this.#reader.cancel().catch(() => {});
  }
}

/**
 * One MCP server under test, spawned over stdio: sends JSON-RPC lines, matches replies to
 * requests by id, reads the process's peak RSS, and shuts it down the way a client does.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { LineReader } from "./line_reader.ts";

export interface Reply {
  id: number;
  result?: { content?: { type: string; text?: string }[]; isError?: boolean };
  error?: { code: number; message: string };
}

export type Request = { id: number; method: string; params?: Record<string, unknown> };

/** The 2025-11-25 handshake's first request, as every benchmark's client sends it. */
export const initializeRequest = (id: number): Request => ({
  id,
  method: "initialize",
  params: {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "toolhost-bench", version: "1" },
  },
});

/** No single measurement step should take this long; a hang fails the bench instead. */
const STEP_TIMEOUT_MS = 60_000;
/** Grace between closing stdin and SIGKILL. */
const EXIT_GRACE_MS = 3_000;

export class ServerProcess {
  readonly child: ChildProcess;
  readonly exited: Promise<void>;
  #waiting = new Map<number, (reply: Reply) => void>();
  #stderrTail = "";
  #failure: Error | null = null;
  /** Ids for tool(): far above those the measurements number themselves. */
  #nextToolId = 1_000_000;

  constructor(
    readonly command: string,
    readonly args: string[] = [],
    /** How long one step (a request and its reply) may take. */
    readonly stepTimeoutMs = STEP_TIMEOUT_MS,
  ) {
    this.child = spawn(command, args, { stdio: ["pipe", "pipe", "pipe"] });
    const reader = new LineReader((line) => this.#deliver(line));
    this.child.stdout!.setEncoding("utf8");
    this.child.stdout!.on("data", (text: string) => reader.push(text));
    this.child.stderr!.setEncoding("utf8");
    // Drained so a chatty server never blocks on a full pipe; the tail explains failures.
    this.child.stderr!.on("data", (text: string) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-2000);
    });
    this.child.stdin!.on("error", () => {}); // reported through "exit" instead
    this.exited = new Promise((resolve) => {
      this.child.once("exit", (code, signal) => {
        this.#fail(`exited early (code ${code}, signal ${signal})`);
        resolve();
      });
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  #fail(why: string): void {
    this.#failure ??= new Error(`${this.command} ${why}; stderr tail:\n${this.#stderrTail}`);
    const waiting = [...this.#waiting.values()];
    this.#waiting.clear();
    // A reply without a result makes every waiting caller see the failure.
    for (const wake of waiting) wake({ id: -1 });
  }

  #deliver(line: string): void {
    if (line === "") return;
    let reply: Reply;
    try {
      reply = JSON.parse(line);
    } catch {
      this.#fail(`wrote a line to stdout that is not JSON: ${line.slice(0, 200)}`);
      return;
    }
    const wake = this.#waiting.get(reply.id);
    if (wake) {
      this.#waiting.delete(reply.id);
      wake(reply);
    }
  }

  #await<T>(promise: Promise<T>, what: string): Promise<T> {
    let timer: ReturnType<typeof setTimeout>;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#fail(`did not finish ${what} within ${this.stepTimeoutMs} ms`);
        reject(this.#failure);
      }, this.stepTimeoutMs);
    });
    return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
  }

  #check(reply: Reply, request: Request): Reply {
    if (this.#failure) throw this.#failure;
    if (!reply.result || reply.result.isError) {
      throw new Error(
        `${this.command}: ${request.method} #${request.id} failed: ${JSON.stringify(reply)}`,
      );
    }
    return reply;
  }

  write(text: string): void {
    this.child.stdin!.write(text);
  }

  notify(method: string): void {
    this.write(JSON.stringify({ jsonrpc: "2.0", method }) + "\n");
  }

  /** Sends one request and resolves with its (successful) reply. */
  async request(request: Request): Promise<Reply> {
    if (this.#failure) throw this.#failure;
    const replied = new Promise<Reply>((resolve) => this.#waiting.set(request.id, resolve));
    this.write(JSON.stringify({ jsonrpc: "2.0", ...request }) + "\n");
    return this.#check(await this.#await(replied, request.method), request);
  }

  /** A legacy session: initialize, then notifications/initialized. */
  async initialize(): Promise<void> {
    await this.request(initializeRequest(0));
    this.notify("notifications/initialized");
  }

  /** One tools/call: milliseconds from sending it to its (successful) reply, and the reply. */
  async tool(name: string, args: Record<string, unknown>): Promise<{ ms: number; reply: Reply }> {
    const request = {
      id: this.#nextToolId++,
      method: "tools/call",
      params: { name, arguments: args },
    };
    const sent = performance.now();
    const reply = await this.request(request);
    return { ms: performance.now() - sent, reply };
  }

  /**
   * Writes every request in one go and resolves when all replies are in. `lines` are the
   * requests already encoded, so encoding stays outside the timed part.
   */
  async pipeline(requests: Request[], lines: string): Promise<void> {
    if (this.#failure) throw this.#failure;
    let left = requests.length;
    const failed: { reply: Reply; request: Request }[] = [];
    const done = new Promise<void>((resolve) => {
      for (const request of requests) {
        this.#waiting.set(request.id, (reply) => {
          if (!reply.result || reply.result.isError) failed.push({ reply, request });
          if (--left === 0) resolve();
        });
      }
    });
    this.write(lines);
    await this.#await(done, `${requests.length} pipelined requests`);
    if (failed.length > 0) this.#check(failed[0].reply, failed[0].request);
  }

  /** VmHWM: the highest resident set size this process has reached, in bytes. */
  peakRss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    if (!kb) throw new Error(`no VmHWM in /proc/${this.pid}/status`);
    return Number(kb[1]) * 1024;
  }

  /**
   * CPU time the process has used so far, in ms: user + system, all its threads (JIT and GC
   * too), from /proc in clock ticks of 10 ms (Linux's USER_HZ). Less at the mercy of other work
   * on the machine than wall-clock time.
   */
  cpuMs(): number {
    const stat = readFileSync(`/proc/${this.pid}/stat`, "utf8");
    // Fields after the command name (which may hold spaces) end with ") ".
    const fields = stat.slice(stat.lastIndexOf(") ") + 2).split(" ");
    return (Number(fields[11]) + Number(fields[12])) * 10;
  }

  /** Ends stdin as a client does, and kills the server if it lingers. */
  async close(): Promise<void> {
    this.#failure ??= new Error(`${this.command} was closed`);
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill("SIGKILL"), EXIT_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

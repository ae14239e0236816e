/**
 * One language server process and the JSON-RPC conversation with it over its stdio: requests
 * with ids and time limits, notifications both ways, and the few requests servers make of a
 * client answered here. The process is started like every process toolhost starts (its own
 * group, marked, killed with toolhost and by the watchdog if toolhost is killed outright), but in
 * toolhost's session where the sandbox's helper makes its group, as an editor's server is in the
 * editor's: a session of its own is a scheduling group of its own (spawnInGroup's sameSession).
 */
import type { ChildProcess } from "node:child_process";
import process from "node:process";
import { type Confinement, spawnInGroup, terminateGroup } from "../../../_lib/processes/mod.ts";
import { frame, FrameReader } from "./_framing.ts";
import { groupCpuTicks } from "./_memory.ts";
import type { Method, ParamsOf, ResultOf } from "./_protocol.ts";

/**
 * TOOLHOST_LSP_TRACE=1: every message to stderr (its start), for debugging, stamped with the
 * wall clock's last 100 s in ms to the microsecond (a server's round trip, to compare with
 * `strace -ttt` of the server, is a millisecond or two).
 */
const TRACE = process.env.TOOLHOST_LSP_TRACE === "1";

function trace(direction: string, message: Record<string, unknown>): void {
  if (!TRACE) return;
  const text = JSON.stringify(message);
  const at = ((performance.timeOrigin + performance.now()) % 100_000).toFixed(3);
  console.error(`lsp ${direction} ${at} ${text.slice(0, 300)}`);
}

/** How much of a server's stderr is kept to explain a failure. */
const STDERR_TAIL = 4096;

export class RequestFailed extends Error {
  constructor(message: string, readonly code?: number) {
    super(message);
  }
}

/** A request the server did not answer in its time (it may still be working on it). */
export class NoAnswer extends RequestFailed {}

/**
 * A server is taken for frozen, and killed, when a request waited at least this long without a
 * byte from it (no answer, progress, log or stderr line) and its processes then used no CPU
 * for FROZEN_CPU_MS: a server stopped (SIGSTOP) or stuck on a lock. One that talks, or
 * computes in silence, is left to answer late.
 */
const FROZEN_AFTER_MS = 5000;
const FROZEN_CPU_MS = 1000;

export interface Spawned {
  command: string;
  args: readonly string[];
  cwd: string;
  env?: Readonly<Record<string, string>>;
  /** How it is confined: the sandbox's `language-server` kind. */
  confinement: Confinement;
  /**
   * Whether a request given up on (its time passed, its call stopped) is cancelled with
   * `$/cancelRequest`, or only left unanswered (its late answer is dropped). Default true.
   */
  cancels?: boolean;
}

type Handler = (params: unknown) => unknown;

interface Waiting {
  resolve(value: unknown): void;
  reject(error: Error): void;
  timer: ReturnType<typeof setTimeout>;
}

export class Connection {
  readonly child: ChildProcess;
  readonly pid: number | undefined;
  #nextId = 1;
  #waiting = new Map<number, Waiting>();
  #reader = new FrameReader();
  #notifications = new Map<string, Handler>();
  #requests = new Map<string, Handler>();
  #stderr = "";
  /** When the server last wrote anything (performance.now()). */
  #heard = performance.now();
  #closed: string | undefined;
  /** Why it is being stopped, once it is. */
  #stopping: string | undefined;
  #onClose: ((why: string) => void)[] = [];
  readonly #cancels: boolean;

  constructor(spec: Spawned) {
    this.#cancels = spec.cancels !== false;
    this.child = spawnInGroup(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...process.env, ...spec.env },
      stdio: ["pipe", "pipe", "pipe"],
    }, { confinement: spec.confinement, sameSession: true });
    this.pid = this.child.pid;
    this.child.stdout!.on("data", (chunk: Uint8Array) => {
      this.#heard = performance.now();
      this.#receive(chunk);
    });
    this.child.stderr!.on("data", (chunk: Uint8Array) => {
      this.#heard = performance.now();
      this.#stderr = (this.#stderr + new TextDecoder().decode(chunk)).slice(-STDERR_TAIL);
    });
    this.child.stdin!.on("error", () => {}); // an exit shows on "exit"
    this.child.on("error", (error) => this.#close(`it could not be started: ${error.message}`));
    this.child.on("exit", (code, signal) =>
      this.#close(
        this.#stopping ??
          `it exited (${signal ? `signal ${signal}` : `code ${code}`})`,
      ));
  }

  /** Why the connection is over, once it is. */
  /** Requests sent and not yet answered. */
  get inFlight(): number {
    return this.#waiting.size;
  }

  get closed(): string | undefined {
    return this.#closed;
  }

  /** The last lines the server wrote to stderr, for an error message. */
  get stderrTail(): string {
    return this.#stderr.trim().split("\n").slice(-5).join("\n").slice(-1000);
  }

  onClose(listener: (why: string) => void): void {
    if (this.#closed) listener(this.#closed);
    else this.#onClose.push(listener);
  }

  onNotification(method: string, handler: Handler): void {
    this.#notifications.set(method, handler);
  }

  /** Answers a request the server makes; an unknown one gets "method not found". */
  onRequest(method: string, handler: Handler): void {
    this.#requests.set(method, handler);
  }

  /** A request of the protocol (_protocol.ts), its answer typed by its method. */
  request<M extends Method>(
    method: M,
    params: ParamsOf<M>,
    timeoutMs: number,
    signal?: AbortSignal,
  ): Promise<ResultOf<M>> {
    if (this.#closed) return Promise.reject(new RequestFailed(`the server ended: ${this.#closed}`));
    const id = this.#nextId++;
    const sent = performance.now();
    return new Promise<ResultOf<M>>((resolve, reject) => {
      const stop = () => {
        this.#settle(id);
        this.#giveUp(id);
        reject(new RequestFailed(`${method} was stopped`));
      };
      const timer = setTimeout(async () => {
        signal?.removeEventListener("abort", stop);
        this.#waiting.delete(id);
        const said = `${method} got no answer within ${Math.round(timeoutMs / 1000)} s`;
        if (timeoutMs >= FROZEN_AFTER_MS && await this.#frozenSince(sent)) {
          this.kill(
            `it wrote nothing for ${Math.round((performance.now() - sent) / 1000)} s while a ` +
              "request waited and used no CPU: taken for frozen, it was killed",
          );
          reject(
            new NoAnswer(
              `${said}, and wrote nothing at all meanwhile (not even progress) and used no CPU: ` +
                "it was taken for frozen and killed; the next call starts a new one",
            ),
          );
          return;
        }
        this.#giveUp(id);
        reject(new NoAnswer(said));
      }, timeoutMs);
      this.#waiting.set(id, {
        resolve: (value) => {
          signal?.removeEventListener("abort", stop);
          resolve(value as ResultOf<M>);
        },
        reject: (error) => {
          signal?.removeEventListener("abort", stop);
          reject(error);
        },
        timer,
      });
      signal?.addEventListener("abort", stop, { once: true });
      this.#send({ jsonrpc: "2.0", id, method, params });
    });
  }

  /**
   * Whether the server, alive, has written nothing since `since` and its processes use no CPU
   * (measured over FROZEN_CPU_MS; never where CPU time cannot be read).
   */
  async #frozenSince(since: number): Promise<boolean> {
    if (this.#closed || this.#heard > since) return false;
    const before = groupCpuTicks(this.pid);
    if (before === undefined) return false;
    await new Promise((resolve) => setTimeout(resolve, FROZEN_CPU_MS));
    return !this.#closed && this.#heard <= since && groupCpuTicks(this.pid) === before;
  }

  /** A request no one waits for any more: cancelled, unless the server breaks on that. */
  #giveUp(id: number): void {
    if (this.#cancels) this.notify("$/cancelRequest", { id });
  }

  notify(method: string, params: unknown): void {
    if (!this.#closed) this.#send({ jsonrpc: "2.0", method, params });
  }

  /** Asks the server to shut down, then ends its process group whatever it does. */
  async stop(why = "it was stopped", graceMs = 1000): Promise<void> {
    this.#stopping = why;
    if (!this.#closed) {
      await this.request("shutdown", null, graceMs).catch(() => {});
      this.notify("exit", null);
    }
    if (this.pid !== undefined) await terminateGroup(this.pid, graceMs);
    this.#close(why);
  }

  /** Ends the process group at once (a crash of ours, a memory ceiling, a hang). */
  kill(why: string): void {
    if (this.pid !== undefined) void terminateGroup(this.pid, 0, "SIGKILL");
    this.#close(why);
  }

  #send(message: Record<string, unknown>): void {
    trace(">", message);
    try {
      this.child.stdin!.write(frame(message));
    } catch {
      // the exit handler reports it
    }
  }

  #settle(id: number): Waiting | undefined {
    const waiting = this.#waiting.get(id);
    if (!waiting) return undefined;
    clearTimeout(waiting.timer);
    this.#waiting.delete(id);
    return waiting;
  }

  #receive(chunk: Uint8Array): void {
    let messages: unknown[];
    try {
      messages = this.#reader.push(chunk);
    } catch (error) {
      this.kill(`it wrote ${(error as Error).message} on its output`);
      return;
    }
    for (const message of messages) this.#dispatch(message as Record<string, unknown>);
  }

  #dispatch(message: Record<string, unknown>): void {
    if (message === null || typeof message !== "object") return;
    trace("<", message);
    const { id, method } = message;
    if (typeof method !== "string") {
      if (typeof id !== "number") return;
      const waiting = this.#settle(id);
      if (!waiting) return;
      const error = message.error as { message?: unknown; code?: unknown } | undefined;
      if (error) {
        waiting.reject(
          new RequestFailed(
            String(error.message ?? "error").slice(0, 500),
            typeof error.code === "number" ? error.code : undefined,
          ),
        );
      } else waiting.resolve(message.result ?? null);
      return;
    }
    if (id === undefined) {
      try {
        this.#notifications.get(method)?.(message.params);
      } catch {
        // a handler's fault must not stop the stream
      }
      return;
    }
    const handler = this.#requests.get(method);
    if (!handler) {
      this.#send({ jsonrpc: "2.0", id, error: { code: -32601, message: "not supported" } });
      return;
    }
    let result: unknown = null;
    try {
      result = handler(message.params) ?? null;
    } catch (error) {
      this.#send({ jsonrpc: "2.0", id, error: { code: -32603, message: String(error) } });
      return;
    }
    this.#send({ jsonrpc: "2.0", id, result });
  }

  #close(why: string): void {
    if (this.#closed) return;
    this.#closed = why;
    for (const id of [...this.#waiting.keys()]) {
      this.#settle(id)!.reject(new RequestFailed(`the server ended: ${why}`));
    }
    try {
      this.child.stdin?.destroy();
      this.child.stdout?.destroy();
      this.child.stderr?.destroy();
    } catch {
      // already gone
    }
    for (const listener of this.#onClose.splice(0)) listener(why);
  }
}

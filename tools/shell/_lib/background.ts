/**
 * Background processes of a session: started by bash_background, read by bash_output, fed by
 * bash_input, listed by bash_list, stopped by bash_kill. Each session has its own (processesOf):
 * another session sees none of them, and they are stopped when their session ends, unless started
 * to outlive the server. Each runs in its own process group (so shutdown's killAllGroups reaches
 * it, unless it was started to outlive the server) and keeps a bounded window of its output.
 */
import type { ChildProcess } from "node:child_process";
import nodeProcess from "node:process";
import { quoted } from "../../../config/quote.ts";
import { SessionKey, type SessionMemory, ToolError } from "../../../mcp/tool/mod.ts";
import { OutputWindow } from "./output_window.ts";
import { type Confinement, terminateGroup } from "../../_lib/processes/mod.ts";
import { findShell, spawnShell } from "./shell.ts";

export const LIMITS = {
  /** Characters of output kept per process; the oldest are dropped first. */
  windowChars: 10 * 1024 * 1024,
  /** Processes of one session running at once. */
  maxRunning: 32,
  /** Processes of all sessions running at once. */
  maxRunningServer: 256,
  /** Finished processes still listed. */
  keepFinished: 100,
};

/** The states a background process can be in, as `status` and the output schemas name them. */
export const STATUSES = ["running", "exited", "killed"] as const;
export type Status = typeof STATUSES[number];

/** The schema of BackgroundProcess.facts(), shared by the tools' output schemas. */
export const FACTS_PROPERTIES = {
  id: { type: "string" },
  pid: { type: "integer" },
  status: { enum: STATUSES },
  exitCode: { type: ["integer", "null"] },
  signal: { type: ["string", "null"] },
} as const;
export const FACTS_REQUIRED = ["id", "pid", "status", "exitCode", "signal"] as const;
export const FACTS_SCHEMA = {
  type: "object",
  properties: FACTS_PROPERTIES,
  required: FACTS_REQUIRED,
  additionalProperties: false,
} as const;

/** The `id` input every tool but bash_background takes. */
export const ID_PROPERTY = {
  type: "string",
  description: "The process id from bash_background, e.g. p1.",
} as const;

/** How a background command is started. */
export interface StartOptions {
  /** How it is confined (the sandbox's wrapper, or why not). */
  confinement: Confinement;
  /** Whose command it is (a session's runOwner): what it leaves running ends with that session. */
  owner?: string;
  /** A label to recognise it by. */
  name?: string;
  env?: NodeJS.ProcessEnv;
  /** The configured shell; empty means bash on PATH, else sh. */
  shell?: string;
  /** Kept running after the server exits. */
  outliveServer?: boolean;
}

/** After the shell exits, how long its last output may take to arrive. */
const DRAIN_MS = 250;

/** How long a process of an ended session gets between SIGTERM and SIGKILL. */
const SESSION_END_GRACE_MS = 2_000;

/** Background processes running now, every session's: the server's own bound (LIMITS). */
let runningInServer = 0;

export class BackgroundProcess {
  readonly output = new OutputWindow(LIMITS.windowChars);
  readonly startedAt = Date.now();
  endedAt?: number;
  exitCode: number | null = null;
  signal: string | null = null;
  /** Bytes the process has written, all told (the window keeps only the latest). */
  bytes = 0;
  /** Where "everything not read yet" starts. */
  readCursor = 0;
  stdinOpen = true;
  /** Ended and its output fully read (or given up on: a grandchild may hold the pipe). */
  #settled = false;
  #changed = new Set<() => void>();
  #stopping?: Promise<void>;
  #ended!: () => void;
  /** Settles once it has ended and its output is in (or given up on). */
  readonly ended = new Promise<void>((resolve) => (this.#ended = resolve));

  constructor(
    readonly id: string,
    readonly command: string,
    readonly cwd: string,
    readonly name: string | undefined,
    readonly child: ChildProcess,
    /** Started to outlive the server: its session's end leaves it running too. */
    readonly outliveServer = false,
  ) {
    let open = 2;
    for (const stream of [child.stdout!, child.stderr!]) {
      const decoder = new TextDecoder();
      stream.on("data", (chunk: Uint8Array) => {
        this.bytes += chunk.length;
        this.output.append(decoder.decode(chunk, { stream: true }));
        this.#notify();
      });
      stream.once("close", () => {
        this.output.append(decoder.decode());
        if (--open === 0 && this.endedAt !== undefined) this.#settle();
      });
    }
    child.stdin!.on("error", () => (this.stdinOpen = false));
    child.once("exit", (code, signal) => {
      this.exitCode = code;
      this.signal = signal;
      this.endedAt = Date.now();
      this.stdinOpen = false;
      if (open === 0) this.#settle();
      else setTimeout(() => this.#settle(), DRAIN_MS);
    });
  }

  get pid(): number {
    return this.child.pid!;
  }

  get status(): Status {
    if (this.endedAt === undefined) return "running";
    return this.exitCode === null ? "killed" : "exited";
  }

  /** "running", "exited with code 1", "killed by SIGTERM". */
  describeStatus(): string {
    switch (this.status) {
      case "running":
        return "running";
      case "exited":
        return `exited with code ${this.exitCode}`;
      case "killed":
        return `killed by ${this.signal}`;
    }
  }

  /** How it ended, as the journal records a call's outcome. */
  outcome(): "ok" | "error" | "cancelled" {
    if (this.status === "killed") return "cancelled";
    return this.exitCode === 0 ? "ok" : "error";
  }

  get runtimeMs(): number {
    return (this.endedAt ?? Date.now()) - this.startedAt;
  }

  /** `p1 "dev server" (pid 4242) · running for 12 s`: one line for any result about it. */
  summary(): string {
    const label = this.name ? ` ${JSON.stringify(this.name)}` : "";
    const seconds = Math.round(this.runtimeMs / 100) / 10;
    const when = this.status === "running" ? `for ${seconds} s` : `after ${seconds} s`;
    return `${this.id}${label} (pid ${this.pid}) · ${this.describeStatus()} ${when}`;
  }

  /** Everything the tools report about the process, for structuredContent. */
  facts() {
    return {
      id: this.id,
      pid: this.pid,
      status: this.status,
      exitCode: this.exitCode,
      signal: this.signal,
    };
  }

  /**
   * Resolves when there is output past `offset` or the process has ended, after `ms`, or on
   * abort. Output that arrives in a burst is collected for a moment before returning.
   */
  waitForOutput(offset: number, ms: number, signal: AbortSignal): Promise<void> {
    return this.#waitUntil(() => this.output.end > offset, ms, signal, 50);
  }

  /** Resolves once the process has ended and its output is in, after `ms`, or on abort. */
  waitForEnd(ms: number, signal: AbortSignal): Promise<void> {
    return this.#waitUntil(() => false, ms, signal, 0);
  }

  #waitUntil(ready: () => boolean, ms: number, signal: AbortSignal, settleMs: number) {
    if (ms <= 0 || ready() || this.#settled || signal.aborted) return Promise.resolve();
    return new Promise<void>((resolve) => {
      let settle: ReturnType<typeof setTimeout> | undefined;
      const done = () => {
        clearTimeout(deadline);
        clearTimeout(settle);
        this.#changed.delete(check);
        signal.removeEventListener("abort", done);
        resolve();
      };
      const check = () => {
        if (this.#settled) done();
        else if (ready()) settle ??= setTimeout(done, settleMs);
      };
      const deadline = setTimeout(done, ms);
      this.#changed.add(check);
      signal.addEventListener("abort", done, { once: true });
    });
  }

  /** Calls `listener` on new output and once the process has ended; returns what stops that. */
  onChange(listener: () => void): () => void {
    // A wrapper of its own: the same function added twice must be removable once each.
    const check = () => listener();
    this.#changed.add(check);
    return () => this.#changed.delete(check);
  }

  /** Writes to the process's stdin; fails clearly once it has ended or stdin was closed. */
  async write(text: string): Promise<void> {
    if (this.status !== "running") {
      throw new ToolError(`${this.id} has ${this.describeStatus()}; it takes no more input`);
    }
    if (!this.stdinOpen) throw new ToolError(`${this.id}'s stdin is closed`);
    await new Promise<void>((resolve, reject) => {
      this.child.stdin!.write(text, (error) => (error ? reject(error) : resolve()));
    }).catch((error: Error) => {
      throw new ToolError(`writing to ${this.id} failed: ${error.message}`);
    });
  }

  closeStdin(): void {
    this.stdinOpen = false;
    this.child.stdin!.end();
  }

  /** Signals the whole group; unless that was SIGKILL, SIGKILL follows after `graceMs`. */
  stop(signal: NodeJS.Signals, graceMs: number): Promise<void> {
    this.#stopping ??= terminateGroup(this.pid, graceMs, signal);
    return this.#stopping;
  }

  #settle(): void {
    if (this.#settled) return;
    this.#settled = true;
    this.#ended();
    this.#notify();
  }

  #notify(): void {
    for (const check of [...this.#changed]) check();
  }
}

/** One session's background processes; ids (p1, p2, …) count per session and are never reused. */
export class Registry {
  #processes = new Map<string, BackgroundProcess>();
  #next = 1;
  #listChanged = new Set<() => void>();

  /** Calls `listener` when a process starts, ends or is forgotten; returns what stops that. */
  onListChange(listener: () => void): () => void {
    const call = () => listener();
    this.#listChanged.add(call);
    return () => this.#listChanged.delete(call);
  }

  start(command: string, cwd: string, options: StartOptions): BackgroundProcess {
    const { name, env = nodeProcess.env, shell = "", outliveServer = false } = options;
    const running = this.list().filter((p) => p.status === "running").length;
    if (running >= LIMITS.maxRunning) {
      throw new ToolError(
        `${running} background processes of this session are running, the most allowed; stop ` +
          "one with bash_kill first",
      );
    }
    if (runningInServer >= LIMITS.maxRunningServer) {
      throw new ToolError(
        `${runningInServer} background processes of all sessions are running, the most this ` +
          "server allows; stop one of this session's with bash_kill, or try again later",
      );
    }
    const { confinement, owner } = options;
    const where = { cwd, env, shell, outliveServer, confinement, owner };
    const child = spawnShell(command, where, "pipe");
    let failure = "";
    child.once("error", (error) => (failure = error.message));
    if (child.pid === undefined) {
      throw new ToolError(
        `could not start ${findShell(shell)} in ${cwd}${failure ? `: ${failure}` : ""}`,
      );
    }
    const process = new BackgroundProcess(
      `p${this.#next++}`,
      command,
      cwd,
      name,
      child,
      outliveServer,
    );
    this.#processes.set(process.id, process);
    this.#forgetOldFinished();
    runningInServer++;
    // After the process's own exit handler, so that listeners see it ended.
    child.once("exit", () => {
      runningInServer--;
      this.#notifyList();
    });
    this.#notifyList();
    return process;
  }

  get(id: string): BackgroundProcess {
    const process = this.#processes.get(id);
    if (!process) {
      const known = [...this.#processes.keys()];
      throw new ToolError(
        `no background process ${quoted(id)}; ` +
          (known.length ? `known ids: ${known.join(", ")}` : "none has been started"),
      );
    }
    return process;
  }

  list(): BackgroundProcess[] {
    return [...this.#processes.values()];
  }

  /**
   * The session ended: every process still running is stopped (its group, SIGKILL after a grace),
   * except those started to outlive the server.
   */
  async stopAll(): Promise<void> {
    const running = this.list().filter((p) => p.status === "running" && !p.outliveServer);
    await Promise.allSettled(running.map((p) => p.stop("SIGTERM", SESSION_END_GRACE_MS)));
  }

  #notifyList(): void {
    for (const call of [...this.#listChanged]) call();
  }

  #forgetOldFinished(): void {
    const finished = this.list().filter((p) => p.status !== "running");
    for (const old of finished.slice(0, Math.max(0, finished.length - LIMITS.keepFinished))) {
      this.#processes.delete(old.id);
    }
  }
}

/** The key of a session's processes; ending the session stops them (Registry.stopAll). */
const PROCESSES = new SessionKey(
  "background processes",
  () => new Registry(),
  (registry) => registry.stopAll(),
);

/**
 * The background processes of the caller's session.
 *
 * @example
 * ```ts
 * const proc = processesOf(ctx).get(args.id); // "no background process …" for another session's
 * ```
 */
export function processesOf(ctx: { readonly session: SessionMemory }): Registry {
  return ctx.session.get(PROCESSES);
}

/**
 * One MCP server under test over HTTP: spawned on a free loopback port, found by the
 * `serving MCP at http://HOST:PORT/mcp` line both servers print on stderr, and read through
 * /proc for its peak RSS and CPU time.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import type { ServerCommand } from "./measurements.ts";

const LISTEN_TIMEOUT_MS = 10_000;
/** Grace between SIGTERM and SIGKILL. */
const EXIT_GRACE_MS = 3_000;

/** Clock ticks per second of /proc/<pid>/stat times; 100 on every Linux this runs on. */
const CLOCK_TICKS = 100;

/** User plus system CPU seconds of a process (all its threads) so far. */
export function cpuSeconds(pid: number | "self"): number {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which may hold spaces; utime and stime are fields 14 and 15.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) / CLOCK_TICKS;
}

export class HttpServerProcess {
  readonly exited: Promise<void>;
  #stderrTail = "";
  #exit = "";

  private constructor(readonly child: ChildProcess, readonly url: string, exited: Promise<void>) {
    this.exited = exited;
    child.stderr!.on("data", (text: string) => {
      this.#stderrTail = (this.#stderrTail + text).slice(-2000);
    });
    child.once("exit", (code, signal) => {
      this.#exit = ` (the server exited: code ${code}, signal ${signal})`;
    });
  }

  /** Spawns `server` with `extraArgs` and resolves once it says where it listens. */
  static async start(server: ServerCommand, extraArgs: string[]): Promise<HttpServerProcess> {
    const child = spawn(server.command, [...server.args, ...extraArgs], {
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stderr = "";
    let stdout = "";
    child.stdout!.setEncoding("utf8").on("data", (text: string) => (stdout += text));
    child.stderr!.setEncoding("utf8");
    const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
    const url = await new Promise<string>((resolve, reject) => {
      const fail = (why: string) => {
        child.kill("SIGKILL");
        reject(new Error(`${server.command} ${why}; stderr:\n${stderr}${stdout}`));
      };
      const timer = setTimeout(() => fail("did not listen in time"), LISTEN_TIMEOUT_MS);
      const onData = (text: string) => {
        stderr += text;
        const found = /serving MCP at (http:\/\/\S+\/mcp)/.exec(stderr);
        if (found) {
          clearTimeout(timer);
          child.stderr!.off("data", onData);
          resolve(found[1]);
        }
      };
      child.stderr!.on("data", onData);
      exited.then(() => {
        clearTimeout(timer);
        fail("exited before listening");
      });
    });
    return new HttpServerProcess(child, url, exited);
  }

  get pid(): number {
    return this.child.pid!;
  }

  cpuSeconds(): number {
    return cpuSeconds(this.pid);
  }

  /** VmHWM: the highest resident set size this process has reached, in bytes. */
  peakRss(): number {
    const status = readFileSync(`/proc/${this.pid}/status`, "utf8");
    const kb = /^VmHWM:\s+(\d+) kB$/m.exec(status);
    if (!kb) throw new Error(`no VmHWM in /proc/${this.pid}/status`);
    return Number(kb[1]) * 1024;
  }

  describeFailure(error: unknown): Error {
    return new Error(
      `${this.url}: ${(error as Error).message}; server stderr tail:\n` +
        this.#stderrTail,
    );
  }

  /** SIGTERM, as a service manager stops a server; SIGKILL if it lingers. */
  async stop(): Promise<void> {
    this.child.kill("SIGTERM");
    const timer = setTimeout(() => this.child.kill("SIGKILL"), EXIT_GRACE_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

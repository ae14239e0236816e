/**
 * The session's network holder: `toolhost-confine hold SOCKET`, a process in a user and network
 * namespace of its own (loopback only) that forwards every connection to 127.0.0.1:PORT inside it
 * to SOCKET, the proxy's unix socket, and each loopback service allowed by port to a socket of its
 * own. Confined processes join its namespaces (`-n join:PID:INODE`).
 * It lives until its stdin ends (so it dies with toolhost, however toolhost ends) and is in a
 * process group of its own, killed when the session ends.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { statSync } from "node:fs";
import process from "node:process";

export interface Holder {
  pid: number;
  /** The port inside the namespace that reaches the proxy. */
  port: number;
  /** The namespace's inode: a recycled pid cannot pass for it. */
  inode: number;
  /** Whether it still runs and still holds its namespace. */
  alive(): boolean;
  /** How it ended, once it has ("exit status 1", "signal SIGKILL"). */
  readonly ended?: string;
  /** Closes its stdin and kills its group; resolves once it has exited. */
  end(): Promise<void>;
}

const READY_MS = 10_000;
const STDERR_CHARS = 2000;

/**
 * Starts a holder for `socket` and waits for its `ready PORT INODE PID` line. `forwards` are
 * `PORT=SOCKET`: 127.0.0.1:PORT inside goes to SOCKET (a loopback service, _loopback_forward.ts).
 */
export function startHolder(
  helper: string,
  socket: string,
  forwards: readonly string[] = [],
): Promise<Holder> {
  const child = spawn(helper, ["hold", socket, ...forwards], {
    stdio: ["pipe", "pipe", "pipe"],
    detached: true,
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8");
  child.stderr!.on("data", (text: string) => {
    if (stderr.length < STDERR_CHARS) stderr = (stderr + text).slice(0, STDERR_CHARS);
  });
  let ended: string | undefined;
  const exited = new Promise<void>((resolve) => {
    child.once("exit", (code, signal) => {
      ended = signal ? `signal ${signal}` : `exit status ${code}`;
      resolve();
    });
    child.once("error", (error) => {
      ended = error.message;
      resolve();
    });
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const fail = (why: string) => {
      clearTimeout(timer);
      kill(child);
      const said = stderr.trim().replace(/^toolhost-confine: /, "");
      reject(new Error(`the session's network could not be made: ${said || why}`));
    };
    const timer = setTimeout(() => fail(`no ready line in ${READY_MS / 1000} s`), READY_MS);
    child.stdout!.setEncoding("utf8");
    child.stdout!.on("data", (text: string) => {
      if (out.includes("\n")) return;
      out += text;
      if (!out.includes("\n")) return;
      const ready = out.match(/^ready (\d+) (\d+) (\d+)\n/);
      if (!ready || Number(ready[3]) !== child.pid) {
        return fail(`it said ${JSON.stringify(out.slice(0, 200))}`);
      }
      clearTimeout(timer);
      // It must not keep toolhost's event loop alive; its stdin closing is what ends it.
      child.unref();
      for (const stream of [child.stdin, child.stdout, child.stderr]) {
        (stream as unknown as { unref?: () => void }).unref?.();
      }
      const port = Number(ready[1]);
      const inode = Number(ready[2]);
      const pid = child.pid!;
      resolve({
        pid,
        port,
        inode,
        get ended() {
          return ended;
        },
        alive: () => ended === undefined && namespaceInode(pid) === inode,
        async end() {
          if (ended === undefined) kill(child);
          await exited;
        },
      });
    });
    exited.then(() => fail(ended ?? "it ended"));
  });
}

function kill(child: ChildProcess): void {
  child.stdin?.end();
  try {
    // Its own group (detached): nothing else is in it.
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, "SIGKILL");
  } catch {
    // Already gone.
  }
}

function namespaceInode(pid: number): number | undefined {
  try {
    return statSync(`/proc/${pid}/ns/net`).ino;
  } catch {
    return undefined;
  }
}

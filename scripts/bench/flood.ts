/**
 * A flood of pipelined requests: after initialize, `count` echo calls sit in a file that `cat`
 * writes into the server's stdin as fast as the pipe takes them (this process's own writes would
 * pace the server), while the replies are counted as they come. What it shows is how far the
 * server reads ahead of its answers: its peak RSS (VmHWM from /proc, read before stdin closes).
 */
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ServerCommand } from "./measurements.ts";
import { initializeRequest } from "./server_process.ts";

export interface FloodRun {
  count: number;
  seconds: number;
  peakRssBytes: number;
}

const TIMEOUT_MS = 180_000;

function peakRss(pid: number): number {
  const kb = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  if (!kb) throw new Error(`no VmHWM in /proc/${pid}/status`);
  return Number(kb[1]) * 1024;
}

export async function flood(server: ServerCommand, count: number): Promise<FloodRun> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-bench-flood-"));
  const file = join(dir, "requests.jsonl");
  const lines = [
    JSON.stringify({ jsonrpc: "2.0", ...initializeRequest(0) }),
    '{"jsonrpc":"2.0","method":"notifications/initialized"}',
  ];
  for (let id = 1; id <= count; id++) {
    lines.push(
      `{"jsonrpc":"2.0","id":${id},"method":"tools/call","params":{"name":"echo","arguments":{"text":"hi"}}}`,
    );
  }
  writeFileSync(file, lines.join("\n") + "\n");
  // `exec` makes the server the child itself (its pid is the one measured); cat then goes on
  // reading this process's pipe, so stdin stays open until the run ends.
  const child = spawn(
    "bash",
    ["-c", 'exec "$@" < <(cat "$0" -)', file, server.command, ...server.args],
    { stdio: ["pipe", "pipe", "ignore"] },
  );
  child.stdin!.on("error", () => {});
  const started = performance.now();
  try {
    return await new Promise<FloodRun>((resolve, reject) => {
      let results = 0;
      let partial = "";
      const timer = setTimeout(
        () => reject(new Error(`${server.command}: ${results} of ${count + 1} replies in time`)),
        TIMEOUT_MS,
      );
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`${server.command} exited (code ${code}) after ${results} replies`));
      });
      child.stdout!.setEncoding("utf8");
      child.stdout!.on("data", (text: string) => {
        const got = (partial + text).split("\n");
        partial = got.pop()!;
        for (const line of got) {
          if (!line.includes('"result"')) {
            clearTimeout(timer);
            reject(new Error(`${server.command}: a reply without a result: ${line.slice(0, 200)}`));
            return;
          }
          results++;
        }
        if (results === count + 1) {
          clearTimeout(timer);
          resolve({
            count,
            seconds: (performance.now() - started) / 1000,
            peakRssBytes: peakRss(child.pid!),
          });
        }
      });
    });
  } finally {
    child.stdin!.end();
    child.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  }
}

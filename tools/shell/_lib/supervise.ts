/**
 * Running one started process group to its end for a tool call: output captured in write order
 * and capped, a timeout and cancellation that stop the whole group, progress every second, and
 * the result with its exit status. `bash` and custom command tools share it.
 */
import type { ChildProcess } from "node:child_process";
import type { Readable } from "node:stream";
import { type ToolContext, ToolError, type ToolReturn } from "../../../mcp/tool/mod.ts";
import { HeadTailBuffer } from "./output_cap.ts";
import { groupAlive, terminateGroup } from "../../_lib/processes/mod.ts";
import type { ProcessSandbox } from "../../_lib/confine/mod.ts";
import process from "node:process";

/** How a stopped command was stopped, as the result says it (Windows has no process groups). */
const STOPPED_WHAT = process.platform === "win32" ? "the process tree" : "the process group";
const STOPPED_HOW = process.platform === "win32"
  ? "the process tree was ended (taskkill /T /F)"
  : "the process group was stopped (SIGTERM, then SIGKILL)";

/** Between SIGTERM and SIGKILL when a process group is stopped. */
const KILL_GRACE_MS = 2_000;
/** How long to keep reading after the process exits, for output still in the pipe. */
const DRAIN_MS = 250;

/** The `output` schema of tools whose results come from here. */
export const RUN_FACTS_SCHEMA = {
  type: "object",
  properties: {
    exitCode: { type: ["integer", "null"], description: "null when the process was killed" },
    signal: { type: ["string", "null"] },
    timedOut: { type: "boolean" },
    truncated: { type: "boolean" },
    durationMs: { type: "number" },
  },
  required: ["exitCode", "signal", "timedOut", "truncated", "durationMs"],
  additionalProperties: false,
} as const;

export interface RunFacts {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  truncated: boolean;
  durationMs: number;
}

export interface Started {
  child: ChildProcess;
  /** Where the output arrives: stdout and stderr, or one stream carrying both. */
  streams: Readable[];
}

export interface SuperviseOptions {
  timeoutMs: number;
  outputChars: number;
  /** How to get all of a cut output, for the cut marker. */
  cutHint: string;
  /** The ToolError for a process that could not be started. */
  startError(error: unknown): ToolError;
  /** The sandbox it ran in: a line first when there is none, what it refused after the output. */
  sandbox: Pick<ProcessSandbox, "header" | "explain" | "failedStart">;
  /** The directory it ran in, for the relative paths its refusals name. */
  cwd: string;
}

export async function supervise(
  start: () => Started,
  options: SuperviseOptions,
  ctx: ToolContext,
): Promise<ToolReturn<RunFacts>> {
  if (ctx.signal.aborted) throw new ToolError("not started: the call was stopped first");
  const started = performance.now();
  const output = new HeadTailBuffer(options.outputChars);
  const { child, streams } = start();
  const pgid = child.pid;

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (done, fail) => {
      child.once("error", fail);
      child.once("exit", (code, signal) => done({ code, signal }));
    },
  );
  const streamsClosed = Promise.all(streams.map((stream) => {
    const decoder = new TextDecoder();
    stream.on("error", () => {}); // a reset stream ends the output; the exit says what happened
    stream.on("data", (chunk: Uint8Array) => output.push(decoder.decode(chunk, { stream: true })));
    return new Promise<void>((done) =>
      stream.once("close", () => {
        output.push(decoder.decode());
        done();
      })
    );
  }));

  let stopping: Promise<void> | undefined;
  let timedOut = false;
  const stop = () => {
    if (pgid !== undefined) stopping ??= terminateGroup(pgid, KILL_GRACE_MS);
  };
  const timer = setTimeout(() => {
    timedOut = true;
    stop();
  }, options.timeoutMs);
  const stopListening = ctx.onAbort(stop);
  const ticker = setInterval(() => {
    const seconds = Math.round((performance.now() - started) / 1000);
    ctx.progress(
      seconds,
      undefined,
      `running for ${seconds}s, ${output.totalChars} characters of output`,
    );
  }, 1000);

  let status: { code: number | null; signal: NodeJS.Signals | null };
  let heldOpen = false;
  try {
    status = await exited;
    // Output may still be in the pipe; a background process may also hold it open forever.
    heldOpen = await Promise.race([
      streamsClosed.then(() => false),
      new Promise<boolean>((done) => setTimeout(() => done(true), DRAIN_MS)),
    ]);
    if (heldOpen) { for (const stream of streams) stream.destroy(); }
  } catch (error) {
    for (const stream of streams) stream.destroy();
    throw options.startError(error);
  } finally {
    clearTimeout(timer);
    clearInterval(ticker);
    stopListening();
  }
  if (stopping) await stopping;
  const durationMs = Math.round(performance.now() - started);

  const notes: string[] = [];
  const reason = ctx.abortReason();
  if (timedOut) {
    notes.push(
      `Timed out after ${options.timeoutMs} ms: ${STOPPED_HOW}.`,
    );
  } else if (reason) {
    notes.push(
      reason === "cancelled"
        ? `Cancelled: ${STOPPED_WHAT} was stopped.`
        : "Stopped: the server is shutting down.",
    );
  }
  if (heldOpen && pgid !== undefined && groupAlive(pgid)) {
    notes.push(
      "Processes started in the background still hold the output open; they keep running, and their later output is not captured.",
    );
  }
  notes.push(
    status.code !== null
      ? `[exit code ${status.code} · ${durationMs} ms]`
      : `[killed by ${status.signal} · ${durationMs} ms]`,
  );
  const text = output.totalChars === 0
    ? "(no output)"
    : output.text(options.cutHint).replace(/\n$/, "");
  // The sandbox's helper could not exec the program (or set itself up): a failed start.
  const failed = options.sandbox.failedStart(text, status.code);
  if (failed?.code === "ESANDBOX") {
    throw new ToolError(`not started: the sandbox could not be set up here: ${failed.message}`);
  }
  if (failed) throw options.startError(failed);
  // What the sandbox refused goes before the exit line, where a reader of the failure looks.
  const refused = options.sandbox.explain(text, options.cwd);
  notes.splice(notes.length - 1, 0, ...refused);
  const header = options.sandbox.header ? `${options.sandbox.header}\n` : "";
  return {
    content: `${header}${text}\n\n${notes.join("\n")}`,
    structured: {
      exitCode: status.code,
      signal: status.signal,
      timedOut,
      truncated: output.truncated,
      durationMs,
    },
    isError: timedOut || status.code !== 0,
  };
}

import { defineTool, ToolError } from "../mcp/tool.ts";
import { CWD_PROPERTY, workingDirectory } from "./_lib/directory.ts";
import { HeadTailBuffer } from "./_lib/output_cap.ts";
import { groupAlive, terminateGroup } from "./_lib/process_groups.ts";
import { commandEnv } from "./_lib/login_env.ts";
import { findShell, spawnShell } from "./_lib/shell.ts";
import { RUNS_COMMANDS } from "./_lib/annotations.ts";
import { settings } from "./_lib/settings.ts";

/** Between SIGTERM and SIGKILL when a command is stopped. */
const KILL_GRACE_MS = 2_000;
/** How long to keep reading after the shell exits, for output still in the pipe. */
const DRAIN_MS = 250;

export default defineTool({
  name: "bash",
  title: "Run a shell command",
  description:
    "Runs a command with bash (sh where bash is absent) and returns its output: stdout and stderr " +
    "interleaved as written, then the exit code. The command runs in its own process group in " +
    "the server's working directory (or `cwd`), with stdin closed, so anything that waits for " +
    "input gets end-of-file at once instead of hanging. Output over 30,000 characters keeps " +
    "the beginning and the end with a marker saying how much was cut; for more, redirect to a " +
    "file and read it in parts. A non-zero exit or a timeout makes the result an error. " +
    "Timeout or cancel stops the whole process group (SIGTERM, then SIGKILL after 2 s) and " +
    "keeps the output so far. Start servers, watchers and other long-running commands with " +
    "bash_background instead of waiting on them here.",
  annotations: RUNS_COMMANDS,
  input: {
    type: "object",
    properties: {
      command: { type: "string", minLength: 1, description: "The command line to run." },
      timeout_ms: {
        type: "integer",
        minimum: 1,
        description: "Stop the command after this many milliseconds (default 120,000 unless " +
          "the user configured another; longer than the configured maximum, 600,000 by " +
          "default, is cut to it).",
      },
      cwd: CWD_PROPERTY,
      description: {
        type: "string",
        description: "A few words on what the command does, shown to the person watching.",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      exitCode: { type: ["integer", "null"], description: "null when the command was killed" },
      signal: { type: ["string", "null"], description: "the signal that ended it, if any" },
      timedOut: { type: "boolean" },
      truncated: { type: "boolean", description: "whether output was cut from the middle" },
      durationMs: { type: "number" },
    },
    required: ["exitCode", "signal", "timedOut", "truncated", "durationMs"],
    additionalProperties: false,
  },

  async run(args, ctx) {
    const { bashTimeoutMs, bashMaxTimeoutMs, outputChars } = settings.limits;
    const timeoutMs = Math.min(args.timeout_ms ?? bashTimeoutMs, bashMaxTimeoutMs);
    const cwd = await workingDirectory(args.cwd);
    if (args.description) ctx.log("info", `running: ${args.description}`);

    if (ctx.signal.aborted) throw new ToolError("not started: the call was stopped first");
    const started = performance.now();
    const output = new HeadTailBuffer(outputChars);
    const child = spawnShell(args.command, cwd, "ignore", await commandEnv());
    const pgid = child.pid;

    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
      (done, fail) => {
        child.once("error", fail);
        child.once("exit", (code, signal) => done({ code, signal }));
      },
    );
    const streamsClosed = Promise.all([child.stdout, child.stderr].map((stream) => {
      const decoder = new TextDecoder();
      stream!.on(
        "data",
        (chunk: Uint8Array) => output.push(decoder.decode(chunk, { stream: true })),
      );
      return new Promise<void>((done) =>
        stream!.once("close", () => {
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
    }, timeoutMs);
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
      if (heldOpen) {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
    } catch (error) {
      throw new ToolError(`could not start ${findShell()}: ${(error as Error).message}`);
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
        `Timed out after ${timeoutMs} ms: the process group was stopped (SIGTERM, then SIGKILL).`,
      );
    } else if (reason) {
      notes.push(
        reason === "cancelled"
          ? "Cancelled: the process group was stopped."
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
      : output.text("to see all of it, redirect the output to a file and read the file in parts")
        .replace(/\n$/, "");
    return {
      content: `${text}\n\n${notes.join("\n")}`,
      structured: {
        exitCode: status.code,
        signal: status.signal,
        timedOut,
        truncated: output.truncated,
        durationMs,
      },
      isError: timedOut || status.code !== 0,
    };
  },
});

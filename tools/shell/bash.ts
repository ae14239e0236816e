import process from "node:process";
import {
  defineTool,
  type PrepareEnvironment,
  type ToolContext,
  ToolError,
} from "../../mcp/tool/mod.ts";
import { bounded } from "../../config/quote.ts";
import { CWD_PROPERTY, workingDirectory } from "./_lib/directory.ts";
import { commandEnv } from "./_lib/login_env.ts";
import { COMMAND_PROPERTY, findShell, spawnShell, windowsShellNote } from "./_lib/shell.ts";
import { runOwner } from "./_lib/session_runs.ts";
import { RUNS_COMMANDS } from "../_lib/declarations/annotations.ts";
import { RUN_FACTS_SCHEMA, supervise } from "./_lib/supervise.ts";
import { sandboxFor } from "../_lib/confine/mod.ts";

export default defineTool({
  name: "bash",
  title: "Run a shell command",
  description: (offers) =>
    "Runs a command with bash (sh where bash is absent) in its own process group, in the " +
    "server's working directory (or `cwd`), with stdin closed (a read gets end-of-file, never " +
    "hangs), and returns stdout and stderr interleaved, then the exit code. Output over 30,000 " +
    "characters keeps its beginning and end with a marker; for more, redirect to a file and " +
    "read it in parts. A non-zero exit or a timeout makes the result an error; a timeout or " +
    "cancel stops the whole process group (SIGTERM, then SIGKILL after 2 s), keeping the " +
    "output so far." +
    (offers("bash_background")
      ? " Start servers, watchers and other long-running commands with bash_background instead."
      : ""),
  // Windows: the description names the user's shell (on Linux the static one stands).
  ...(process.platform === "win32"
    ? {
      prepare: (env: PrepareEnvironment) =>
        Promise.resolve({
          description: `Runs a command line. ${windowsShellNote(env.config.shell)} It runs in ` +
            "the server's working directory (or `cwd`) with stdin closed, and returns stdout " +
            "and stderr, then the exit code. Output over 30,000 characters keeps its beginning " +
            "and end with a marker. A non-zero exit or a timeout makes the result an error; a " +
            "timeout or cancel ends the whole process tree (taskkill /T /F), keeping the output " +
            "so far. Start servers, watchers and other long-running commands with " +
            "bash_background instead.",
        }),
    }
    : {}),
  annotations: RUNS_COMMANDS,
  // What it changes in the roots is journaled (the roots compared before and after): undoable.
  writes: { untracked: "whatever the command writes", observed: true },
  // A long build or test run may go on as a task the client polls.
  taskSupport: "optional",
  input: {
    type: "object",
    properties: {
      command: COMMAND_PROPERTY,
      timeout_ms: {
        type: "integer",
        minimum: 1,
        description: "Stop the command after this many ms (default 120,000 unless configured; " +
          "cut to the configured maximum, 600,000 by default).",
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
  output: RUN_FACTS_SCHEMA,

  run: runBash,
});

/** What the model asked bash for. */
interface BashArgs {
  command: string;
  timeout_ms?: number;
  cwd?: string;
  description?: string;
}

/** Runs a command in the shell, confined by the sandbox, and returns its output once it ends. */
async function runBash(args: BashArgs, ctx: ToolContext) {
  const { bashTimeoutMs, bashMaxTimeoutMs, outputChars } = ctx.config.limits;
  const timeoutMs = Math.min(args.timeout_ms ?? bashTimeoutMs, bashMaxTimeoutMs);
  const cwd = await workingDirectory(args.cwd, ctx.config.roots);
  if (args.description) ctx.log("info", `running: ${bounded(args.description, 200)}`);

  const env = await commandEnv(ctx).catch(() => undefined);
  if (!env) throw new ToolError("not started: the call was stopped first");
  const shell = ctx.config.shell;
  const sandbox = await sandboxFor(ctx, "command", { what: bounded(args.command, 300) });
  const { confinement } = sandbox;
  return await supervise(() => {
    const owner = runOwner(ctx);
    const child = spawnShell(args.command, { cwd, env, shell, confinement, owner }, "ignore");
    return { child, streams: [child.stdout!, child.stderr!] };
  }, {
    sandbox,
    cwd,
    timeoutMs,
    outputChars,
    cutHint: "to see all of it, redirect the output to a file and read the file in parts",
    startError: (error) =>
      new ToolError(`could not start ${findShell(shell)}: ${(error as Error).message}`),
  }, ctx);
}

import process from "node:process";
import {
  defineTool,
  type Offers,
  type PrepareEnvironment,
  type ToolContext,
  ToolError,
} from "../../mcp/tool/mod.ts";
import { bounded } from "../../config/quote.ts";
import { commandEnv } from "./_lib/login_env.ts";
import { FACTS_PROPERTIES, FACTS_REQUIRED, processesOf } from "./_lib/background.ts";
import { runOwner } from "./_lib/session_runs.ts";
import { CWD_PROPERTY, workingDirectory } from "./_lib/directory.ts";
import { COMMAND_PROPERTY, windowsShellNote } from "./_lib/shell.ts";
import { RUNS_COMMANDS } from "../_lib/declarations/annotations.ts";
import { continuesUntil } from "../_lib/observed_command.ts";
import { sandboxFor } from "../_lib/confine/mod.ts";

const GRACE_MS = 500;

/** How to reach a started process, with the tools offered beside this one. */
function companions(offers: Offers): string {
  const ways = [
    ["bash_output", "read its output with bash_output"],
    ["bash_input", "type into its stdin with bash_input"],
    ["bash_list", "see all of them with bash_list"],
    ["bash_kill", "stop it with bash_kill"],
  ].filter(([name]) => offers(name)).map(([, text]) => text);
  return ways.length ? `: ${ways.join(", ")}` : "";
}

export default defineTool({
  name: "bash_background",
  title: "Start a background command",
  description: (offers) =>
    "Starts a long-running command (dev server, watcher, long build, REPL) with bash in its own " +
    "process group and returns at once with its id (p1, p2, ...), its pid and whatever it printed " +
    `in the first ${GRACE_MS} ms. It keeps running while you work${companions(offers)}. ` +
    "Each keeps the last 10 MB of its output (stdout and stderr interleaved). " +
    "It belongs to this session: everything it started is killed when the session ends or the " +
    "server exits, unless `outlive_server` is true.",
  // Windows: the description names the user's shell (on Linux the static one stands).
  ...(process.platform === "win32"
    ? {
      prepare: (env: PrepareEnvironment) =>
        Promise.resolve({
          description: "Starts a long-running command (dev server, watcher, long build, REPL) " +
            `and returns at once with its id (p1, p2, ...), its pid and its first output. ${
              windowsShellNote(env.config.shell)
            } Read its output with bash_output, type into its stdin with bash_input, see all ` +
            "of them with bash_list, stop it (its whole process tree) with bash_kill. " +
            "Everything it started is ended when the server exits, unless `outlive_server` is true.",
        }),
    }
    : {}),
  annotations: RUNS_COMMANDS,
  // Journaled like bash's, when the command ends (or is killed, or the server stops).
  writes: { untracked: "whatever the command writes", observed: true },
  input: {
    type: "object",
    properties: {
      command: COMMAND_PROPERTY,
      cwd: CWD_PROPERTY,
      name: { type: "string", maxLength: 80, description: "A label to recognise it by." },
      grace_ms: {
        type: "integer",
        minimum: 0,
        maximum: 10_000,
        description: `How long to collect its first output before returning (default ${GRACE_MS}).`,
      },
      outlive_server: {
        type: "boolean",
        description: "Keep it running after the server exits, only when the user asks for that " +
          "(redirect its output to a file: the pipe to the server closes with it).",
      },
    },
    required: ["command"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      ...FACTS_PROPERTIES,
      output: { type: "string", description: "its first output, counted as read" },
      nextOffset: { type: "integer" },
      more: { type: "boolean" },
    },
    required: [...FACTS_REQUIRED, "output", "nextOffset", "more"],
    additionalProperties: false,
  },

  run: startBackground,
});

/** What the model asked bash_background for. */
interface BashBackgroundArgs {
  command: string;
  cwd?: string;
  name?: string;
  grace_ms?: number;
  outlive_server?: boolean;
}

/** Starts a command in the background and returns what it printed in its first moments. */
async function startBackground(args: BashBackgroundArgs, ctx: ToolContext) {
  const cwd = await workingDirectory(args.cwd, ctx.config.roots);
  const env = await commandEnv(ctx).catch(() => undefined);
  if (!env) throw new ToolError("not started: the call was stopped first");
  const sandbox = await sandboxFor(ctx, "command", { what: bounded(args.command, 300) });
  const proc = processesOf(ctx).start(args.command, cwd, {
    confinement: sandbox.confinement,
    name: args.name,
    env,
    shell: ctx.config.shell,
    outliveServer: args.outlive_server,
    owner: runOwner(ctx),
  });
  continuesUntil(ctx, proc.ended.then(() => proc.outcome()), proc.id);
  await proc.waitForEnd(args.grace_ms ?? GRACE_MS, ctx.signal);
  const read = proc.output.read(0, ctx.config.limits.outputChars);
  proc.readCursor = read.nextOffset;
  const pending = read.nextOffset < proc.output.end;
  const more = pending
    ? `\n[more output follows: bash_output with id ${proc.id} and offset ${read.nextOffset}]`
    : "";
  const failed = proc.status !== "running" && proc.exitCode !== 0;
  const header = sandbox.header ? `${sandbox.header}\n` : "";
  const refused = sandbox.explain(read.text, cwd).map((line) => `${line}\n`).join("");
  return {
    content: `${header}Started ${proc.summary()}\n\n${read.text || "(no output yet)"}${more}\n\n` +
      refused +
      (proc.status === "running"
        ? `[read more with bash_output id ${proc.id}; stop it with bash_kill]`
        : `[it has already ended: ${proc.describeStatus()}]`),
    // The output is counted as read, so a client that reads only structuredContent must find
    // it here too.
    structured: {
      ...proc.facts(),
      output: read.text,
      nextOffset: read.nextOffset,
      more: pending,
    },
    isError: failed,
  };
}

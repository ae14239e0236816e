import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { FACTS_SCHEMA, ID_PROPERTY, processesOf } from "./_lib/background.ts";
import { runAlive } from "../_lib/processes/mod.ts";
import { STOPS_PROCESSES } from "../_lib/declarations/annotations.ts";

const GRACE_MS = 2_000;

export default defineTool({
  name: "bash_kill",
  needs: ["bash_background"],
  title: "Stop a background command",
  description:
    "Stops a process started with bash_background: sends `signal` to its whole process group, " +
    `grandchildren included, and SIGKILL after ${GRACE_MS / 1000} s if anything is still alive. ` +
    "Its output stays readable with bash_output.",
  annotations: STOPS_PROCESSES,
  writes: { untracked: "stops processes" },
  input: {
    type: "object",
    properties: {
      id: ID_PROPERTY,
      signal: {
        enum: ["SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGKILL"],
        description: "The first signal to send (default SIGTERM).",
      },
    },
    required: ["id"],
    additionalProperties: false,
  },
  output: FACTS_SCHEMA,

  run: killProcess,
});

/** What the model asked bash_kill for. */
interface BashKillArgs {
  id: string;
  signal?: "SIGTERM" | "SIGINT" | "SIGHUP" | "SIGQUIT" | "SIGKILL";
}

/** Stops a background process with the signal and says how it ended. */
async function killProcess(args: BashKillArgs, ctx: ToolContext) {
  const proc = processesOf(ctx).get(args.id);
  // The shell may have ended while processes it started live on, in its group or not.
  if (proc.status !== "running" && !runAlive(proc.pid)) {
    throw new ToolError(`${proc.id} has already ${proc.describeStatus()}`);
  }
  await proc.stop(args.signal ?? "SIGTERM", GRACE_MS);
  await proc.waitForEnd(1000, ctx.signal);
  const unread = proc.output.end - proc.readCursor;
  return {
    content: `Stopped ${proc.summary()}` +
      (unread > 0
        ? `\n[${unread} characters of output not read yet: bash_output id ${proc.id}]`
        : ""),
    structured: proc.facts(),
  };
}

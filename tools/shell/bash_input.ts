import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { FACTS_PROPERTIES, FACTS_REQUIRED, ID_PROPERTY, processesOf } from "./_lib/background.ts";
import { RUNS_COMMANDS } from "../_lib/declarations/annotations.ts";

const DEFAULT_WAIT_MS = 500;

export default defineTool({
  name: "bash_input",
  needs: ["bash_background"],
  title: "Type into a background command",
  description:
    "Writes `text` to the stdin of a bash_background process (a REPL, a prompt) and returns the " +
    "output not read yet, after waiting up to `wait_ms`.",
  annotations: RUNS_COMMANDS,
  // What it sends a running command may make it write anything.
  writes: { untracked: "whatever the command writes once it reads the input" },
  input: {
    type: "object",
    properties: {
      id: ID_PROPERTY,
      text: { type: "string" },
      newline: { type: "boolean", description: "Add a newline after text." },
      close_stdin: { type: "boolean", description: "Close stdin after writing (end-of-file)." },
      wait_ms: {
        type: "integer",
        minimum: 0,
        maximum: 60_000,
        description: `Wait up to this long for output after writing (default ${DEFAULT_WAIT_MS}).`,
      },
    },
    required: ["id"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      ...FACTS_PROPERTIES,
      nextOffset: { type: "integer" },
    },
    required: [...FACTS_REQUIRED, "nextOffset"],
    additionalProperties: false,
  },

  run: sendInput,
});

/** What the model asked bash_input for. */
interface BashInputArgs {
  id: string;
  text?: string;
  newline?: boolean;
  close_stdin?: boolean;
  wait_ms?: number;
}

/** Writes to a background process's stdin (or closes it) and returns the output that follows. */
async function sendInput(args: BashInputArgs, ctx: ToolContext) {
  const proc = processesOf(ctx).get(args.id);
  const text = (args.text ?? "") + (args.newline ? "\n" : "");
  if (text === "" && !args.close_stdin) {
    throw new ToolError("nothing to do: give text, newline: true, or close_stdin: true");
  }
  const before = proc.output.end;
  if (text !== "") await proc.write(text);
  if (args.close_stdin) proc.closeStdin();
  await proc.waitForOutput(before, args.wait_ms ?? DEFAULT_WAIT_MS, ctx.signal);
  const read = proc.output.read(proc.readCursor, ctx.config.limits.outputChars);
  proc.readCursor = read.nextOffset;
  const notes = [`[${proc.summary()}]`];
  if (read.nextOffset < proc.output.end) {
    notes.push(`[more output is waiting: bash_output with id ${proc.id}]`);
  }
  return {
    content: `${read.text || "(no output yet)"}\n\n${notes.join("\n")}`,
    structured: { ...proc.facts(), nextOffset: read.nextOffset },
  };
}

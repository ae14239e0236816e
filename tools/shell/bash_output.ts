import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { bounded } from "../../config/quote.ts";
import { FACTS_PROPERTIES, FACTS_REQUIRED, ID_PROPERTY, processesOf } from "./_lib/background.ts";
import { READS_LIVE_OUTPUT } from "../_lib/declarations/annotations.ts";

const DEFAULT_MAX_CHARS = 30_000;

export default defineTool({
  name: "bash_output",
  needs: ["bash_background"],
  title: "Read a background command's output",
  description:
    "Returns output of a bash_background process: by default all not read yet. `wait_ms` waits " +
    "for new output or the end; `filter` keeps matching lines. The result gives the next offset, " +
    "the status, and says when output was dropped from the 10 MB window or more is waiting.",
  annotations: READS_LIVE_OUTPUT,
  input: {
    type: "object",
    properties: {
      id: ID_PROPERTY,
      offset: {
        type: "integer",
        minimum: 0,
        description: "Absolute character offset to read from (default: where the last read ended).",
      },
      max_chars: {
        type: "integer",
        minimum: 1,
        maximum: 1_000_000,
        description: `Characters to return at most (default ${DEFAULT_MAX_CHARS}).`,
      },
      filter: { type: "string", description: "Regular expression: return only matching lines." },
      wait_ms: {
        type: "integer",
        minimum: 0,
        maximum: 60_000,
        description: "Wait up to this long for new output or the process's end (default 0).",
      },
    },
    required: ["id"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      ...FACTS_PROPERTIES,
      offset: { type: "integer", description: "where the returned text starts" },
      nextOffset: { type: "integer" },
      dropped: { type: "integer", description: "characters no longer kept" },
      more: { type: "boolean" },
    },
    required: [...FACTS_REQUIRED, "offset", "nextOffset", "dropped", "more"],
    additionalProperties: false,
  },

  run: readOutput,
});

/** What the model asked bash_output for. */
interface BashOutputArgs {
  id: string;
  offset?: number;
  max_chars?: number;
  filter?: string;
  wait_ms?: number;
}

/** A background process's output from the offset, filtered if asked, waiting a while for more. */
async function readOutput(args: BashOutputArgs, ctx: ToolContext) {
  const proc = processesOf(ctx).get(args.id);
  let filter: RegExp | undefined;
  if (args.filter !== undefined) {
    try {
      filter = new RegExp(args.filter);
    } catch (error) {
      throw new ToolError(
        `filter is not a valid regular expression: ${bounded((error as Error).message, 300)}`,
      );
    }
  }
  const from = args.offset ?? proc.readCursor;
  await proc.waitForOutput(from, args.wait_ms ?? 0, ctx.signal);
  const read = proc.output.read(from, args.max_chars ?? ctx.config.limits.outputChars);
  let text = read.text;
  let next = read.nextOffset;
  if (filter) {
    // Only whole lines are matched; a line still being written is left for the next read.
    const lastNewline = text.lastIndexOf("\n");
    if (next === proc.output.end && proc.status === "running" && lastNewline >= 0) {
      next -= text.length - lastNewline - 1;
      text = text.slice(0, lastNewline + 1);
    }
    const lines = text.split("\n").filter((line, i, all) => i < all.length - 1 || line !== "");
    const kept = lines.filter((line) => filter.test(line));
    text = kept.length ? kept.join("\n") + "\n" : "";
    text += `[${kept.length} of ${lines.length} lines matched /${bounded(args.filter!, 200)}/]`;
  }
  proc.readCursor = Math.max(proc.readCursor, next);
  const more = next < proc.output.end;
  const start = read.offset;
  const range = next > start ? `characters ${start}–${next}` : `nothing new at ${next}`;
  const notes = [`[${proc.summary()} · ${range} of ${proc.output.end}]`];
  if (read.dropped > 0) {
    notes.push(
      `[${read.dropped} characters before offset ${start} were dropped from the 10 MB window]`,
    );
  }
  if (more) notes.push(`[more output is waiting: call again with offset ${next}]`);
  return {
    content: `${text || "(no new output)"}\n\n${notes.join("\n")}`,
    structured: {
      ...proc.facts(),
      offset: start,
      nextOffset: next,
      dropped: read.dropped,
      more,
    },
  };
}

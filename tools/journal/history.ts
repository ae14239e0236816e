import { defineShutdownHook } from "../../mcp/features/mod.ts";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { flushJournal, journalHook } from "./_lib/recorder.ts";
import { type Filter, pageNotes, projectPage } from "./_lib/query.ts";
import { REVIEW_URI } from "./_lib/review.ts";
import { parseWhen, WHEN_FORMS } from "./_lib/when.ts";
import { viewerOf } from "./_lib/session.ts";
import { observedShutdown } from "./_lib/observed/mod.ts";

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 200;

const WHEN = 'an ISO time, "today", "yesterday", or back from now ("2h", "3 days").';

const history = defineTool({
  name: "history",
  title: "List recent tool calls",
  description: (offers) =>
    "This project's tool calls, newest first, from every toolhost on it and across restarts: " +
    "time, session, tool, outcome, files changed" +
    (offers("undo") ? ", and the id undo takes." : ", and whether it can be undone."),
  annotations: READ_ONLY,
  ui: { resourceUri: REVIEW_URI },
  input: {
    type: "object",
    properties: {
      tool: { type: "string", maxLength: 128, description: "Only calls of this tool." },
      path: {
        type: "string",
        maxLength: 4096,
        description: "Only calls whose files or arguments contain this text.",
      },
      since: { type: "string", maxLength: 64, description: `From then on: ${WHEN}` },
      until: { type: "string", maxLength: 64, description: "Up to then, the same forms." },
      limit: {
        type: "integer",
        minimum: 1,
        maximum: MAX_LIMIT,
        description: `Calls per page (default ${DEFAULT_LIMIT}).`,
      },
      offset: { type: "integer", minimum: 0, description: "Calls to skip, newest first." },
    },
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      calls: {
        type: "array",
        items: {
          type: "object",
          properties: {
            id: { type: "string" },
            time: { type: "string" },
            session: { type: "string" },
            tool: { type: "string" },
            outcome: { type: "string", description: "ok, error or cancelled" },
            files: { type: "array", items: { type: "string" } },
            moreFiles: { type: "integer" },
            undoable: { type: "boolean" },
            noUndo: { type: "string" },
            undid: { type: "array", items: { type: "string" } },
          },
          required: ["id", "time", "session", "tool", "outcome", "files", "undoable"],
        },
      },
      matched: { type: "integer", description: "calls the filters match in all" },
    },
    required: ["calls", "matched"],
  },

  run: listHistory,
});

/** What the model asked history for. */
interface HistoryArgs {
  tool?: string;
  path?: string;
  since?: string;
  until?: string;
  limit?: number;
  offset?: number;
}

/** Lists the journaled calls the filters match, newest first, a page at a time. */
async function listHistory(args: HistoryArgs, ctx: ToolContext) {
  if (!ctx.config.journal.enabled) {
    throw new ToolError("the journal is off (journal.enabled in the configuration)");
  }
  const now = new Date();
  const filter: Filter = { tool: args.tool, path: args.path };
  for (const key of ["since", "until"] as const) {
    if (args[key] === undefined) continue;
    filter[key] = parseWhen(args[key], now);
    if (filter[key] === undefined) {
      throw new ToolError(
        `${key}: ${
          JSON.stringify(args[key])
        } is not a time history understands; give ${WHEN_FORMS}.`,
      );
    }
  }
  const sandbox = await Sandbox.of(ctx);
  const offset = args.offset ?? 0;
  const limit = args.limit ?? DEFAULT_LIMIT;
  const page = await projectPage(ctx.state.dir, sandbox, viewerOf(ctx), filter, offset, limit);
  const structured = { calls: page.rows, matched: page.matched };
  if (page.lines.length === 0) {
    const content = `No recorded calls${page.matched ? " on this page" : ""}${
      args.since || args.until ? " in that time" : ""
    }.${pageNotes(page, offset)}`;
    return { content, structured };
  }
  return { content: page.lines.join("\n") + pageNotes(page, offset), structured };
}

/** The journal's queued lines are written out on an orderly stop (a crash would lose them). */
const journalFlush = defineShutdownHook({ name: "journal flush", run: (ms) => flushJournal(ms) });

export default [history, journalHook, journalFlush, observedShutdown];

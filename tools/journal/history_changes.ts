/**
 * history_changes: the review app's data (MCP Apps, visibility "app"): listed and callable only
 * for clients that render apps, whose hosts keep it from the model.
 */
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { journalRevision, REVIEW_URI, reviewPage } from "./_lib/review.ts";
import { viewerOf } from "./_lib/session.ts";

export default defineTool({
  name: "history_changes",
  title: "Changes for the review app",
  description: "For the review app: calls newest first, their changes as diffs.",
  annotations: READ_ONLY,
  ui: { resourceUri: REVIEW_URI, visibility: ["app"] },
  input: {
    type: "object",
    properties: {
      tool: { type: "string", maxLength: 128, description: "Only this tool's calls." },
      path: { type: "string", maxLength: 4096, description: "Only calls naming this text." },
      all: { type: "boolean", description: "Also calls that changed nothing." },
      limit: { type: "integer", minimum: 1, maximum: 50, description: "Default 20." },
      offset: { type: "integer", minimum: 0, description: "Calls to skip." },
      unless: {
        type: "string",
        maxLength: 100,
        description: "Nothing is read while the journal is at this revision.",
      },
    },
    additionalProperties: false,
  },
  // Each call: id, time, tool, outcome, session, paths, excerpt, args, undoable, changes (path,
  // kind, from, hunks, added, removed or note), and undid/undoneBy/noUndo where they apply
  // (_lib/review.ts).
  output: {
    type: "object",
    properties: {
      calls: { type: "array", items: { type: "object" } },
      matched: { type: "integer" },
      tools: { type: "array", items: { type: "string" } },
      notes: { type: "string" },
      revision: { type: "string" },
      unchanged: { type: "boolean" },
    },
    required: ["calls", "matched", "tools", "notes", "revision"],
  },
  run: historyChanges,
});

/** What the model asked history_changes for. */
interface HistoryChangesArgs {
  tool?: string;
  path?: string;
  all?: boolean;
  limit?: number;
  offset?: number;
  unless?: string;
}

/** Gives the review app a page of journaled calls with their changes, or says nothing is new. */
async function historyChanges(args: HistoryChangesArgs, ctx: ToolContext) {
  if (!ctx.config.journal.enabled) {
    throw new ToolError("the journal is off (journal.enabled in the configuration)");
  }
  const sandbox = await Sandbox.of(ctx);
  // An open page asks every few seconds: while nothing landed, it costs one stat.
  if (args.unless !== undefined) {
    const revision = await journalRevision(ctx.state.dir, sandbox);
    if (revision === args.unless) {
      return {
        content: "Nothing new since that revision.",
        structured: { calls: [], matched: 0, tools: [], notes: "", revision, unchanged: true },
      };
    }
  }
  const page = await reviewPage(
    ctx.state.dir,
    sandbox,
    viewerOf(ctx),
    { tool: args.tool || undefined, path: args.path || undefined, all: args.all },
    args.offset ?? 0,
    args.limit ?? 20,
  );
  const changed = page.calls.reduce((sum, call) => sum + call.changes.length, 0);
  return {
    content: `${page.calls.length} of ${page.matched} calls, ${changed} changes shown` +
      (page.notes ? ` ${page.notes}` : "") + " (the review app reads structuredContent).",
    structured: page,
  };
}

/**
 * history_changes: the review app's data (MCP Apps, visibility "app"): listed and callable only
 * for clients that render apps, whose hosts keep it from the model.
 */
import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { REVIEW_URI, reviewPage } from "./_lib/review.ts";

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
    },
    additionalProperties: false,
  },
  // Each call: id, time, tool, outcome, session, args, undoable, changes (path, kind, hunks or
  // note), and undid/undoneBy/noUndo where they apply (_lib/review.ts).
  output: {
    type: "object",
    properties: {
      calls: { type: "array", items: { type: "object" } },
      matched: { type: "integer" },
      tools: { type: "array", items: { type: "string" } },
      notes: { type: "string" },
    },
    required: ["calls", "matched", "tools", "notes"],
  },
  async run(args, ctx) {
    if (!ctx.config.journal.enabled) {
      throw new ToolError("the journal is off (journal.enabled in the configuration)");
    }
    const sandbox = await Sandbox.of(ctx);
    const page = await reviewPage(
      ctx.state.dir,
      sandbox,
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
  },
});

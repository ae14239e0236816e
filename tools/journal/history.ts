import { defineShutdownHook } from "../../mcp/features/mod.ts";
import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { flushJournal, journalHook } from "./_lib/recorder.ts";
import { pageNotes, projectPage } from "./_lib/query.ts";
import { REVIEW_URI } from "./_lib/review.ts";
import { viewerOf } from "./_lib/session.ts";
import { observedShutdown } from "./_lib/observed/mod.ts";

const history = defineTool({
  name: "history",
  description: "Tool calls made, newest first: outcome, changed files, ids for undo.",
  annotations: READ_ONLY,
  ui: { resourceUri: REVIEW_URI },
  input: {
    type: "object",
    properties: {
      tool: { type: "string" },
      path: { type: "string" },
      since: { type: "string" },
      limit: { type: "integer" },
      offset: { type: "integer" },
    },
  },

  async run(args, ctx) {
    if (!ctx.config.journal.enabled) {
      throw new ToolError("the journal is off (journal.enabled in the configuration)");
    }
    const sandbox = await Sandbox.of(ctx);
    const offset = Math.max(0, args.offset ?? 0);
    const limit = Math.max(1, Math.min(args.limit ?? 20, 200));
    const page = await projectPage(ctx.state.dir, sandbox, viewerOf(ctx), args, offset, limit);
    if (page.lines.length === 0) {
      return `No recorded calls${page.matched ? " on this page" : ""}.${pageNotes(page, offset)}`;
    }
    return page.lines.join("\n") + pageNotes(page, offset);
  },
});

/** The journal's queued lines are written out on an orderly stop (a crash would lose them). */
const journalFlush = defineShutdownHook({ name: "journal flush", run: (ms) => flushJournal(ms) });

export default [history, journalHook, journalFlush, observedShutdown];

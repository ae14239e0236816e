/** toolhost://history: the journal's most recent calls for this project, newest first. */
import { defineResource } from "../../mcp/features/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { pageNotes, projectPage } from "./_lib/query.ts";
import { viewerOf } from "./_lib/session.ts";

export default defineResource({
  uri: "toolhost://history",
  name: "history",
  title: "Tool call history",
  description: "This project's 50 most recent tool calls, newest first.",
  mimeType: "text/plain",
  requires: "history",
  async read(ctx) {
    const sandbox = await Sandbox.of(ctx);
    const page = await projectPage(ctx.state.dir, sandbox, viewerOf(ctx), {}, 0, 50);
    return page.lines.join("\n") + pageNotes(page, 0) + "\n";
  },
});

/** toolhost://history: the journal's most recent calls for this project, newest first. */
import { defineResource } from "../../mcp/resource.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { describe, projectEntries } from "./_lib/query.ts";

export default defineResource({
  uri: "toolhost://history",
  name: "history",
  title: "Tool call history",
  description: "This project's 50 most recent tool calls, newest first.",
  mimeType: "text/plain",
  requires: "history",
  async read(ctx) {
    const sandbox = await Sandbox.of(ctx);
    const entries = await projectEntries(ctx.state.dir, sandbox);
    return entries.slice(0, 50).map(describe).join("\n") + "\n";
  },
});

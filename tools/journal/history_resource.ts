/**
 * toolhost://history: the journal's most recent calls for this project, newest first. It changes
 * whenever a line is appended, by any toolhost on the project: subscribers (the review page in a
 * browser, legacy clients) hear of it.
 */
import { defineResource, type WatchContext } from "../../mcp/features/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { projectStatePath } from "../_lib/state.ts";
import { type StartedWatch, startWatch, watchFile } from "../_lib/watch/watch_files.ts";
import { journalPath } from "./_lib/journal.ts";
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
  watch: watchJournal,
});

/** The journal file, appended to, rotated (replaced) or made: each is a change. */
function watchJournal(ctx: WatchContext, changed: () => void): StartedWatch {
  return startWatch(ctx, "toolhost://history", async (group) => {
    const sandbox = await Sandbox.of(ctx);
    group.add(watchFile(journalPath(projectStatePath(ctx.state.dir, sandbox.base)), changed));
  });
}

/**
 * toolhost://tasks: the project's task list as a markdown checklist. Markdown rather than JSON:
 * a client attaches a resource to the conversation, where the checklist the tasks tool shows
 * reads best for both the person and the model (the tool's structured result already serves
 * programs).
 */
import { join } from "node:path";
import { defineResource, type ReadContext } from "../../mcp/features/mod.ts";
import { Sandbox } from "../_lib/sandbox/mod.ts";
import { projectStatePath, readState } from "../_lib/state.ts";
import { checklist, summary } from "./_lib/task_checklist.ts";
import { asTaskList, emptyTaskList } from "./_lib/task_list.ts";
import { startWatch, watchFile } from "../_lib/watch/watch_files.ts";
import { tasksFileName } from "./_lib/project_state.ts";

/** The project's task list file, shared by every toolhost on the project (per subject, OAuth). */
async function tasksFile(ctx: Pick<ReadContext, "roots" | "state" | "session">): Promise<string> {
  const dir = projectStatePath(ctx.state.dir, (await Sandbox.of(ctx)).base);
  return join(dir, tasksFileName(ctx.session));
}

export default defineResource({
  uri: "toolhost://tasks",
  name: "tasks",
  title: "Task list",
  description: "This project's task list (from the tasks tool) as a markdown checklist: " +
    "[x] done, [~] in progress, [ ] pending.",
  mimeType: "text/markdown",
  requires: "tasks",
  async read(ctx) {
    const file = await tasksFile(ctx);
    const list = asTaskList(await readState(file, emptyTaskList()), file);
    const shown = checklist(list, list.tasks);
    // The checklist's lines become markdown list items; steps are already indented under them.
    const items = shown.text.split("\n").map((line) =>
      /^ *\[[ x~]\] /.test(line) ? line.replace(/^( *)/, "$1- ") : line
    );
    return `# Tasks\n\n${summary(list)}\n${
      items.length && shown.text ? `\n${items.join("\n")}\n` : ""
    }`;
  },
  // Every writer (this server's tasks tool or another's) replaces tasks.json by rename.
  watch: (ctx, changed) =>
    startWatch(ctx, "toolhost://tasks", async (group) => {
      group.add(watchFile(await tasksFile(ctx), changed));
    }),
});

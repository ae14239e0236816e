/**
 * toolhost://processes: bash_list's answer as JSON, for readers that must not fill the journal
 * (the review app polls it while open; resources/read is never journaled, tools/call is).
 */
import { defineResource } from "../../mcp/features/mod.ts";
import { safely } from "../_lib/watch/watch_files.ts";
import { processesOf } from "./_lib/background.ts";
import { processRows } from "./_lib/process_list.ts";

export default defineResource({
  uri: "toolhost://processes",
  name: "processes",
  title: "Background processes",
  description: "The processes bash_background started in this session, as bash_list gives them " +
    "(JSON: { processes: [...] }).",
  mimeType: "application/json",
  requires: "bash_background",
  read: (ctx) =>
    Promise.resolve(JSON.stringify({ processes: processRows(processesOf(ctx).list()) })),
  // A process starts, ends or is forgotten: the list changes.
  watch: (ctx, changed) => processesOf(ctx).onListChange(safely(changed)),
});

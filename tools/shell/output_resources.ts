/**
 * toolhost://processes/{id}/output: what a background process (bash_background) of this session
 * has written, its latest part when long. Reading it does not move bash_output's "not read yet"
 * mark.
 */
import { defineResourceTemplate, ResourceNotFound } from "../../mcp/features/mod.ts";
import { type BackgroundProcess, processesOf, type Registry } from "./_lib/background.ts";
import { count } from "../_lib/text/units.ts";
import { safely } from "../_lib/watch/watch_files.ts";

const TEMPLATE = "toolhost://processes/{id}/output";

export default defineResourceTemplate({
  uriTemplate: TEMPLATE,
  name: "process-output",
  title: "Background process output",
  description: "The output (stdout and stderr) of a process started with bash_background, by " +
    "its id (p1, p2, …): the latest part when it is long.",
  mimeType: "text/plain",
  requires: "bash_background",
  read({ id }, ctx) {
    const process = find(processesOf(ctx), id);
    if (!process) throw new ResourceNotFound(`no background process has the id ${id}`);
    const { output } = process;
    const limit = ctx.config.limits.outputChars;
    const from = Math.max(output.start, output.end - limit);
    const { text } = output.read(from, limit);
    const header = from > 0
      ? `[${process.summary()} · the last ${count(output.end - from)} of ${
        count(output.end)
      } characters; bash_output reads earlier ones by offset]\n`
      : "";
    return Promise.resolve(header + text);
  },
  complete: {
    id: (value, ctx) =>
      Promise.resolve(
        processesOf(ctx).list().map((p) => p.id).filter((id) => id.startsWith(value)),
      ),
  },
  list: (ctx) =>
    Promise.resolve(
      processesOf(ctx).list().map((p) => ({
        uri: `toolhost://processes/${p.id}/output`,
        name: `${p.id} output`,
        description: p.summary(),
        mimeType: "text/plain",
      })),
    ),
  watch({ id }, ctx, changed) {
    const notify = safely(changed);
    const processes = processesOf(ctx);
    let current = find(processes, id);
    let stopOutput = current?.onChange(notify);
    // Ids are never reused: the process may still start (its id named ahead) or be forgotten.
    const stopList = processes.onListChange(() => {
      const now = find(processes, id);
      if (now === current) return;
      stopOutput?.();
      current = now;
      stopOutput = now?.onChange(notify);
      notify();
    });
    return () => {
      stopList();
      stopOutput?.();
    };
  },
  // Processes start, end (their descriptions say how) and, long after, are forgotten.
  watchList: (ctx, changed) => processesOf(ctx).onListChange(safely(changed)),
});

function find(processes: Registry, id: string): BackgroundProcess | undefined {
  return processes.list().find((p) => p.id === id);
}

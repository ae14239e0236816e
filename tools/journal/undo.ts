import { quoted } from "../../config/quote.ts";
import { defineTool, ToolError } from "../../mcp/tool.ts";
import { CHANGES_FILES } from "../_lib/annotations.ts";
import { whileChanging } from "../_lib/file_lock.ts";
import { Sandbox } from "../_lib/sandbox.ts";
import { projectStateDir } from "../_lib/state.ts";
import { type Change, type Entry, journalPath, readEntries } from "./_lib/journal.ts";
import { flushJournal, reportUndo } from "./_lib/recorder.ts";
import { pruneNow } from "./_lib/snapshots.ts";
import { apply, StoppedAfterRemoving } from "./_lib/undo_apply.ts";
import { planChange, planMove, type Step, type Undoing } from "./_lib/undo_steps.ts";

export default defineTool({
  name: "undo",
  description: "Reverts the last file-tool change, directory trees too (or `count`, or history " +
    "`id`); `force` overrides a changed path.",
  annotations: CHANGES_FILES,
  input: {
    type: "object",
    properties: {
      count: { type: "integer" },
      id: { type: "string" },
      force: { type: "boolean" },
    },
    additionalProperties: false,
  },
  async run(args, ctx) {
    if (!ctx.config.journal.enabled) {
      throw new ToolError("the journal is off (journal.enabled), so there is nothing to undo");
    }
    const sandbox = await Sandbox.of(ctx);
    const projectDir = await projectStateDir(ctx.state.dir, sandbox.base);
    // This server's queued lines first; the undo store within its budget (pruned lazily).
    await flushJournal();
    await pruneNow(projectDir, ctx.config.journal.undoBudgetBytes);
    const entries = await readEntries(journalPath(projectDir));
    const targets = chooseTargets(entries, args.id, Math.max(1, Math.min(args.count ?? 1, 50)));
    // What each path holds now is kept as it is checked, so this undo can be undone too (a blob
    // left by an undo refused further on is only pruned later).
    const u: Undoing = {
      sandbox,
      projectDir,
      keep: { projectDir, budget: ctx.config.journal.undoBudgetBytes },
      force: args.force === true,
    };
    // Alone among the file tools: trees are walked, removed and renamed.
    const { mine, lines, noRedo } = await whileChanging(async () => {
      const plan: Step[] = [];
      const mine: Change[] = [];
      const lines: string[] = [];
      const noRedo: string[] = [];
      try {
        // Everything is checked before anything is restored.
        for (const entry of targets) {
          if (entry.noUndo) {
            throw new ToolError(
              `${entry.tool} call ${entry.id} cannot be undone: ${entry.noUndo}.`,
            );
          }
          // A moved directory's source is moved back with its destination's step.
          const done = new Set<string>();
          for (const change of [...entry.changes!].reverse()) {
            if (done.has(change.path)) continue;
            if (!sandbox.contains(change.path) || (change.from && !sandbox.contains(change.from))) {
              throw new ToolError(
                `${change.path} is outside the allowed roots; nothing was undone.`,
              );
            }
            if (change.from) {
              done.add(change.from);
              const source = entry.changes!.find((c) => c.path === change.from);
              plan.push(await planMove(u, entry, change, source));
            } else plan.push(await planChange(u, entry, change));
          }
        }
        for (const step of plan) {
          try {
            ctx.signal.throwIfAborted();
            const applied = await apply(u, step, ctx.signal);
            mine.push(...applied.changes);
            lines.push(...applied.lines);
            if (applied.noRedo) noRedo.push(applied.noRedo);
          } catch (failure) {
            let error = failure;
            // The step had removed what its path held before it failed: that is done too.
            if (failure instanceof StoppedAfterRemoving) {
              mine.push(...failure.done.changes);
              lines.push(...failure.done.lines);
              if (failure.done.noRedo) noRedo.push(failure.done.noRedo);
              error = failure.cause;
            }
            if (mine.length === 0) throw error;
            // Stopped midway: what was done is journaled (undoing this call reverses it).
            const finished = targets.filter((e) =>
              !plan.some((s, i) => s.entry === e && i >= plan.indexOf(step))
            );
            reportUndo(
              args as Record<string, unknown>,
              finished.map((e) => e.id),
              mine,
              noRedo.length ? noRedo.join("; ") : undefined,
            );
            throw new ToolError(
              `undo stopped: ${(error as Error).message}\nAlready undone before that (journaled: ` +
                `undo this undo's id from history to reverse it):\n${lines.join("\n")}`,
            );
          }
        }
      } finally {
        for (const step of plan) await step.blob?.close().catch(() => {});
      }
      return { mine, lines, noRedo };
    });
    const undid = targets.map((e) => e.id);
    reportUndo(
      args as Record<string, unknown>,
      undid,
      mine,
      noRedo.length ? noRedo.join("; ") : undefined,
    );
    const note = noRedo.length
      ? `\n(This undo cannot itself be undone: ${noRedo.join("; ")}.)`
      : "";
    return {
      content: `Undid ${undid.length} call${undid.length === 1 ? "" : "s"} (${
        targets.map((e) => `${e.tool} ${e.id}`).join(", ")
      }):\n${lines.join("\n")}${note}`,
    };
  },
});

function chooseTargets(entries: Entry[], id: string | undefined, count: number): Entry[] {
  if (id !== undefined) {
    const entry = entries.find((e) => e.id === id);
    if (!entry) throw new ToolError(`no journaled call has id ${quoted(id)}; history lists them.`);
    if (!entry.changes) throw new ToolError(`${entry.tool} call ${id} changed no file.`);
    return [entry];
  }
  const undone = new Set(entries.flatMap((e) => e.undid ?? []));
  const targets: Entry[] = [];
  for (const entry of entries) {
    if (targets.length === count) break;
    if (!entry.changes || entry.undid || undone.has(entry.id)) continue;
    targets.push(entry);
  }
  if (targets.length === 0) {
    throw new ToolError("no file change through toolhost's file tools is left to undo.");
  }
  return targets;
}

import { dirname } from "node:path";
import { defineTool, ToolError } from "../../mcp/tool.ts";
import { CHANGES_FILES } from "../_lib/annotations.ts";
import type { FileHandle } from "node:fs/promises";
import { writeFileAtomic } from "../_lib/atomic_write.ts";
import { Sandbox } from "../_lib/sandbox.ts";
import { projectStateDir } from "../_lib/state.ts";
import {
  type Change,
  type Entry,
  journalPath,
  type PathState,
  readEntries,
} from "./_lib/journal.ts";
import { flushJournal, reportUndo } from "./_lib/recorder.ts";
import { chunksOf, openBlob, pathState, pruneNow } from "./_lib/snapshots.ts";

export default defineTool({
  name: "undo",
  description: "Reverts the last file-tool change (or `count`, or history `id`); `force` " +
    "overrides a changed file.",
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
    // Everything is checked before anything is restored.
    const plan: { change: Change; current: PathState; blob?: FileHandle }[] = [];
    const mine: Change[] = [];
    const restored: { path: string; now: string }[] = [];
    // What each file holds now is kept as it is checked, so this undo can be undone too (a blob
    // left by an undo refused further on is only pruned later).
    const keep = { projectDir, budget: ctx.config.journal.undoBudgetBytes };
    try {
      for (const entry of targets) {
        if (entry.noUndo) {
          throw new ToolError(`${entry.tool} call ${entry.id} cannot be undone: ${entry.noUndo}.`);
        }
        for (const change of [...entry.changes!].reverse()) {
          if (!sandbox.contains(change.path)) {
            throw new ToolError(`${change.path} is outside the allowed roots; nothing was undone.`);
          }
          const shown = sandbox.display(change.path);
          const now = await pathState(sandbox, change.path, keep);
          if (!matches(now.state, change.after) && !args.force) {
            throw new ToolError(
              `${shown} was changed since ${entry.tool} (call ${entry.id}) wrote it, by someone ` +
                "else; nothing was undone. Look at it first; force: true restores it anyway.",
            );
          }
          let blob: FileHandle | undefined;
          if (change.before.kind === "file") {
            blob = await openBlob(projectDir, change.before.sha);
            if (!blob) {
              throw new ToolError(
                `the earlier content of ${shown} is no longer kept (journal.undo_budget_bytes ` +
                  "dropped it); nothing was undone.",
              );
            }
          }
          plan.push({ change, current: now.state, blob });
        }
      }
      for (const step of plan) {
        const { change } = step;
        await restore(sandbox, change.path, step.current, change.before, step.blob);
        mine.push({ path: change.path, before: step.current, after: change.before });
        restored.push({ path: sandbox.display(change.path), now: describe(change.before) });
      }
    } finally {
      for (const step of plan) await step.blob?.close().catch(() => {});
    }
    const undid = targets.map((e) => e.id);
    reportUndo(args as Record<string, unknown>, undid, mine);
    return {
      content: `Undid ${undid.length} call${undid.length === 1 ? "" : "s"} (${
        targets.map((e) => `${e.tool} ${e.id}`).join(", ")
      }):\n${restored.map((r) => `- ${r.path}: ${r.now}`).join("\n")}`,
    };
  },
});

function chooseTargets(entries: Entry[], id: string | undefined, count: number): Entry[] {
  if (id !== undefined) {
    const entry = entries.find((e) => e.id === id);
    if (!entry) throw new ToolError(`no journaled call has id ${id}; history lists them.`);
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

function matches(now: PathState, expected: PathState): boolean {
  if (now.kind !== expected.kind) return false;
  if (now.kind === "file" && expected.kind === "file") return now.sha === expected.sha;
  if (now.kind === "link" && expected.kind === "link") return now.target === expected.target;
  return true;
}

function describe(state: PathState): string {
  switch (state.kind) {
    case "absent":
      return "removed";
    case "dir":
      return "directory restored";
    case "link":
      return `symlink to ${state.target} restored`;
    case "file":
      return `content restored (${state.size} bytes, mode ${state.mode.toString(8)})`;
  }
}

/** Puts `state` back at `path`, beneath the held roots. */
async function restore(
  sandbox: Sandbox,
  path: string,
  current: PathState,
  state: PathState,
  blob?: FileHandle,
): Promise<void> {
  const shown = sandbox.display(path);
  if (current.kind === "dir" && state.kind !== "dir") {
    const { dir, name } = await sandbox.parent(path);
    try {
      await dir.rmdir(name);
    } catch (error) {
      throw new ToolError(`cannot remove the directory ${shown}: ${(error as Error).message}`);
    } finally {
      await dir.close();
    }
  } else if (
    current.kind === "link" || (current.kind === "file" && state.kind !== "file")
  ) {
    const { dir, name } = await sandbox.parent(path);
    try {
      await dir.unlink(name);
    } finally {
      await dir.close();
    }
  }
  if (state.kind === "absent") return;
  if (state.kind === "dir") {
    if (current.kind !== "dir") await (await sandbox.directory(path, true)).dir.close();
    return;
  }
  await (await sandbox.directory(dirname(path), true)).dir.close();
  if (state.kind === "link") {
    const { dir, name } = await sandbox.parent(path);
    try {
      await dir.symlink(state.target, name);
    } finally {
      await dir.close();
    }
    return;
  }
  // Streamed from the blob held open; one changed since it was checked is refused before the
  // rename.
  await writeFileAtomic(path, chunksOf(blob!), sandbox, {
    digest: true,
    check({ sha }) {
      if (sha !== state.sha) {
        throw new ToolError(
          `the earlier content of ${shown} changed in the undo store; ${shown} was left as it was.`,
        );
      }
    },
  });
  const handle = await sandbox.openForReading(path);
  try {
    await handle.chmod(state.mode);
  } finally {
    await handle.close();
  }
}

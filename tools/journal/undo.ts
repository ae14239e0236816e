import { defineTool, type RunTimeWrite, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { callSandbox, transaction } from "../_lib/transaction/mod.ts";
import { projectStateDir } from "../_lib/state.ts";
import { type Change, type Entry, journalPath, type PathState } from "./_lib/journal.ts";
import { flushJournal, reportUndo } from "./_lib/recorder.ts";
import { chooseTargets } from "./_lib/undo_targets.ts";
import { sessionLabel, type Viewer, viewerOf } from "./_lib/session.ts";
import { holdUndoLock, releaseUndoLock } from "./_lib/undo_lock.ts";
import { pinBlobs, pruneNow } from "./_lib/snapshots.ts";
import { loadManifest } from "./_lib/tree_manifest.ts";
import { apply, StoppedAfterRemoving } from "./_lib/undo_apply.ts";
import { planChange, planMove, type Step, type Undoing } from "./_lib/undo_steps.ts";
import { REVIEW_URI } from "./_lib/review.ts";

const MAX_COUNT = 50;

export default defineTool({
  name: "undo",
  title: "Undo a change",
  description: (offers) =>
    "Reverts this session's last change by a file tool or a command (directory trees too), " +
    "or its last `count`, or the call `id`" + (offers("history") ? " from history" : "") +
    " (any session's). Refused, changing nothing, when a path no longer holds what that call " +
    "left, unless `force`. Undo is undone the same way (redo).",
  annotations: CHANGES_FILES,
  ui: { resourceUri: REVIEW_URI },
  // The paths its journal entries name, named before any changes: it keeps what they hold
  // itself, and reports what it did (reportUndo).
  writes: { atRunTime: true },
  input: {
    type: "object",
    properties: {
      count: {
        type: "integer",
        minimum: 1,
        maximum: MAX_COUNT,
        description: "This session's last this many changes (default 1).",
      },
      id: { type: "string", maxLength: 64, description: "The call to undo, by its journal id." },
      force: { type: "boolean", description: "Undo although a path changed since." },
    },
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      undid: { type: "array", items: { type: "string" }, description: "the calls' ids" },
      paths: { type: "array", items: { type: "string" }, description: "what it put back" },
    },
    required: ["undid", "paths"],
    additionalProperties: false,
  },
  run: undo,
});

/** What the model asked undo for. */
interface UndoArgs {
  count?: number;
  id?: string;
  force?: boolean;
}

/** Undoes the calls the arguments name, all or nothing, journaled so it can be undone in turn. */
async function undo(args: UndoArgs, ctx: ToolContext) {
  if (!ctx.config.journal.enabled) {
    throw new ToolError("the journal is off (journal.enabled), so there is nothing to undo");
  }
  const sandbox = await callSandbox(ctx);
  const projectDir = await projectStateDir(ctx.state.dir, sandbox.base);
  // One undo at a time on this project, whichever server: held until this undo's line is
  // journaled (the recorder gives it back), so a second undo of the same call reads it.
  await holdUndoLock(projectDir, ctx.writes);
  let reported = false;
  const report = (undid: string[], changes: Change[], noRedo: string[]) => {
    reportUndo(ctx, undid, changes, noRedo.length ? noRedo.join("; ") : undefined);
    reported = true;
  };
  try {
    // This server's queued lines first; the undo store within its budget (pruned lazily).
    await flushJournal();
    await pruneNow(projectDir, ctx.config.journal.undoBudgetBytes);
    const count = Math.max(1, Math.min(args.count ?? 1, MAX_COUNT));
    const viewer = viewerOf(ctx);
    const targets = await chooseTargets(journalPath(projectDir), viewer, args.id, count);
    // What it restores stays in the store while it works, whatever its own keeping prunes.
    const release = await pinWhatIsRestored(projectDir, targets);
    try {
      return await transaction(ctx, (tx) => {
        // What each path holds now is kept as it is checked, so this undo can be undone too (a
        // blob left by an undo refused further on is only pruned later).
        const u: Undoing = {
          sandbox,
          projectDir,
          keep: { projectDir, budget: ctx.config.journal.undoBudgetBytes },
          force: args.force === true,
          tx,
          targets: new Map(),
        };
        return undoCalls(u, targets, viewer, ctx, report);
      });
    } finally {
      release();
    }
  } finally {
    if (!reported) releaseUndoLock(ctx.writes);
  }
}

/**
 * Pins every blob the undone calls' earlier states need (files, and trees with their files)
 * against pruning until the undo is over: keeping what each path holds now adds to the store,
 * and the prune that starts then must not drop what is about to be restored.
 */
async function pinWhatIsRestored(projectDir: string, entries: Entry[]): Promise<() => void> {
  const befores = entries.flatMap((entry) => (entry.changes ?? []).map((c) => c.before));
  const releases = [pinBlobs(
    projectDir,
    befores.flatMap((b) => b.kind === "file" ? [b.sha] : b.kind === "tree" ? [b.manifest] : []),
  )];
  for (const before of befores) {
    if (before.kind !== "tree" || !before.content) continue;
    const manifest = await loadManifest(projectDir, before.manifest);
    const files = (manifest?.items ?? []).flatMap((item) =>
      item.t === "f" && typeof item.s === "string" ? [item.s] : []
    );
    releases.push(pinBlobs(projectDir, files));
  }
  return () => releases.forEach((release) => release());
}

/** Checks every change of `targets`, then restores them; `report` journals what was done. */
async function undoCalls(
  u: Undoing,
  targets: Entry[],
  viewer: Viewer,
  ctx: ToolContext,
  report: (undid: string[], changes: Change[], noRedo: string[]) => void,
) {
  // Under the transaction's lock, alone among the file tools: trees are walked, removed and
  // renamed.
  const { mine, lines, noRedo } = await (async () => {
    const plan: Step[] = [];
    const mine: Change[] = [];
    const lines: string[] = [];
    const noRedo: string[] = [];
    try {
      // Everything is checked before anything is restored.
      await planAll(u, targets, plan);
      // Then named (the hooks hear of every path before it changes), the transaction's targets.
      for (const target of await u.tx.name(plan.flatMap(namedPaths))) {
        u.targets.set(target.real, target);
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
          report(finished.map((e) => e.id), mine, noRedo);
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
  })();
  const undid = targets.map((e) => e.id);
  report(undid, mine, noRedo);
  const note = noRedo.length ? `\n(This undo cannot itself be undone: ${noRedo.join("; ")}.)` : "";
  // As many as one journal line holds; the text above names every one.
  const paths = [...new Set(mine.map((change) => u.sandbox.display(change.path)))].slice(0, 256);
  return {
    content: `Undid ${undid.length} call${undid.length === 1 ? "" : "s"} (${
      targets.map((e) =>
        `${e.tool} ${e.id}${
          e.session === viewer.session ? "" : `, ${sessionLabel(e.session, viewer)}`
        }`
      ).join(", ")
    }):\n${lines.join("\n")}${note}`,
    structured: { undid, paths },
  };
}

/**
 * The paths a step changes, as undo names them: each entry itself (never where a link leads), kept
 * by undo (it kept what is there as it checked it).
 */
function namedPaths(step: Step): RunTimeWrite[] {
  const named = (path: string, to: PathState): RunTimeWrite => ({
    path,
    kind: to.kind === "absent" ? "removes" : "replaces",
    link: true,
    kept: true,
  });
  const paths = [named(step.change.path, step.change.before)];
  if (step.move) paths.push(named(step.move.to, { kind: "absent" }));
  return paths;
}

/** Checks every change of `targets` (nothing is changed yet), adding each step to `plan`. */
async function planAll(u: Undoing, targets: Entry[], plan: Step[]): Promise<void> {
  const { sandbox } = u;
  try {
    for (const entry of targets) {
      if (entry.noUndo) {
        throw new ToolError(`${entry.tool} call ${entry.id} cannot be undone: ${entry.noUndo}.`);
      }
      // A moved directory's source is moved back with its destination's step.
      const done = new Set<string>();
      for (const change of [...entry.changes!].reverse()) {
        if (done.has(change.path)) continue;
        if (!sandbox.contains(change.path) || (change.from && !sandbox.contains(change.from))) {
          throw new ToolError(`${change.path} is outside the allowed roots; nothing was undone.`);
        }
        if (change.from) {
          done.add(change.from);
          const source = entry.changes!.find((c) => c.path === change.from);
          plan.push(await planMove(u, entry, change, source));
        } else plan.push(await planChange(u, entry, change));
      }
    }
  } catch (error) {
    const message = (error as Error).message;
    if (/nothing was undone|cannot be undone/.test(message)) throw error;
    // A path that cannot be looked at (a link on the way, a permission): said, and that nothing
    // was done.
    throw new ToolError(`${message.replace(/[\s.;]+$/, "")}; nothing was undone.`);
  }
}

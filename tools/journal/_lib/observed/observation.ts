/**
 * One command's observation: a snapshot of every root before the command starts, another when it
 * ends (when its call returns, or for bash_background when its process ends), and the difference,
 * less what other journaled calls changed meanwhile (attribution.ts), as the call's change in the
 * journal's own shape (paths, states before and after, contents kept in the undo store), so
 * history, undo and the review app treat it as any tool's. What cannot be kept whole (a tree over
 * the budget, a file too large, more changes than a journal line holds) is said, and the change
 * is recorded as not undoable: never a part of it presented as the whole.
 */
import type { Settings } from "../../../../config/settings.ts";
import type { ToolContext } from "../../../../mcp/tool/mod.ts";
import { commandFiles } from "../../../_lib/command_files.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import type { Change } from "../journal.ts";
import { MAX_CHANGES } from "../journal_scan.ts";
import { type Keep, touchBlob } from "../snapshots.ts";
import { changedBy, changedByOthers } from "./attribution.ts";
import { type Viewer, viewerOf } from "../session.ts";
import type { Found, Limits, NotTaken, Phase } from "./engine.ts";
import { describeObserved, orderForUndo } from "./summary.ts";
import { observedRoots, queued, type Watched, watchedRoot } from "./watched_roots.ts";

/** Milliseconds one snapshot of one root may take. */
export const SNAPSHOT_MS = 10_000;
/**
 * What an engine may store of its own (git's objects of every file version it read), in times
 * the content a snapshot may read; past it, it starts afresh once no snapshot of it is in use.
 */
const STORED_TIMES = 4;

/** What the journal line of an observed call gets, and what its result says. */
export interface Observed {
  files?: string[];
  changes?: Change[];
  noUndo?: string;
  /** Appended to the call's result (empty: nothing to say). */
  note: string;
}

interface Before {
  root: string;
  watched: Watched;
  snapshot?: unknown;
  /** Why there is no snapshot. */
  failed?: string;
}

/** The observations of this server's commands that have begun and not yet ended. */
const open = new Set<Observation>();

export class Observation {
  readonly #befores: Before[];
  #ended = false;

  private constructor(
    /** What the command is called in another's result ("p1 (bash_background)"). */
    public label: string,
    readonly since: number,
    readonly sandbox: Sandbox,
    readonly journal: string,
    readonly keep: Keep,
    readonly limits: Limits,
    /** The command's session, to whom the calls of others are named. */
    readonly viewer: Viewer,
    befores: Before[],
    readonly settings: Readonly<Settings>,
  ) {
    this.#befores = befores;
  }

  /** Snapshots every root before the command runs. */
  static async begin(
    ctx: ToolContext,
    sandbox: Sandbox,
    projectDir: string,
    journal: string,
    label: string,
  ): Promise<Observation> {
    const budget = ctx.config.journal.undoBudgetBytes;
    const keep: Keep = { projectDir, budget };
    const limits: Limits = {
      maxEntries: ctx.config.journal.snapshotMaxFiles,
      maxFileBytes: Math.floor(budget / 4),
      maxBytes: Math.floor(budget / 2),
      timeoutMs: SNAPSHOT_MS,
    };
    const since = Date.now();
    const befores = await Promise.all(
      observedRoots(sandbox).map(async (root) => {
        const watched = watchedRoot(sandbox, root, projectDir, ctx.state.dir);
        await renewIfFull(watched, limits);
        watched.open++;
        return { root, watched, ...(await take(watched, limits, keep, sandbox, "before")) };
      }),
    );
    const observation = new Observation(
      label,
      since,
      sandbox,
      journal,
      keep,
      limits,
      viewerOf(ctx),
      befores,
      ctx.config,
    );
    open.add(observation);
    return observation;
  }

  /** Takes the snapshots after, compares, and says what the command changed. */
  async end(): Promise<Observed> {
    if (this.#ended) return { note: "" };
    this.#ended = true;
    open.delete(this);
    for (const before of this.#befores) before.watched.open--;
    const alongside = alongsideOf(this.viewer, [...open]);
    const reasons: string[] = [];
    const found: Found = { changes: [], notKept: [], unseen: [], renamed: [] };
    for (const before of this.#befores) {
      const after = await take(before.watched, this.limits, this.keep, this.sandbox, "after");
      const failed = before.failed ?? after.failed;
      if (failed !== undefined) {
        reasons.push(failed);
        continue;
      }
      try {
        const engine = await before.watched.engine;
        const one = await engine.compare(before.snapshot, after.snapshot, this.keep, this.limits);
        found.changes.push(...one.changes);
        found.notKept.push(...one.notKept);
        found.unseen.push(...one.unseen);
        found.renamed.push(...one.renamed);
      } catch (error) {
        reasons.push(`comparing the snapshots of ${before.root} failed: ${message(error)}`);
      }
    }
    if (reasons.length > 0 && found.changes.length === 0) {
      // Nothing is known of what the command changed: said, never a change recorded.
      const noUndo = reasons.join("; ");
      return { noUndo, note: `Not kept for undo: ${noUndo}.` };
    }
    // Whoever follows the files (the language servers) hears of every change the command saw,
    // its own or not, before its result is sent.
    await commandFiles({
      sandbox: this.sandbox,
      paths: found.changes.map((change) => change.path),
      settings: this.settings,
    });
    return await this.#record(found, [...reasons, ...found.notKept], alongside);
  }

  /** The changes found, less what others changed meanwhile, checked and bounded. */
  async #record(found: Found, reasons: string[], alongside: string[]): Promise<Observed> {
    const others = await changedByOthers(this.journal, this.since, this.viewer).catch(() =>
      new Map()
    );
    const left: [string, string][] = [];
    const mine = found.changes.filter((change) => {
      const who = changedBy(others, change.path);
      if (who !== undefined) left.push([change.path, who]);
      return who === undefined;
    });
    const renamed = found.renamed.filter(([a, b]) =>
      mine.some((c) => c.path === a) &&
      mine.some((c) => c.path === b)
    );
    // The earlier contents must still be kept (a blob kept long ago may have been dropped).
    for (const change of mine) {
      const before = change.before;
      if (before.kind !== "file" || before.sha === "") continue;
      if (!(await touchBlob(this.keep.projectDir, before.sha))) {
        reasons.push(
          `the earlier content of ${this.sandbox.display(change.path)} is no longer kept ` +
            "(journal.undo_budget_bytes)",
        );
      }
    }
    const changes = orderForUndo(mine);
    if (changes.length > MAX_CHANGES) {
      reasons.push(
        `the command changed ${changes.length} paths, more than the ${MAX_CHANGES} one journal ` +
          "line keeps for undo",
      );
    }
    const noUndo = reasons.length ? reasons.join("; ") : undefined;
    const note = describeObserved(
      { changes, renamed, noUndo, unseen: found.unseen, others: left, alongside },
      this.sandbox,
    );
    if (changes.length === 0) return { noUndo, note };
    const files = changes.map((c) => this.sandbox.display(c.path));
    if (changes.length > MAX_CHANGES) {
      const shown = files.slice(0, MAX_CHANGES - 1);
      shown.push(`(and ${files.length - shown.length} more)`);
      return { files: shown, noUndo, note };
    }
    return { files, changes, noUndo, note };
  }
}

/** Starts a root's engine afresh when it stored too much and no snapshot of it is in use. */
async function renewIfFull(watched: Watched, limits: Limits): Promise<void> {
  const engine = await watched.engine.catch(() => undefined);
  if (!engine?.renew || watched.open > 0) return;
  if ((engine.written ?? 0) <= limits.maxBytes * STORED_TIMES) return;
  await queued(watched, () => engine.renew!()).catch(() => {});
}

/** A snapshot of one root, or why there is none. */
async function take(
  watched: Watched,
  limits: Limits,
  keep: Keep,
  sandbox: Sandbox,
  phase: Phase,
): Promise<{ snapshot?: unknown; failed?: string }> {
  try {
    const engine = await watched.engine;
    const taken = await queued(watched, () => engine.snapshot(limits, keep, sandbox, phase));
    if (taken && typeof taken === "object" && "notTaken" in taken) {
      return { failed: (taken as NotTaken).notTaken };
    }
    return { snapshot: taken };
  } catch (error) {
    return { failed: `the snapshot failed: ${message(error)}` };
  }
}

function message(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

/**
 * The other commands running while one ended, as told to its session: its own by their labels
 * (`p2 (bash_background)`), another session's only counted, since their ids mean nothing here
 * and are not this session's to know.
 */
function alongsideOf(viewer: Viewer, others: Observation[]): string[] {
  const own = others.filter((o) => o.viewer.session === viewer.session).map((o) => o.label);
  const elsewhere = others.length - own.length;
  if (elsewhere === 1) own.push("a command of another session");
  if (elsewhere > 1) own.push(`${elsewhere} commands of other sessions`);
  return own;
}

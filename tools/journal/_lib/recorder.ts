/**
 * The journal's hook: before a call that declares it writes paths (mcp/tool/writes.ts) runs, and
 * before each path its tool names at run time changes, what undo needs of them is kept
 * (content and mode of files, trees to be removed, read through the sandbox); once any call
 * is over, one line is written to the project's journal: time, era, tool, arguments (bounded,
 * configured secrets masked), outcome, duration, and the files it changed. The reply of a call
 * that changed files waits until its line is in the file (a crash after the reply keeps it, and
 * with it undo); other calls' lines are queued and appended in batches (writer.ts), the reply
 * not waiting for them.
 */
import {
  appOnly,
  type CallWrites,
  defineToolHook,
  type FinishedCall,
  Handoff,
  type PlannedWrite,
  type Tool,
  type ToolContext,
} from "../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../_lib/sandbox/mod.ts";
import { callSandbox, writeTargets } from "../../_lib/transaction/mod.ts";
import { projectStateDir } from "../../_lib/state.ts";
import { type Change, journalPath, type PathState, type TreeState } from "./journal.ts";
import { type Keep, pathState } from "./snapshots.ts";
import {
  DIGEST_UP_TO,
  keepTree,
  MAX_KEPT_ENTRIES,
  refusal,
  shapeOf,
  shapeOfDir,
} from "./tree_manifest.ts";
import { statHeld } from "./tree_walk.ts";
import { digestAt } from "./tree_compare.ts";
import { lastLookAtTree } from "../../_lib/tree_witness.ts";
import { BatchWriter } from "./writer.ts";
import { entryOf } from "./entry_fields.ts";
import { releaseUndoLock } from "./undo_lock.ts";
import { callRecorded, callStarted } from "./in_flight.ts";
import {
  beginObservation,
  type CommandChanges,
  commandChanges,
  settleObserved,
} from "./observed/mod.ts";

/** What before() kept of one path, for undo. */
interface Kept {
  write: PlannedWrite;
  path: string;
  state: PathState;
}

interface Pending {
  sandbox: Sandbox;
  projectDir: string;
  before: Kept[];
  noUndo?: string;
}

/** The journal's part of one call that writes, kept on its ctx.writes from before to finished. */
interface Journaling {
  /** What was kept before the call (and before each path it named at run time). */
  kept: Promise<Pending | undefined>[];
  /** The shape of each tree the call showed just before removing it, by path. */
  removing: Map<string, string>;
}

const journaling = new Handoff<Journaling>("what the journal kept before the call");

/** The journal lines not yet written, of every project this server serves. */
let failures = 0;
const writer = new BatchWriter(4096, 1024, undefined, (error, lost) => {
  // Logged through stderr: the calls whose lines were lost are long answered.
  if (failures++ < 5) console.error(`journal: ${lost} entries not recorded: ${error.message}`);
});

/**
 * Waits, at most `ms`, for the queued lines to be written: before the journal is read (history,
 * undo) and on an orderly shutdown.
 */
export async function flushJournal(ms = 10_000): Promise<boolean> {
  // Commands that ended just now are being recorded: their lines first.
  await settleObserved(ms);
  return await writer.flush(ms);
}

/** Project state directories by state directory and first root: made once, not per call. */
const projectDirs = new Map<string, Promise<string>>();

function cachedProjectDir(stateDir: string, base: string): Promise<string> {
  const key = `${stateDir}\0${base}`;
  let dir = projectDirs.get(key);
  if (!dir) {
    dir = projectStateDir(stateDir, base);
    dir.catch(() => projectDirs.delete(key));
    projectDirs.set(key, dir);
  }
  return dir;
}

/** The journal of the project a call served, by its requested roots (resolved once each). */
const journalsByRoots = new Map<string, Promise<string | undefined>>();

/** Each roots list as JSON, by identity: the lists a connection hands out are made once each. */
const rootsKeys = new WeakMap<readonly string[], string>();

/**
 * The journal file by the promise of roots a call was given: a connection hands out one promise
 * until its roots may change, so the common call finds its file here without a promise of its own.
 */
const journalsByRootsPromise = new WeakMap<
  Promise<readonly string[]>,
  { stateDir: string; file: Promise<string | undefined> }
>();

function journalOf(ctx: ToolContext): Promise<string | undefined> {
  const roots = ctx.roots();
  const known = journalsByRootsPromise.get(roots);
  if (known && known.stateDir === ctx.state.dir) return known.file;
  const file = journalOfRoots(ctx, roots).catch(() => undefined);
  journalsByRootsPromise.set(roots, { stateDir: ctx.state.dir, file });
  // A failure is not kept: the roots may exist later.
  file.then((f) => f === undefined && journalsByRootsPromise.delete(roots));
  return file;
}

async function journalOfRoots(
  ctx: ToolContext,
  rootsPromise: Promise<readonly string[]>,
): Promise<string | undefined> {
  const roots = await rootsPromise;
  let rootsKey = rootsKeys.get(roots);
  if (rootsKey === undefined) {
    rootsKey = JSON.stringify(roots);
    rootsKeys.set(roots, rootsKey);
  }
  const key = `${ctx.state.dir}\0${rootsKey}`;
  let file = journalsByRoots.get(key);
  if (!file) {
    file = callSandbox(ctx).then(
      async (sandbox) => journalPath(await cachedProjectDir(ctx.state.dir, sandbox.base)),
      () => undefined,
    );
    // A failure is not kept: the roots may exist later.
    file.then((f) => f === undefined && journalsByRoots.delete(key));
    journalsByRoots.set(key, file);
  }
  return await file;
}

/** What undo did in a call, reported by the tool itself. */
interface Undone {
  undid: string[];
  changes: Change[];
  noUndo?: string;
}

const undone = new Handoff<Undone>("what undo did");

/**
 * For undo: the entries it reversed and its own changes, journaled with its call; `noUndo` when
 * something it removed could not be kept (then it cannot be undone in turn).
 */
export function reportUndo(
  ctx: ToolContext,
  undid: string[],
  changes: Change[],
  noUndo?: string,
): void {
  ctx.writes.give(undone, { undid, changes, noUndo });
}

/**
 * The keep phase: before a call changes what it declared (or names at run time), what undo needs
 * of each path is kept; once the call is over, its line is written, and the call leaves the line
 * of calls on its paths (ctx.writes.turn) so the next one's snapshot sees this change.
 */
export const journalHook = defineToolHook({
  name: "journal",
  phase: "keep",
  before(tool: Tool, ctx: ToolContext) {
    if (!ctx.config.journal.enabled) return;
    // A command's changes are found by comparing the roots around it: kept here as well.
    if (tool.writes?.observed === true) return beginObservation(tool, ctx);
    const writes = ctx.writes;
    // A tool that names its paths at run time has each kept as it names them.
    if (tool.writes?.atRunTime) {
      writes.onWillWrite((named) => keepNamed(tool, ctx, writes, named));
    }
    const planned = writes.planned;
    if (planned.length === 0) return;
    // A tool that replaces its files by a rename leaves the old ones whole under the descriptors
    // the snapshot holds: its renames wait until those are open (ctx.writes.replacing()), the
    // copy going on beside it (finished() waits for it). Any other tool waits until everything
    // is kept.
    let opened: () => void = () => {};
    const early = planned.every((write) => write.kind === "replaces")
      ? new Promise<void>((resolve) => {
        let left = planned.length;
        opened = () => --left === 0 && resolve();
      })
      : undefined;
    // The call's place in line on its paths, taken as it arrived: calls on one path are kept in
    // the order they came in, each snapshot after the change before it is recorded.
    const turn = writes.turn;
    const call: Journaling = { kept: [], removing: new Map() };
    writes.give(journaling, call);
    callStarted(call);
    // Kept aside: a failure here must not refuse the call (it is only not undoable).
    const ready = turn && !turn.free ? turn.ready : Promise.resolve();
    const kept = ready.then(() => snapshot(planned, ctx, call, opened)).catch(
      (error) => {
        ctx.log("warning", `journal: nothing kept for undo of ${tool.name}: ${error.message}`);
        return undefined;
      },
    );
    call.kept.push(kept);
    const done = kept.then(() => {});
    if (!early) return done;
    const held = Promise.race([early, done]);
    // With no earlier call on its path, the tool starts now: what it reads there is what the
    // snapshot reads, and only its rename must wait. Otherwise it waits for its turn as well.
    if (turn && !turn.free) return held;
    writes.holdReplacing(held);
  },
  finished(call: FinishedCall) {
    // A tool meant for an app alone (the review app's data) is no call of the agent's.
    if (!call.ctx.config.journal.enabled || appOnly(call.tool.ui)) return;
    const writes = call.ctx.writes;
    const mine = writes.take(journaling);
    const own = writes.take(undone);
    // A command's change, found by comparing the roots around it (observed/).
    const seen = writes.take(commandChanges);
    // The common call changed no file: its line is queued and nothing is awaited.
    if (!mine && !own && !seen) {
      writer.push(journalOf(call.ctx), entryOf(call), call.ctx.config.journal.maxBytes);
      return;
    }
    return record(call, mine, own, seen).catch((error) => {
      call.ctx.log(
        "warning",
        `journal: ${call.tool.name} not recorded: ${(error as Error).message}`,
      );
    }).finally(() => {
      // Recorded: the next call on these paths may take its snapshot.
      writes.leaveLine();
      if (mine) callRecorded(mine);
      // An undo's lock is given back once its line is in the file (undo_lock.ts).
      releaseUndoLock(writes);
    });
  },
});

/** Keeps what the paths a tool names at run time hold, before it changes them. */
async function keepNamed(
  tool: Tool,
  ctx: ToolContext,
  writes: CallWrites,
  named: readonly PlannedWrite[],
): Promise<void> {
  // A tool that keeps what it changes itself (undo) needs nothing kept here.
  const keep = named.filter((write) => !write.kept);
  if (keep.length === 0) return;
  let call = writes.take(journaling);
  if (!call) {
    call = { kept: [], removing: new Map() };
    callStarted(call);
  }
  writes.give(journaling, call);
  const kept = snapshot(keep, ctx, call, () => {}).catch((error) => {
    ctx.log("warning", `journal: nothing kept for undo of ${tool.name}: ${error.message}`);
    return undefined;
  });
  call.kept.push(kept);
  await kept;
}

async function snapshot(
  planned: readonly PlannedWrite[],
  ctx: ToolContext,
  call: Journaling,
  opened: () => void,
): Promise<Pending> {
  const sandbox = await callSandbox(ctx);
  const projectDir = await cachedProjectDir(ctx.state.dir, sandbox.base);
  const budget = ctx.config.journal.undoBudgetBytes;
  const result: Pending = { sandbox, projectDir, before: [] };
  // Each where the call's one resolution put it (the entry itself for a `link` write).
  for (const { write, real: path } of await writeTargets(ctx, planned)) {
    const { state, tooBig } = await pathState(
      sandbox,
      path,
      { projectDir, budget, opened, trustWritten: true },
      budget,
    );
    if (tooBig) result.noUndo = `${sandbox.display(path)} is larger than the undo budget`;
    if (state.kind === "dir") {
      const tree = await treeBefore(write, sandbox, path, ctx, call, { projectDir, budget });
      if (typeof tree === "string") result.noUndo = tree;
      else if (tree) {
        result.before.push({ write, path, state: tree });
        continue;
      }
    }
    result.before.push({ write, path, state });
  }
  return result;
}

/**
 * What undo keeps of a directory a call is about to change: a tree to be removed is kept whole,
 * within MAX_KEPT_ENTRIES and the budget. A string: why it is not undoable. Nothing for any
 * other directory: a tree moved is judged by what the move left (treeAfter), and a directory a
 * call adds to or replaces when empty needs nothing more.
 */
async function treeBefore(
  write: PlannedWrite,
  sandbox: Sandbox,
  path: string,
  ctx: ToolContext,
  call: Journaling,
  keep: Keep,
): Promise<TreeState | string | undefined> {
  const shown = sandbox.display(path);
  // A root, or a directory holding one, is never deleted or moved: the tool refuses it.
  if (sandbox.holdsRoot(path)) return undefined;
  try {
    // Without its tree argument, a tool that removes refuses a directory: nothing to keep.
    if (write.kind === "removes" && write.tree) {
      const { racy, ...kept } = await keepTree(sandbox, path, keep, {
        entries: MAX_KEPT_ENTRIES,
        bytes: keep.budget,
      });
      // The tool shows the tree just before it removes it: it must still be this one (files
      // changed within a tick before they were kept: by their content too).
      ctx.writes.give(lastLookAtTree, async (dir) => {
        const seen = await shapeOfDir(dir, await statHeld(dir));
        for (const file of racy ?? []) {
          if ((await digestAt(dir, file.p)) !== file.s) return;
        }
        call.removing.set(path, seen.sha);
      });
      return kept;
    }
  } catch (error) {
    return `the directory tree ${shown} was not kept: ${refusal(error)}`;
  }
  return undefined;
}

/**
 * What a directory holds after a call: its shape when the call moved or copied a tree there (or
 * away from there), or changed a kept tree (a delete that failed midway); plain otherwise
 * (create_directory).
 */
async function treeAfter(
  kept: Kept,
  sandbox: Sandbox,
  keep: Keep,
): Promise<PathState> {
  const { write, path, state: before } = kept;
  const moved = write.kind === "receives" || write.to !== undefined;
  if (!moved && before.kind !== "tree") return { kind: "dir" };
  // A tree kept for a delete that did not happen (refused, or stopped first) is unchanged.
  if (before.kind === "tree" && before.shape) {
    const now = await shapeOf(sandbox, path);
    if (now.sha === before.shape) return before;
  }
  return (await shapeOf(sandbox, path, keep, undefined, DIGEST_UP_TO)).state!;
}

function same(a: PathState, b: PathState): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

async function record(
  call: FinishedCall,
  mine: Journaling | undefined,
  own: Undone | undefined,
  seen?: CommandChanges,
): Promise<void> {
  // A command's observation ends first, whatever happens next (its line needs nothing below).
  const maxBytes = call.ctx.config.journal.maxBytes;
  const observed = await seen?.finish(call, (file, line) => writer.write(file, line, maxBytes));
  const all = mine ? await Promise.all(mine.kept) : [];
  const kept = all.filter((pending) => pending !== undefined);
  const sandbox = kept[0]?.sandbox ?? await callSandbox(call.ctx).catch(() => undefined);
  if (!sandbox) return;
  const projectDir = kept[0]?.projectDir ??
    await cachedProjectDir(call.ctx.state.dir, sandbox.base);
  const entry = entryOf(call);
  if (kept.length > 0) {
    const changes: Change[] = [];
    const changed: PlannedWrite[] = [];
    const keep = { projectDir, budget: call.ctx.config.journal.undoBudgetBytes };
    let noUndo = kept.find((pending) => pending.noUndo)?.noUndo;
    for (const before of kept.flatMap((pending) => pending.before)) {
      const { path, state } = before;
      // The digest of what was written (remembered by the writer, else read): undo notices a
      // change made since.
      let now = (await pathState(sandbox, path).catch(() => undefined))?.state;
      if (now?.kind === "dir") {
        now = await treeAfter(before, sandbox, keep).catch((error) => {
          noUndo ??= `the directory tree ${sandbox.display(path)} could not be read: ${
            refusal(error)
          }`;
          return { kind: "dir" } as PathState;
        });
      }
      if (now && !same(state, now)) {
        changes.push({ path, before: state, after: now });
        changed.push(before.write);
      }
    }
    noUndo ??= movedOrRemoved(changes, changed, mine!);
    if (changes.length > 0) {
      entry.files = changes.map((c) => sandbox.display(c.path));
      entry.changes = changes;
      if (noUndo) entry.noUndo = noUndo;
    }
  }
  if (own) {
    entry.undid = own.undid;
    if (own.noUndo) entry.noUndo = own.noUndo;
    if (own.changes.length > 0) {
      entry.changes = own.changes;
      entry.files = own.changes.map((c) => sandbox.display(c.path));
    }
  }
  const file = journalPath(projectDir);
  if (observed?.files) entry.files = observed.files;
  if (observed?.changes) entry.changes = observed.changes;
  if (observed?.noUndo) entry.noUndo = observed.noUndo;
  // A change is in the file before the reply goes out: undo must know of every change the
  // client was told of. A call that changed nothing (refused, failed) is queued like any other.
  if (entry.changes || entry.files || own) await writer.write(file, entry, maxBytes);
  else writer.push(file, entry, maxBytes);
}

/**
 * Links a moved directory's destination to its source (undo renames it back), and checks that a
 * removed tree is the one kept: the tool shows the tree just before it removes it, and one that
 * differs from the kept tree's shape (or was not shown) is not undoable.
 */
function movedOrRemoved(
  changes: Change[],
  writes: PlannedWrite[],
  call: Journaling,
): string | undefined {
  for (const [i, write] of writes.entries()) {
    if (write.from === undefined) continue;
    const destination = changes[i];
    const source = changes[writes.findIndex((w) => w.to === write.path)];
    if (source && destination.after.kind === "tree" && source.after.kind === "absent") {
      destination.from = source.path;
    }
  }
  for (const [i, write] of writes.entries()) {
    const { before, path } = changes[i];
    if (write.kind !== "removes" || !write.tree) continue;
    if (before.kind === "tree" && before.content && call.removing.get(path) !== before.shape) {
      return "the directory tree changed between being kept and being deleted (another program " +
        "or call was writing in it)";
    }
  }
  return undefined;
}

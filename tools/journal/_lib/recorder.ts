/**
 * The journal's hook: before a destructive file tool runs, what undo needs of the paths its
 * arguments name is kept (content and mode of files, read through the sandbox); once any call
 * is over, one line is written to the project's journal: time, era, tool, arguments (bounded,
 * configured secrets masked), outcome, duration, and the files it changed. The reply of a call
 * that changed files waits until its line is in the file (a crash after the reply keeps it, and
 * with it undo); other calls' lines are queued and appended in batches (writer.ts), the reply
 * not waiting for them.
 */
import { sep } from "node:path";
import {
  defineToolHook,
  type FinishedCall,
  type Tool,
  type ToolContext,
} from "../../../mcp/tool.ts";
import { resolveEntry } from "../../_lib/entries.ts";
import { Sandbox } from "../../_lib/sandbox.ts";
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
import { lookBeforeRemoving } from "../../_lib/tree_witness.ts";
import { BatchWriter } from "./writer.ts";
import { entryOf } from "./entry_fields.ts";
import { endTurn, takeTurn } from "./path_turns.ts";
import { renameAfter } from "../../_lib/rename_gate.ts";
import { onDeclaredWrites } from "../../_lib/declared_writes.ts";

/**
 * Tools that change only the file their `path` names, by writing a new one and renaming it over
 * the old (write_file but in append mode): never the old file's content in place. Each must pass
 * `beforeRename: () => renameAllowed(args)` to writeFileAtomic: it starts before the snapshot
 * holds the old file, and a rename before that would leave undo the new content.
 */
const REPLACES = new Set(["write_file", "edit_file", "notebook_edit"]);

/** The arguments naming what each destructive file tool changes; `entry`: the link itself. */
const TARGETS: Record<string, { arg: string; entry?: boolean }[]> = {
  write_file: [{ arg: "path" }],
  edit_file: [{ arg: "path" }],
  notebook_edit: [{ arg: "path" }],
  delete_file: [{ arg: "path", entry: true }],
  create_directory: [{ arg: "path" }],
  move_file: [{ arg: "source", entry: true }, { arg: "destination", entry: true }],
  copy_file: [{ arg: "destination", entry: true }],
};

interface Pending {
  sandbox: Sandbox;
  projectDir: string;
  before: { path: string; state: PathState }[];
  noUndo?: string;
}

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
export function flushJournal(ms = 10_000): Promise<boolean> {
  return writer.flush(ms);
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
    file = Sandbox.of(ctx).then(
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
const reported = new WeakMap<
  Record<string, unknown>,
  { undid: string[]; changes: Change[]; noUndo?: string }
>();

/**
 * For undo: the entries it reversed and its own changes, journaled with its call; `noUndo` when
 * something it removed could not be kept (then it cannot be undone in turn).
 */
export function reportUndo(
  args: Record<string, unknown>,
  undid: string[],
  changes: Change[],
  noUndo?: string,
): void {
  reported.set(args, { undid, changes, noUndo });
}

/** What before() kept for a call, found again by its arguments object. */
const pending = new WeakMap<Record<string, unknown>, Promise<Pending | undefined>>();

export const journalHook = defineToolHook({
  name: "journal",
  before(tool: Tool, ctx: ToolContext, args: Record<string, unknown>) {
    if (!ctx.config.journal.enabled) return;
    if (!TARGETS[tool.name]) {
      // A destructive tool that names its files only while it runs declares them first.
      if (tool.annotations?.destructiveHint) {
        onDeclaredWrites(args, (paths) => {
          const kept = snapshot(paths.map((path) => ({ path })), ctx, () => {}).catch((error) => {
            ctx.log("warning", `journal: nothing kept for undo of ${tool.name}: ${error.message}`);
            return undefined;
          });
          pending.set(args, kept);
          return kept.then(() => {});
        });
      }
      return;
    }
    // A tool that replaces its one file by a rename leaves the old one whole under the
    // descriptor the snapshot holds: its rename waits until that is open (rename_gate.ts), the
    // copy going on beside it (finished() waits for it). Any other tool waits until everything
    // is kept.
    let opened: () => void = () => {};
    const early = REPLACES.has(tool.name) && args.mode !== "append"
      ? new Promise<void>((resolve) => (opened = resolve))
      : undefined;
    // Taken at once, so calls on one path keep the order they came in.
    const turn = takeTurn(args, TARGETS[tool.name].map((target) => target.arg));
    // Kept aside: a failure here must not refuse the call (it is only not undoable).
    const targets = TARGETS[tool.name].flatMap((target) => {
      const given = args[target.arg];
      return typeof given === "string"
        ? [{ path: given, entry: target.entry, tool: tool.name }]
        : [];
    });
    const kept = turn.ready.then(() => snapshot(targets, ctx, opened, args)).catch((error) => {
      ctx.log("warning", `journal: nothing kept for undo of ${tool.name}: ${error.message}`);
      return undefined;
    });
    pending.set(args, kept);
    const done = kept.then(() => {});
    if (!early) return done;
    const held = Promise.race([early, done]);
    // With no earlier call on its path, the tool starts now: what it reads there is what the
    // snapshot reads, and only its rename must wait. Otherwise it waits for its turn as well.
    if (!turn.free) return held;
    renameAfter(args, held);
  },
  finished(call: FinishedCall) {
    if (!call.ctx.config.journal.enabled) return;
    // The common call changed no file: its line is queued and nothing is awaited.
    if (!pending.has(call.args) && !reported.has(call.args)) {
      writer.push(journalOf(call.ctx), entryOf(call), call.ctx.config.journal.maxBytes);
      return;
    }
    return record(call).catch((error) => {
      call.ctx.log(
        "warning",
        `journal: ${call.tool.name} not recorded: ${(error as Error).message}`,
      );
    }).finally(() => endTurn(call.args));
  },
});

/** A path a call will change: `entry` means the link itself; `tool` for a tree it may delete. */
interface Target {
  path: string;
  entry?: boolean;
  tool?: string;
}

async function snapshot(
  targets: Target[],
  ctx: ToolContext,
  opened: () => void,
  args: Record<string, unknown> = {},
): Promise<Pending> {
  const sandbox = await Sandbox.of(ctx);
  const projectDir = await cachedProjectDir(ctx.state.dir, sandbox.base);
  const budget = ctx.config.journal.undoBudgetBytes;
  const result: Pending = { sandbox, projectDir, before: [] };
  for (const target of targets) {
    const given = target.path;
    const resolved = await resolveEntry(sandbox, given).catch(() => undefined);
    if (!resolved) continue;
    const path = target.entry ? resolved.entry : resolved.real;
    const { state, tooBig } = await pathState(
      sandbox,
      path,
      { projectDir, budget, opened, trustWritten: true },
      budget,
    );
    if (tooBig) result.noUndo = `${sandbox.display(path)} is larger than the undo budget`;
    if (state.kind === "dir" && target.tool) {
      const tree = await treeBefore(target.tool, sandbox, path, args, { projectDir, budget });
      if (typeof tree === "string") result.noUndo = tree;
      else if (tree) {
        result.before.push({ path, state: tree });
        continue;
      }
    }
    result.before.push({ path, state });
  }
  return result;
}

/**
 * What undo keeps of a directory a call is about to change: a tree to be deleted is kept whole,
 * within MAX_KEPT_ENTRIES and the budget. A string: why it is not undoable. Nothing for any
 * other directory: a tree moved is judged by what the move left (treeAfter), and a directory a
 * call adds to or replaces when empty needs nothing more.
 */
async function treeBefore(
  tool: string,
  sandbox: Sandbox,
  path: string,
  args: Record<string, unknown>,
  keep: Keep,
): Promise<TreeState | string | undefined> {
  const shown = sandbox.display(path);
  // A root, or a directory holding one, is never deleted or moved: the tool refuses it.
  if (sandbox.roots.some((root) => root === path || root.startsWith(path + sep))) return undefined;
  try {
    // Without recursive, delete_file refuses a directory: nothing to keep.
    if (tool === "delete_file" && args.recursive === true) {
      const { racy, ...kept } = await keepTree(sandbox, path, keep, {
        entries: MAX_KEPT_ENTRIES,
        bytes: keep.budget,
      });
      // The delete shows the tree just before it removes it: it must still be this one (files
      // changed within a tick before they were kept: by their content too).
      lookBeforeRemoving(args, async (dir) => {
        const seen = await shapeOfDir(dir, await statHeld(dir));
        for (const file of racy ?? []) {
          if ((await digestAt(dir, file.p)) !== file.s) return;
        }
        removing.set(args, seen.sha);
      });
      return kept;
    }
  } catch (error) {
    return `the directory tree ${shown} was not kept: ${refusal(error)}`;
  }
  return undefined;
}

/**
 * What a directory holds after a call: its shape when the call moved or copied a tree there, or
 * changed a kept tree (a delete that failed midway); plain otherwise (create_directory).
 */
async function treeAfter(
  tool: string,
  sandbox: Sandbox,
  path: string,
  before: PathState,
  keep: Keep,
): Promise<PathState> {
  if (tool !== "move_file" && tool !== "copy_file" && before.kind !== "tree") {
    return { kind: "dir" };
  }
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

async function record(call: FinishedCall): Promise<void> {
  const kept = await pending.get(call.args);
  pending.delete(call.args);
  const sandbox = kept?.sandbox ?? await Sandbox.of(call.ctx).catch(() => undefined);
  if (!sandbox) return;
  const projectDir = kept?.projectDir ??
    await cachedProjectDir(call.ctx.state.dir, sandbox.base);
  const entry = entryOf(call);
  if (kept) {
    const changes: Change[] = [];
    const keep = { projectDir, budget: call.ctx.config.journal.undoBudgetBytes };
    let noUndo = kept.noUndo;
    for (const { path, state } of kept.before) {
      // The digest of what was written (remembered by the writer, else read): undo notices a
      // change made since.
      let now = (await pathState(sandbox, path).catch(() => undefined))?.state;
      if (now?.kind === "dir") {
        now = await treeAfter(call.tool.name, sandbox, path, state, keep).catch((error) => {
          noUndo ??= `the directory tree ${sandbox.display(path)} could not be read: ${
            refusal(error)
          }`;
          return { kind: "dir" } as PathState;
        });
      }
      if (now && !same(state, now)) changes.push({ path, before: state, after: now });
    }
    noUndo ??= movedOrDeleted(call, changes);
    if (changes.length > 0) {
      entry.files = changes.map((c) => sandbox.display(c.path));
      entry.changes = changes;
      if (noUndo) entry.noUndo = noUndo;
    }
  }
  const own = reported.get(call.args);
  if (own) {
    reported.delete(call.args);
    entry.undid = own.undid;
    if (own.noUndo) entry.noUndo = own.noUndo;
    if (own.changes.length > 0) {
      entry.changes = own.changes;
      entry.files = own.changes.map((c) => sandbox.display(c.path));
    }
  }
  const file = journalPath(projectDir);
  const maxBytes = call.ctx.config.journal.maxBytes;
  // A change is in the file before the reply goes out: undo must know of every change the
  // client was told of. A call that changed nothing (refused, failed) is queued like any other.
  if (entry.changes) await writer.write(file, entry, maxBytes);
  else writer.push(file, entry, maxBytes);
}

/** The shape of the tree each delete_file call saw just before removing it. */
const removing = new WeakMap<Record<string, unknown>, string>();

/**
 * Links a moved directory's destination to its source (undo renames it back), and checks that a
 * deleted tree is the one kept: delete_file shows the tree just before it removes it, and one
 * that differs from the kept tree's shape (or was not shown) is not undoable.
 */
function movedOrDeleted(call: FinishedCall, changes: Change[]): string | undefined {
  if (call.tool.name === "move_file" && changes.length === 2) {
    const [source, destination] = changes;
    if (destination.after.kind === "tree" && source.after.kind === "absent") {
      destination.from = source.path;
    }
  }
  const seen = removing.get(call.args);
  removing.delete(call.args);
  if (call.tool.name === "delete_file" && changes.length === 1) {
    const [{ before }] = changes;
    if (before.kind === "tree" && before.content && seen !== before.shape) {
      return "the directory tree changed between being kept and being deleted (another program " +
        "or call was writing in it)";
    }
  }
  return undefined;
}

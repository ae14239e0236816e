/**
 * What a tool writes, declared beside its annotations, and what one call's hooks and its tool
 * hand each other about it through `ctx.writes`. The journal (undo), plan mode's gate and the
 * check against overwriting a file someone else changed act on the declaration, never on a
 * tool's name: a new writing tool is journaled, undoable and gated by declaring what it writes.
 * A call that writes paths takes its place in line on them when it arrives (path_turns.ts).
 */
import { takeTurn, type Turn } from "./path_turns.ts";

/**
 * How a call changes a path an argument names:
 * - `creates`: only adds (a directory and its parents); never replaces or removes anything.
 * - `replaces`: writes a new file beside it and renames it over the old one (or creates it): the
 *   old file stays whole until the rename, which waits for `ctx.writes.replacing()` (the edit
 *   transaction, tools/_lib/transaction/, does both).
 * - `changes`: changes it in place (an append), or creates it.
 * - `removes`: removes it: a file, a link, or with `tree` a whole directory tree.
 * - `receives`: puts something there whole, a copy of a file or a tree, over what was there when
 *   the tool allows that.
 * - `moves`: moves it to the path the argument `to` names (the source goes, the destination
 *   receives it; undo moves it back).
 */
export type WriteKind = "creates" | "replaces" | "changes" | "removes" | "receives" | "moves";

/** One argument naming a path the tool writes, and how. */
export interface PathWrite {
  /** The argument (a string) that names the path; a call that leaves it out writes nothing there. */
  readonly arg: string;
  readonly kind: WriteKind;
  /** The entry itself when it is a symlink (a delete, a move, a copy's destination), not its target. */
  readonly link?: boolean;
  /** For `removes`: the boolean argument that lets a call remove a whole directory tree. */
  readonly tree?: string;
  /** For `moves`: the argument naming where it goes. */
  readonly to?: string;
  /** Only for calls whose arguments pass this (write_file replaces unless it appends). */
  readonly when?: (args: Record<string, unknown>) => boolean;
}

/**
 * What a tool writes: declared next to its annotations in defineTool(). A tool marked
 * destructive declares something (a test says so), even if only `untracked`; a tool that is not
 * destructive declares only what adds (`creates`) or what it writes when an optional argument is
 * given (fetch_url's `save_to`).
 *
 * @example A tool that replaces the file its `path` names, and can be forced over a change
 * ```ts
 * writes: { paths: [{ arg: "path", kind: "replaces" }], force: "force" },
 * ```
 * @example A move: the entries themselves, not what links point to
 * ```ts
 * writes: { paths: [{ arg: "source", kind: "moves", to: "destination", link: true }] },
 * ```
 * @example A rename across files found while running: each is named before it changes
 * ```ts
 * writes: { atRunTime: true },
 * // in run(), through the edit transaction: await tx.name(files.map((path) => ({ path, kind: "replaces" })));
 * ```
 */
export interface ToolWrites {
  /** The arguments that name the paths a call writes. */
  readonly paths?: readonly PathWrite[];
  /**
   * The call writes paths it learns only while it runs (a symbol renamed across files): it names
   * them through `ctx.writes.willWrite()` before changing any, and the journal keeps them first.
   */
  readonly atRunTime?: boolean;
  /**
   * What the call changes that no hook can follow, in a phrase ("whatever the command writes",
   * "stops processes"): said so that declaring nothing is never an oversight.
   */
  readonly untracked?: string;
  /**
   * The call runs a command whose changes no declaration names: the journal compares the roots
   * before and after it (files created, changed, removed), journals the difference as the call's
   * change, and undo reverts it. A command that outlives its call (bash_background) says so
   * through tools/_lib/observed_command.ts.
   */
  readonly observed?: boolean;
  /**
   * The boolean argument that writes over a file changed since this session last read or wrote
   * it; without it such a write is refused, describing what changed.
   */
  readonly force?: string;
}

/** A path one call writes, as its arguments (or its tool, at run time) name it. */
export interface PlannedWrite {
  /** The path as given: relative to the first root or absolute, not yet resolved. */
  readonly path: string;
  /** A move's source `removes`, its destination `receives`. */
  readonly kind: Exclude<WriteKind, "moves">;
  /** The entry itself when it is a symlink, not its target. */
  readonly link: boolean;
  /** A whole directory tree may go (`removes` with its `tree` argument true). */
  readonly tree: boolean;
  /** A move's destination: the path (as given) it came from. */
  readonly from?: string;
  /** A move's source: the path (as given) it goes to. */
  readonly to?: string;
  /** The argument that named it; absent for a path named at run time. */
  readonly arg?: string;
  /**
   * Named at run time by a tool that keeps what the path held itself (undo, which restores what
   * it kept and keeps what it replaces): the hooks neither keep nor check it.
   */
  readonly kept?: boolean;
}

/** A path a tool names at run time, before changing it. */
export interface RunTimeWrite {
  readonly path: string;
  readonly kind: Exclude<WriteKind, "moves" | "receives">;
  readonly link?: boolean;
  /** The tool keeps what the path holds itself (see PlannedWrite.kept). */
  readonly kept?: boolean;
}

/** The kinds that only add: what a tool not marked destructive may do. */
export function onlyAdds(kind: WriteKind): boolean {
  return kind === "creates";
}

/**
 * The paths a call of a tool with this declaration writes, by its arguments: an argument that is
 * not a string names nothing, and an entry whose `when` says no is left out.
 *
 * @example
 * ```ts
 * plannedWrites({ paths: [{ arg: "source", kind: "moves", to: "destination", link: true }] },
 *   { source: "a", destination: "b" });
 * // [{ path: "a", kind: "removes", link: true, tree: false, to: "b", arg: "source" },
 * //  { path: "b", kind: "receives", link: true, tree: false, from: "a", arg: "destination" }]
 * ```
 */
export function plannedWrites(
  declared: ToolWrites | undefined,
  args: Record<string, unknown>,
): PlannedWrite[] {
  const planned: PlannedWrite[] = [];
  for (const write of declared?.paths ?? []) {
    const path = args[write.arg];
    if (typeof path !== "string" || (write.when && !write.when(args))) continue;
    const link = write.link === true;
    if (write.kind === "moves") {
      const to = write.to === undefined ? undefined : args[write.to];
      if (typeof to !== "string") {
        planned.push({ path, kind: "removes", link, tree: false, arg: write.arg });
      } else {
        planned.push({ path, kind: "removes", link, tree: false, to, arg: write.arg });
        planned.push({ path: to, kind: "receives", link, tree: false, from: path, arg: write.to });
      }
      continue;
    }
    const tree = write.kind === "removes" && write.tree !== undefined && args[write.tree] === true;
    planned.push({ path, kind: write.kind, link, tree, arg: write.arg });
  }
  return planned;
}

/** Whether a call with these arguments may write at all, by the tool's declaration. */
export function mayWrite(declared: ToolWrites | undefined, args: Record<string, unknown>): boolean {
  if (!declared) return false;
  return declared.atRunTime === true || declared.untracked !== undefined ||
    declared.observed === true ||
    plannedWrites(declared, args).length > 0;
}

/**
 * A named, typed place on `ctx.writes` for what a hook hands the tool of the same call, or the
 * tool hands back (delete_file's last look at a tree, what undo did). Made once, where both sides
 * can import it.
 *
 * @example
 * ```ts
 * export const lastLook = new Handoff<(dir: Dir) => Promise<void>>("last look at a tree");
 * ctx.writes.give(lastLook, async (dir) => { ... }); // the hook, before the call
 * await ctx.writes.take(lastLook)?.(dir); // the tool, just before it removes the tree
 * ```
 */
export class Handoff<T> {
  declare readonly _type: T;
  constructor(readonly name: string) {}
}

/** Something a hook does when a tool names paths at run time; it may refuse (throw). */
export type WillWriteListener = (writes: readonly PlannedWrite[]) => void | Promise<void>;

/**
 * One call's writes: what its tool declared, for its arguments, and the hand-offs between the
 * hooks around the call and the tool. Made per call (`ctx.writes`), so nothing is keyed by the
 * arguments object in a module global. Tools write through the edit transaction
 * (tools/_lib/transaction/), which names run-time paths and waits for `replacing()` itself.
 *
 * @example What the transaction does for a tool that replaces files it finds while running
 * ```ts
 * // The journal keeps each file for undo; a hook may refuse (the call then fails).
 * await ctx.writes.willWrite(edits.map((e) => ({ path: e.real, kind: "replaces" })));
 * // …each new file written beside its old one…
 * await ctx.writes.replacing(); // the journal holds the old one: the rename may go
 * ```
 */
export class CallWrites {
  readonly #declared: ToolWrites | undefined;
  readonly #args: Record<string, unknown>;
  #planned?: PlannedWrite[];
  #holds: Promise<unknown>[] = [];
  #listeners: WillWriteListener[] = [];
  #runTime: PlannedWrite[] = [];
  #handoffs?: Map<Handoff<unknown>, unknown>;
  #memos?: Map<Handoff<unknown>, unknown>;
  #turn?: Turn;

  constructor(declared: ToolWrites | undefined, args: Record<string, unknown>) {
    this.#declared = declared;
    this.#args = args;
  }

  /** What the tool declared. */
  get declared(): ToolWrites | undefined {
    return this.#declared;
  }

  /** The paths this call writes by its arguments (computed on first use). */
  get planned(): readonly PlannedWrite[] {
    return this.#planned ??= plannedWrites(this.#declared, this.#args);
  }

  /** The paths the tool named at run time so far. */
  get named(): readonly PlannedWrite[] {
    return this.#runTime;
  }

  /**
   * Takes the call's place in line on the paths it writes by its arguments, behind the calls on
   * them that came before (path_turns.ts): the catalog does, as the call arrives, so calls keep
   * the order they came in whatever their hooks wait for. Nothing for a call that writes none.
   */
  enterLine(): void {
    if (this.#turn || this.planned.length === 0) return;
    this.#turn = takeTurn(this.planned.map((write) => write.path));
  }

  /** The call's place in line, once it entered one: `ready` when the calls ahead have left. */
  get turn(): Pick<Turn, "ready" | "free"> | undefined {
    return this.#turn;
  }

  /**
   * Leaves the line: the next call on these paths may go. The journal does once the call's change
   * is recorded; the catalog does when the call is over, whatever happened.
   */
  leaveLine(): void {
    this.#turn?.end();
  }

  /**
   * What `make` gives, made once for this call and kept under `key`: what every hook and the tool
   * of one call share (the sandbox of the call, its write targets resolved once).
   */
  memo<T>(key: Handoff<T>, make: () => T): T {
    const memos = this.#memos ??= new Map();
    if (memos.has(key as Handoff<unknown>)) return memos.get(key as Handoff<unknown>) as T;
    const value = make();
    memos.set(key as Handoff<unknown>, value);
    return value;
  }

  // For hooks.

  /** The tool's renames over a replaced file wait until `ready` settles (the journal's copy). */
  holdReplacing(ready: Promise<unknown>): void {
    this.#holds.push(ready);
  }

  /** Runs `listener` each time the tool names paths at run time, before they change. */
  onWillWrite(listener: WillWriteListener): void {
    this.#listeners.push(listener);
  }

  /** Hands `value` to the other side of this call under `key`. */
  give<T>(key: Handoff<T>, value: T): void {
    (this.#handoffs ??= new Map()).set(key as Handoff<unknown>, value);
  }

  /** What was handed over under `key`, removed from here. */
  take<T>(key: Handoff<T>): T | undefined {
    const value = this.#handoffs?.get(key as Handoff<unknown>) as T | undefined;
    this.#handoffs?.delete(key as Handoff<unknown>);
    return value;
  }

  /** Whether something waits under `key`. */
  has(key: Handoff<unknown>): boolean {
    return this.#handoffs?.has(key) === true;
  }

  // For the edit transaction (tools/_lib/transaction/), on the tool's behalf.

  /**
   * Waits until the tool may rename its new file over the old one: the hooks that asked for the
   * old file whole (the journal, keeping it for undo) have it. The transaction waits for it
   * before every rename; no tool calls it.
   */
  async replacing(): Promise<void> {
    for (const hold of this.#holds) await hold.catch(() => {});
  }

  /**
   * Names paths the call is about to write, decided at run time (the tool declares `atRunTime`):
   * resolves once every hook has done what it needs first (the journal has kept them for undo);
   * rejects when a hook refuses, and then the tool writes none of them. The planned writes made
   * of them, in order.
   */
  async willWrite(writes: readonly RunTimeWrite[]): Promise<readonly PlannedWrite[]> {
    if (this.#declared?.atRunTime !== true) {
      throw new Error("willWrite() is for tools that declare writes: { atRunTime: true }");
    }
    const planned = writes.map((w): PlannedWrite => ({
      path: w.path,
      kind: w.kind,
      link: w.link === true,
      tree: false,
      ...(w.kept ? { kept: true } : {}),
    }));
    this.#runTime.push(...planned);
    for (const listener of this.#listeners) await listener(planned);
    return planned;
  }
}

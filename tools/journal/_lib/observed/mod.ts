/**
 * Commands' changes in the journal: before a call of a tool that declares `writes.observed` (bash,
 * bash_background, custom command tools), the roots are snapshotted; when its command ends, what
 * it created, changed, removed or renamed in them becomes the call's change, journaled in the
 * shape every tool's change has, so history lists it, the review app shows its diffs and undo
 * reverts it (all or nothing). The hook here begins the observation; the journal's recorder ends
 * it with the call (`commandChanges`), and writes the line.
 *
 * @example The recorder, when an observed call is over
 * ```ts
 * const seen = call.ctx.writes.take(commandChanges);
 * const observed = await seen?.finish(call, (file, line) => writer.write(file, line, maxBytes));
 * // observed: { files, changes, noUndo } for the call's line; its note is in the result already
 * ```
 */
import { defineShutdownHook } from "../../../../mcp/features/mod.ts";
import {
  defineToolHook,
  type FinishedCall,
  Handoff,
  type Tool,
  type ToolContext,
} from "../../../../mcp/tool/mod.ts";
import {
  type CommandOutcome,
  type CommandWatch,
  commandWatch,
} from "../../../_lib/observed_command.ts";
import { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { projectStateDir } from "../../../_lib/state.ts";
import { entryOf } from "../entry_fields.ts";
import { type Entry, journalPath, newId } from "../journal.ts";
import { Observation, type Observed } from "./observation.ts";
import { disposeWatched } from "./watched_roots.ts";

/** How the recorder ends an observed call. */
export interface CommandChanges {
  /**
   * Ends the observation with the call (or, for a command that goes on, once it ends): what the
   * call's journal line gets; the result has its note already. A command that goes on has its
   * own line written through `write` when it ends.
   */
  finish(call: FinishedCall, write: JournalWrite): Promise<Observed>;
}

export const commandChanges = new Handoff<CommandChanges>("the observation of a command");

/** Appends a line to a journal file (the recorder's writer). */
export type JournalWrite = (file: string, entry: Entry) => Promise<void>;

/** Commands that went on after their call and have not ended. */
const going = new Set<CallWatch>();
/** Lines of ended commands being recorded. */
const recording = new Set<Promise<void>>();

class CallWatch implements CommandChanges, CommandWatch {
  #continues?: { ended: Promise<CommandOutcome>; label: string };
  #recorded = false;
  #base?: Entry;
  #write?: JournalWrite;

  constructor(readonly observation: Observation) {}

  continuesUntil(ended: Promise<CommandOutcome>, label: string): void {
    this.#continues = { ended, label };
    this.observation.label = `${label} (${this.observation.label})`;
  }

  async finish(call: FinishedCall, write: JournalWrite): Promise<Observed> {
    const continues = this.#continues;
    if (!continues) {
      const observed = await this.observation.end();
      appendNote(call, observed.note);
      return observed;
    }
    this.#base = entryOf(call);
    this.#write = write;
    going.add(this);
    continues.ended.then((outcome) => this.record(outcome), () => this.record("error"));
    appendNote(
      call,
      `[what ${continues.label} changes in files is journaled when it ends: history, undo]`,
    );
    return { note: "" };
  }

  /** Journals the command's change as a line of its own, once. */
  record(outcome: CommandOutcome, note?: string): Promise<void> {
    if (this.#recorded || !this.#base || !this.#write) return Promise.resolve();
    this.#recorded = true;
    going.delete(this);
    const base = this.#base;
    const write = this.#write;
    const done = this.observation.end().then(async (observed) => {
      const entry: Entry = {
        ...base,
        id: newId(),
        time: new Date().toISOString(),
        outcome,
        ms: Date.now() - this.observation.since,
      };
      if (note) entry.args = { ...entry.args, ended: note };
      if (observed.files) entry.files = observed.files;
      if (observed.changes) entry.changes = observed.changes;
      if (observed.noUndo) entry.noUndo = observed.noUndo;
      await write(this.observation.journal, entry);
    }).catch((error) => {
      console.error(`journal: ${this.observation.label} not recorded: ${(error as Error).message}`);
    }).finally(() => recording.delete(done));
    recording.add(done);
    return done;
  }
}

/** The observation's words, after the call's own (a result that will not be sent is left). */
function appendNote(call: FinishedCall, note: string): void {
  if (note === "" || call.outcome === "cancelled") return;
  call.result.content.push({ type: "text", text: note });
}

/** Begins observing the roots for a call whose tool declares `writes.observed`. */
async function begin(tool: Tool, ctx: ToolContext): Promise<void> {
  // Without roots the command still runs (in the server's directory): nothing is observed.
  const sandbox = await Sandbox.of(ctx).catch(() => undefined);
  if (!sandbox) return;
  const projectDir = await projectStateDir(ctx.state.dir, sandbox.base);
  const observation = await Observation.begin(
    ctx,
    sandbox,
    projectDir,
    journalPath(projectDir),
    tool.name,
  );
  const watch = new CallWatch(observation);
  ctx.writes.give(commandChanges, watch);
  ctx.writes.give(commandWatch, watch);
}

export const observedHook = defineToolHook({
  name: "journal: commands",
  before(tool: Tool, ctx: ToolContext) {
    if (!ctx.config.journal.enabled || tool.writes?.observed !== true) return;
    return begin(tool, ctx).catch((error) => {
      ctx.log("warning", `journal: nothing observed for ${tool.name}: ${error.message}`);
    });
  },
});

/** Waits, at most `ms`, for the lines of commands that ended to be written (history, undo). */
export async function settleObserved(ms: number): Promise<void> {
  if (recording.size === 0) return;
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(recording),
    new Promise((resolve) => (timer = setTimeout(resolve, ms))),
  ]).finally(() => clearTimeout(timer));
}

/**
 * On an orderly stop: the commands still going (their processes killed just before, or left to
 * outlive the server) are recorded as they are now, then this server's private git directories
 * removed.
 */
export const observedShutdown = defineShutdownHook({
  name: "journal: commands still going",
  async run(ms) {
    const deadline = Date.now() + ms;
    await Promise.all([...going].map((watch) => watch.record("cancelled", "the server stopped")));
    await settleObserved(Math.max(0, deadline - Date.now()));
    await disposeWatched();
  },
});

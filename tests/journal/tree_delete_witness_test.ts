/**
 * The journal and delete_file together, in process: a tree kept for undo and then changed before
 * the delete removes it (here between the journal's hook and the tool's run; in life another
 * program or call) is deleted, but its entry says it is not undoable; a tree left alone is.
 */
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { defaultSettings } from "../../config/settings.ts";
import {
  CallWrites,
  type FinishedCall,
  SessionMemory,
  type Tool,
  type ToolContext,
} from "../../mcp/tool/mod.ts";
import deleteFile from "../../tools/files/delete_file.ts";
import { journalPath, readEntries } from "../../tools/journal/_lib/journal.ts";
import { flushJournal, journalHook } from "../../tools/journal/_lib/recorder.ts";
import { projectStateDir } from "../../tools/_lib/state.ts";
import { scratchDir } from "../helpers/file_tools.ts";

function context(root: string, state: string, args: Record<string, unknown>): ToolContext {
  return {
    writes: new CallWrites(deleteFile.writes, args),
    signal: new AbortController().signal,
    abortReason: () => undefined,
    onAbort: () => () => {},
    progress() {},
    log() {},
    roots: () => Promise.resolve([root]),
    config: defaultSettings(),
    state: { dir: state },
    session: new SessionMemory(),
  } as unknown as ToolContext;
}

/** Runs delete_file between the journal's hooks; `meanwhile` runs after the tree is kept. */
async function deleteWithJournal(root: string, state: string, meanwhile: () => void) {
  const args: Record<string, unknown> = { path: "tree", recursive: true };
  const ctx = context(root, state, args);
  const tool = deleteFile as unknown as Tool;
  await journalHook.before!(tool, ctx, args);
  meanwhile();
  const result = await (tool.run as (a: unknown, c: ToolContext) => Promise<unknown>)(args, ctx);
  const call = {
    tool,
    ctx,
    args,
    result: { content: [], ...(result as object) },
    outcome: "ok",
    durationMs: 1,
    era: "modern",
  } as unknown as FinishedCall;
  await journalHook.finished!(call);
  await flushJournal();
  const entries = await readEntries(journalPath(await projectStateDir(state, root)));
  return entries.find((e) => e.tool === "delete_file")!;
}

function makeTree(root: string) {
  mkdirSync(join(root, "tree/sub"), { recursive: true });
  writeFileSync(join(root, "tree/a.txt"), "a\n");
  writeFileSync(join(root, "tree/sub/b.txt"), "b\n");
}

test("a tree left alone between being kept and deleted is undoable", async () => {
  const root = scratchDir("toolhost-witness-");
  makeTree(root);
  const entry = await deleteWithJournal(root, scratchDir("toolhost-witness-state-"), () => {});
  assert.equal(entry.noUndo, undefined);
  assert.equal(entry.changes![0].before.kind, "tree");
});

test("a tree changed between being kept and deleted is deleted and said not undoable", async () => {
  for (
    const change of [
      (root: string) => writeFileSync(join(root, "tree/sub/b.txt"), "B\n"), // same size
      (root: string) => writeFileSync(join(root, "tree/late.txt"), ""),
    ]
  ) {
    const root = scratchDir("toolhost-witness-");
    makeTree(root);
    const entry = await deleteWithJournal(
      root,
      scratchDir("toolhost-witness-state-"),
      () => change(root),
    );
    assert.match(entry.noUndo ?? "", /changed between being kept and being deleted/);
  }
});

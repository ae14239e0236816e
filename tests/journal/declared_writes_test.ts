/**
 * A writing tool no hook knows by name is journaled, undoable and refused by plan mode because it
 * declares what it writes and writes through the edit transaction: one whose argument names the
 * file, and one that finds its files while running (as a rename across files would) and names
 * them through the transaction. One that writes a path it did not declare is refused.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { defineTool, type Tool } from "../../mcp/tool/mod.ts";
import { CHANGES_FILES } from "../../tools/_lib/declarations/annotations.ts";
import { type Transaction, transaction } from "../../tools/_lib/transaction/mod.ts";
import { journalHook } from "../../tools/journal/_lib/recorder.ts";
import undo from "../../tools/journal/undo.ts";
import { planMode } from "../../tools/workflow/plan_mode.ts";
import { planGate } from "../../tools/workflow/_lib/plan_gate.ts";
import { type Harness, harness } from "../helpers/in_process.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { scratchStateDir } from "../helpers/state_dir.ts";
import { callTool } from "../helpers/tool_calls.ts";

scratchStateDir();

const rules = { tool: "shout", instead: "use bash instead" };

async function shout(tx: Transaction, path: string): Promise<void> {
  const file = await tx.readText(await tx.target(path), rules);
  await tx.replace(file, file.encode(file.text.toUpperCase()));
}

const shoutFile = defineTool({
  name: "shout_file",
  description: "Rewrites the file `path` names in upper case (a test tool).",
  annotations: CHANGES_FILES,
  writes: { paths: [{ arg: "path", kind: "replaces" }] },
  input: {
    type: "object",
    properties: { path: { type: "string" } },
    required: ["path"],
    additionalProperties: false,
  },
  run(args, ctx) {
    return transaction(ctx, async (tx) => {
      await shout(tx, args.path);
      return "shouted";
    });
  },
});

const shoutElsewhere = defineTool({
  name: "shout_elsewhere",
  description: "Declares it replaces `path`, and writes `other` instead (a faulty test tool).",
  annotations: CHANGES_FILES,
  writes: { paths: [{ arg: "path", kind: "replaces" }] },
  input: {
    type: "object",
    properties: { path: { type: "string" }, other: { type: "string" } },
    required: ["path", "other"],
    additionalProperties: false,
  },
  run(args, ctx) {
    return transaction(ctx, async (tx) => {
      await shout(tx, args.other);
      return "shouted";
    });
  },
});

const shoutListed = defineTool({
  name: "shout_listed",
  description: "Rewrites in upper case every file the file `list` names (a test tool).",
  annotations: CHANGES_FILES,
  writes: { atRunTime: true },
  input: {
    type: "object",
    properties: { list: { type: "string" } },
    required: ["list"],
    additionalProperties: false,
  },
  run(args, ctx) {
    return transaction(ctx, async (tx) => {
      const { real } = await tx.sandbox.resolve(args.list);
      const paths = readFileSync(real, "utf8").split("\n").filter(Boolean);
      const targets = await tx.name(paths.map((path) => ({ path, kind: "replaces" })));
      for (const target of targets) {
        const file = await tx.readText(target, rules);
        await tx.replace(file, file.encode(file.text.toUpperCase()));
      }
      return `shouted ${paths.length}`;
    });
  },
});

/** A connection offering the test's tools, with the journal and plan mode's gate. */
function server(root: string): Harness {
  const tools = [shoutFile, shoutListed, shoutElsewhere, undo, planMode] as Tool[];
  return harness(tools, undefined, { fixed: [root], fallback: [root] }, {
    hooks: [journalHook, planGate],
  });
}

test("a tool declaring that it replaces its `path` is journaled and undone", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "quiet\n");
  const h = server(root);
  assert.equal((await callTool(h, "shout_file", { path: "a.txt" })).text, "shouted");
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "QUIET\n");
  const undone = await callTool(h, "undo", {});
  assert.equal(undone.isError, false, undone.text);
  assert.match(undone.text, /shout_file/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "quiet\n");
});

test("a tool naming its files at run time has each kept, and one undo restores them all", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "one\n");
  writeFileSync(join(root, "b.txt"), "two\n");
  writeFileSync(join(root, "list"), "a.txt\nb.txt\n");
  const h = server(root);
  assert.equal((await callTool(h, "shout_listed", { list: "list" })).text, "shouted 2");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "TWO\n");
  const undone = await callTool(h, "undo", {});
  assert.equal(undone.isError, false, undone.text);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\n");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "two\n");
});

test("plan mode refuses a declared writer, whatever its name", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "quiet\n");
  const h = server(root);
  assert.equal((await callTool(h, "plan_mode", { action: "enter", goal: "g" })).isError, false);
  const refused = await callTool(h, "shout_file", { path: "a.txt" });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^shout_file was refused: plan mode is on/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "quiet\n");
  await callTool(h, "plan_mode", { action: "exit" });
});

test("a tool that writes a path it did not declare is refused, and nothing is written", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "declared\n");
  writeFileSync(join(root, "b.txt"), "not declared\n");
  const h = server(root);
  const refused = await callTool(h, "shout_elsewhere", { path: "a.txt", other: "b.txt" });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^b\.txt is not a path this call declared it writes/);
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "not declared\n");
  // Nothing was changed, so nothing is there to undo.
  assert.match((await callTool(h, "undo", {})).text, /no file change of this session/);
});

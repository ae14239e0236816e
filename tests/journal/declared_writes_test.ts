/**
 * A writing tool no hook knows by name is journaled, undoable and refused by plan mode because it
 * declares what it writes: one whose argument names the file, and one that finds its files while
 * running (as a rename across files would) and names them through ctx.writes.willWrite().
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { defineTool, type Tool, type ToolContext } from "../../mcp/tool/mod.ts";
import { writeFileAtomic } from "../../tools/_lib/sandbox/_atomic_write.ts";
import { CHANGES_FILES } from "../../tools/_lib/declarations/annotations.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { journalHook } from "../../tools/journal/_lib/recorder.ts";
import undo from "../../tools/journal/undo.ts";
import { planMode } from "../../tools/workflow/plan_mode.ts";
import { planGate } from "../../tools/workflow/_lib/plan_gate.ts";
import { harness } from "../helpers/in_process.ts";
import { modern } from "../helpers/raw_client.ts";
import { scratchDir } from "../helpers/file_tools.ts";
import { scratchStateDir } from "../helpers/state_dir.ts";

scratchStateDir();

async function shout(ctx: ToolContext, path: string): Promise<void> {
  const sandbox = await Sandbox.of(ctx);
  const { real } = await sandbox.resolve(path);
  const text = readFileSync(real, "utf8").toUpperCase();
  await writeFileAtomic(real, new TextEncoder().encode(text), sandbox, {
    digest: true,
    beforeRename: () => ctx.writes.replacing(),
  });
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
  async run(args, ctx) {
    await shout(ctx, args.path);
    return "shouted";
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
  async run(args, ctx) {
    const sandbox = await Sandbox.of(ctx);
    const { real } = await sandbox.resolve(args.list);
    const paths = readFileSync(real, "utf8").split("\n").filter(Boolean);
    await ctx.writes.willWrite(paths.map((path) => ({ path, kind: "replaces" })));
    for (const path of paths) await shout(ctx, path);
    return `shouted ${paths.length}`;
  },
});

function server(root: string) {
  const tools = [shoutFile, shoutListed, undo, planMode] as Tool[];
  const h = harness(tools, undefined, { fixed: [root], fallback: [root] }, {
    hooks: [journalHook, planGate],
  });
  let id = 1;
  return async (name: string, args: Record<string, unknown>) => {
    const reply = await h.request(id++, "tools/call", modern({ name, arguments: args }));
    if (!reply.result) throw new Error(JSON.stringify(reply.error));
    const result = reply.result as { content: { text: string }[]; isError?: boolean };
    return { text: result.content[0].text, isError: result.isError === true };
  };
}

test("a tool declaring that it replaces its `path` is journaled and undone", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "quiet\n");
  const call = server(root);
  assert.equal((await call("shout_file", { path: "a.txt" })).text, "shouted");
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "QUIET\n");
  const undone = await call("undo", {});
  assert.equal(undone.isError, false, undone.text);
  assert.match(undone.text, /shout_file/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "quiet\n");
});

test("a tool naming its files at run time has each kept, and one undo restores them all", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "one\n");
  writeFileSync(join(root, "b.txt"), "two\n");
  writeFileSync(join(root, "list"), "a.txt\nb.txt\n");
  const call = server(root);
  assert.equal((await call("shout_listed", { list: "list" })).text, "shouted 2");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "TWO\n");
  const undone = await call("undo", {});
  assert.equal(undone.isError, false, undone.text);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "one\n");
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "two\n");
});

test("plan mode refuses a declared writer, whatever its name", async () => {
  const root = scratchDir("toolhost-declared-");
  writeFileSync(join(root, "a.txt"), "quiet\n");
  const call = server(root);
  assert.equal((await call("plan_mode", { action: "enter", goal: "g" })).isError, false);
  const refused = await call("shout_file", { path: "a.txt" });
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^shout_file was refused: plan mode is on/);
  assert.equal(readFileSync(join(root, "a.txt"), "utf8"), "quiet\n");
  await call("plan_mode", { action: "exit" });
});

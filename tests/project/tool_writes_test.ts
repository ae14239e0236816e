/**
 * Every tool says what it writes (mcp/tool/writes.ts), since the journal, undo and plan mode act
 * on that alone: a destructive tool that declares nothing would be neither undoable nor known, and
 * a tool that declares writes without being destructive would slip past --read-only's promise.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { sortContributions } from "../../mcp/features/mod.ts";
import { onlyAdds, type Tool } from "../../mcp/tool/mod.ts";
import { customTools } from "../../tools/shell/_lib/custom_tools.ts";
import { toolModules } from "../../tools/mod.ts";

const OPTIONS = { outputChars: 30_000, maxTimeoutMs: 600_000 };

/** Every built-in tool, and a custom command tool of each kind. */
function allTools(): Tool[] {
  return [
    ...sortContributions(toolModules).tools,
    ...customTools({
      destructive_command: { description: "d", command: ["true"] },
      harmless_command: { description: "h", command: ["true"], destructive: false },
    }, OPTIONS),
  ];
}

function declaresSomething(tool: Tool): boolean {
  const writes = tool.writes;
  return writes !== undefined &&
    ((writes.paths?.length ?? 0) > 0 || writes.atRunTime === true ||
      writes.untracked !== undefined);
}

test("every tool marked destructive declares what it writes", () => {
  const silent = allTools().filter((tool) =>
    tool.annotations?.destructiveHint === true && !declaresSomething(tool)
  );
  assert.deepEqual(
    silent.map((tool) => tool.name),
    [],
    "declare `writes` next to the annotations (mcp/tool/writes.ts): the paths, atRunTime, or " +
      "untracked",
  );
});

test("a tool not marked destructive declares only what adds, or writes behind an optional argument", () => {
  const wrong: string[] = [];
  for (const tool of allTools()) {
    if (tool.annotations?.destructiveHint === true || !tool.writes) continue;
    const required = new Set((tool.input.required as string[] | undefined) ?? []);
    if (tool.writes.atRunTime || tool.writes.untracked !== undefined) wrong.push(tool.name);
    for (const write of tool.writes.paths ?? []) {
      const conditional = write.when !== undefined || !required.has(write.arg);
      if (!onlyAdds(write.kind) && !conditional) wrong.push(`${tool.name} (${write.arg})`);
    }
  }
  assert.deepEqual(wrong, [], "mark the tool destructive, or make what it writes conditional");
});

test("what a tool declares names its own arguments", () => {
  for (const tool of allTools()) {
    const properties = (tool.input.properties ?? {}) as Record<string, unknown>;
    const named = [
      ...(tool.writes?.paths ?? []).flatMap((w) => [w.arg, w.to, w.tree]),
      tool.writes?.force,
    ].filter((arg) => arg !== undefined);
    for (const arg of named) {
      assert.ok(
        arg! in properties,
        `${tool.name} declares a write through ${arg}, not an argument`,
      );
    }
  }
});

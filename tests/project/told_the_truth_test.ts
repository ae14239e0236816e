/**
 * The model is told only the truth: under every profile (and --read-only), the server
 * instructions and every tool's description (its arguments' and output's descriptions too) name
 * only tools the session offers; a description that names another tool says it only where that
 * tool is offered. And every tool has a title and an output schema.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { defaultSettings, type Settings } from "../../config/settings.ts";
import type { Tool } from "../../mcp/tool/mod.ts";
import { assemble } from "../../tools/_catalog/assemble.ts";
import { serverInstructions } from "../../tools/_catalog/instructions.ts";
import { PROFILES } from "../../tools/_catalog/profiles.ts";

/** Every description in a schema, at any depth. */
function schemaTexts(schema: unknown, out: string[] = []): string[] {
  if (Array.isArray(schema)) { for (const item of schema) schemaTexts(item, out); }
  else if (schema && typeof schema === "object") {
    for (const [key, value] of Object.entries(schema)) {
      if (key === "description" && typeof value === "string") out.push(value);
      else schemaTexts(value, out);
    }
  }
  return out;
}

/** The tool names `text` mentions, as a word (not part of a path, a flag or a longer name). */
function mentions(text: string, names: readonly string[]): string[] {
  return names.filter((name) => new RegExp(`(?<![\\w/.-])${name}(?![\\w/-])`).test(text));
}

const settingsFor = (profile: Settings["toolsProfile"], readOnly = false): Settings => ({
  ...defaultSettings(),
  toolsProfile: profile,
  readOnly,
});

const cases: [string, Settings][] = [
  ...PROFILES.map((profile): [string, Settings] => [`profile ${profile}`, settingsFor(profile)]),
  ["--read-only", settingsFor("full", true)],
];

for (const [label, settings] of cases) {
  test(`${label}: the instructions and every description name only tools it offers`, async () => {
    const every = (await assemble(settingsFor("full"))).tools.map((tool) => tool.name);
    const { tools } = await assemble(settings);
    const offered = new Set(tools.map((tool) => tool.name));
    const absent = every.filter((name) => !offered.has(name));
    const wrong: string[] = [];
    const check = (where: string, text: string, own: readonly string[] = []) => {
      // A tool's own argument named like a tool (grep's `glob`) is its argument.
      const named = mentions(text, absent).filter((name) => !own.includes(name));
      if (named.length) wrong.push(`${where} names ${named.join(", ")}: ${text}`);
    };
    check("the instructions", serverInstructions(tools));
    for (const tool of tools) {
      const own = Object.keys((tool.input.properties ?? {}) as Record<string, unknown>);
      for (
        const text of [tool.description, ...schemaTexts(tool.input), ...schemaTexts(tool.output)]
      ) {
        check(tool.name, text, own);
      }
    }
    assert.deepEqual(wrong, [], `${label} offers ${[...offered].join(", ")}`);
  });
}

test("a description that names a tool says so where that tool is offered", async () => {
  const full = new Map((await assemble(settingsFor("full"))).tools.map((t) => [t.name, t]));
  const instructions = serverInstructions([...full.values()]);
  for (const name of ["bash", "bash_background", "read_file", "edit_file", "history", "undo"]) {
    assert.match(instructions, new RegExp(`\\b${name}\\b`), `full's instructions omit ${name}`);
  }
  assert.match(full.get("history")!.description, /\bundo\b/);
  assert.match(full.get("edit_file")!.description, /\bwrite_file\b/);
  assert.match(full.get("create_directory")!.description, /write_file, copy_file and move_file/);
});

test("every tool has a title and an output schema; the journal's tools describe each argument", async () => {
  const settings: Settings = settingsFor("full");
  const { tools } = await assemble(settings);
  const untitled = tools.filter((tool: Tool) => !tool.title).map((tool) => tool.name);
  const unshaped = tools.filter((tool: Tool) => !tool.output).map((tool) => tool.name);
  assert.deepEqual({ untitled, unshaped }, { untitled: [], unshaped: [] });
  for (const tool of tools.filter((t) => ["history", "undo", "history_changes"].includes(t.name))) {
    const properties = Object.entries(
      (tool.input.properties ?? {}) as Record<string, { description?: string }>,
    );
    assert.ok(properties.length > 0, tool.name);
    for (const [name, property] of properties) {
      assert.ok(property.description, `${tool.name}.${name} has no description`);
    }
  }
  const history = tools.find((tool) => tool.name === "history")!;
  assert.ok("until" in (history.input.properties as Record<string, unknown>), "history's until");
});

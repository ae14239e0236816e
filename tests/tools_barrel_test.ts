/** "Drop a module into tools/" stays true: the generated barrel is fresh and names are unique. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sortContributions } from "../mcp/contribution.ts";
import { TOOL_NAME } from "../mcp/tool.ts";
import { BARREL, renderBarrel, toolFiles } from "../scripts/gen.ts";
import { toolModules } from "../tools/mod.ts";
import { ROOT } from "./helpers/raw_client.ts";

test("tools/mod.ts imports exactly the modules in tools/ (run `deno task gen` if this fails)", () => {
  assert.equal(
    readFileSync(BARREL, "utf8"),
    renderBarrel(toolFiles()),
    "tools/mod.ts is stale: a tool module was added, renamed or removed. Run `deno task gen`.",
  );
});

test("every tool has a valid, unique name and an object input schema", () => {
  const { tools } = sortContributions(toolModules);
  assert.ok(tools.length > 0);
  const seen = new Map<string, number>();
  for (const tool of tools) {
    assert.match(tool.name, TOOL_NAME);
    assert.equal(tool.input.type, "object", `${tool.name} input schema must be an object schema`);
    assert.ok(tool.description.length > 20, `${tool.name} needs a real description`);
    seen.set(tool.name, (seen.get(tool.name) ?? 0) + 1);
  }
  const duplicates = [...seen].filter(([, n]) => n > 1).map(([name]) => name);
  assert.deepEqual(
    duplicates,
    [],
    `two tool modules export the same name: ${duplicates.join(", ")}`,
  );
});

test("every tool's schemas are valid JSON Schema 2020-12, without unknown keywords", async () => {
  // The server skips meta-schema checks at run time (memory); this strict instance does them.
  const { default: ajvModule } = await import("ajv/dist/2020.js");
  const ajv = new ajvModule.default({ strict: true, allowUnionTypes: true });
  for (const tool of sortContributions(toolModules).tools) {
    for (const schema of [tool.input, tool.output].filter(Boolean)) {
      assert.doesNotThrow(() => ajv.compile(schema!), `${tool.name}: invalid schema`);
    }
  }
});

test("the resources, templates and prompts in tools/ belong to tools that exist", () => {
  const { tools, resources, templates, prompts } = sortContributions(toolModules);
  const names = new Set(tools.map((tool) => tool.name));
  for (const item of [...resources, ...templates, ...prompts]) {
    if (item.requires) assert.ok(names.has(item.requires), `no tool ${item.requires}`);
  }
  assert.deepEqual(resources.map((r) => r.uri).sort(), ["toolhost://plan", "toolhost://tasks"]);
  assert.deepEqual(templates.map((t) => t.uriTemplate).sort(), [
    "file:///{+path}",
    "toolhost://processes/{id}/output",
    "toolhost://skills/{name}",
  ]);
});

test("the generator picks tool modules only, and its barrel compiles whatever the file names", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-barrel-"));
  try {
    const tools = join(dir, "tools");
    mkdirSync(tools);
    mkdirSync(join(dir, "mcp"));
    writeFileSync(
      join(dir, "mcp", "contribution.ts"),
      "export interface Contribution { name: string }\n",
    );
    const tool = (name: string) => `export default { name: ${JSON.stringify(name)} };\n`;
    for (const file of ["delete.ts", "a-b.ts", "a_b.ts", "9lives.ts"]) {
      writeFileSync(join(tools, file), tool(file));
    }
    for (const file of ["_helper.ts", "x_test.ts", "mod.ts", "notes.md"]) {
      writeFileSync(join(tools, file), "this would not compile\n");
    }
    const files = toolFiles(tools);
    assert.deepEqual(files, ["9lives.ts", "a-b.ts", "a_b.ts", "delete.ts"]);
    writeFileSync(join(tools, "mod.ts"), renderBarrel(files));
    const check = spawnSync(`${ROOT}node_modules/.bin/deno`, ["check", join(tools, "mod.ts")], {
      encoding: "utf8",
    });
    assert.equal(check.status, 0, check.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** "Drop a module into tools/" stays true: the generated barrel is fresh and names are unique. */
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { TOOL_NAME } from "../mcp/tool.ts";
import { toolModules as loaded } from "../tools/mod.ts";
import { BARREL, renderBarrel, toolModules } from "../scripts/gen.ts";

test("tools/mod.ts imports exactly the modules in tools/ (run `deno task gen` if this fails)", () => {
  const expected = renderBarrel(toolModules());
  const actual = readFileSync(BARREL, "utf8");
  assert.equal(
    actual,
    expected,
    "tools/mod.ts is stale: a tool module was added, renamed or removed. Run `deno task gen`.",
  );
});

test("every tool has a valid, unique name and an object input schema", () => {
  const tools = loaded.flat();
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
  for (const tool of loaded.flat()) {
    for (const schema of [tool.input, tool.output].filter(Boolean)) {
      assert.doesNotThrow(() => ajv.compile(schema!), `${tool.name}: invalid schema`);
    }
  }
});

test("the generator skips helpers, tests and the barrel itself", () => {
  const text = renderBarrel(["a_b.ts", "z.ts"]);
  assert.match(text, /import a_b from "\.\/a_b\.ts";/);
  for (const name of toolModules()) {
    assert.ok(!name.startsWith("_") && name !== "mod.ts" && !name.endsWith("_test.ts"));
  }
});

/** "Drop a module into a family folder of tools/" stays true: the generated barrel is fresh and names are unique. */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { sortContributions } from "../../mcp/features/mod.ts";
import { TOOL_NAME } from "../../mcp/tool/mod.ts";
import { BARREL, renderBarrel, toolFiles } from "../../scripts/gen.ts";
import { toolModules } from "../../tools/mod.ts";
import { DENO } from "../../scripts/toolchain.ts";
import { renderReviewPageModule, REVIEW_PAGE_MODULE } from "../../scripts/gen_review_app.ts";

test("tools/mod.ts imports exactly the modules in tools/<family>/ (run `deno task gen` if this fails)", () => {
  assert.equal(
    readFileSync(BARREL, "utf8"),
    renderBarrel(toolFiles()),
    "tools/mod.ts is stale: a tool module was added, renamed or removed. Run `deno task gen`.",
  );
});

test("the review app's page module is built from its sources (run `deno task gen` if this fails)", () => {
  assert.equal(
    readFileSync(REVIEW_PAGE_MODULE, "utf8"),
    renderReviewPageModule(),
    "tools/journal/_lib/review_app/page.generated.ts is stale: app.html, app.css or app.js " +
      "changed. Run `deno task gen`.",
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

test("the resources, templates, prompts and extensions in tools/ belong to tools that exist", () => {
  const { tools, resources, templates, prompts, extensions } = sortContributions(toolModules);
  const names = new Set(tools.map((tool) => tool.name));
  for (const item of [...resources, ...templates, ...prompts, ...extensions]) {
    if (item.requires) assert.ok(names.has(item.requires), `no tool ${item.requires}`);
  }
  assert.deepEqual(resources.map((r) => r.uri).sort(), [
    "toolhost://history",
    "toolhost://plan",
    "toolhost://processes",
    "toolhost://tasks",
    "ui://toolhost/review",
  ]);
  assert.deepEqual(templates.map((t) => t.uriTemplate).sort(), [
    "file:///{+path}",
    "skill://{name}/{+path}",
    "toolhost://processes/{id}/output",
    "toolhost://skills/{name}",
  ]);
  assert.deepEqual(extensions.map((e) => e.id).sort(), [
    "io.modelcontextprotocol/skills",
    "io.modelcontextprotocol/ui",
  ]);
});

test("the generator picks the family folders' modules only, and its barrel compiles", () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-barrel-"));
  try {
    const tools = join(dir, "tools");
    for (const folder of ["files", "web", "_lib", "_catalog", "files/_lib"]) {
      mkdirSync(join(tools, folder), { recursive: true });
    }
    mkdirSync(join(dir, "mcp", "features"), { recursive: true });
    writeFileSync(
      join(dir, "mcp", "features", "mod.ts"),
      "export interface Contribution { name: string }\n",
    );
    const tool = (name: string) => `export default { name: ${JSON.stringify(name)} };\n`;
    for (const file of ["files/delete.ts", "files/a-b.ts", "web/a_b.ts", "web/9lives.ts"]) {
      writeFileSync(join(tools, file), tool(file));
    }
    const notModules = [
      "files/_helper.ts",
      "files/x_test.ts",
      "files/notes.md",
      "_lib/shared.ts",
      "files/_lib/private.ts",
      "assemble.ts",
      "_catalog/assemble.ts",
    ];
    for (const file of notModules) writeFileSync(join(tools, file), "this would not compile\n");
    const files = toolFiles(tools);
    assert.deepEqual(files, ["files/a-b.ts", "files/delete.ts", "web/9lives.ts", "web/a_b.ts"]);
    writeFileSync(join(tools, "mod.ts"), renderBarrel(files));
    const check = spawnSync(DENO, ["check", join(tools, "mod.ts")], {
      encoding: "utf8",
    });
    assert.equal(check.status, 0, check.stderr);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/**
 * The built-in tools' validators compiled ahead of time (tools/_catalog/validators) are fresh,
 * answer as Ajv compiling the schema at run time does (so the messages are the same), and are
 * used for exactly the schemas they were made from.
 */
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import type { ValidateFunction } from "ajv";
import { sortContributions } from "../../mcp/features/mod.ts";
import { validatorFor } from "../../mcp/tool/schema/schema.ts";
import {
  AJV_OPTIONS,
  dialectOf,
  type JsonSchema,
  schemaFingerprint,
} from "../../mcp/tool/schema/ajv_options.ts";
import { renderToolValidators, VALIDATORS_DIR } from "../../scripts/gen_tool_validators.ts";
import { precompiledValidators } from "../../tools/_catalog/validators/index.generated.ts";
import { toolModules } from "../../tools/mod.ts";

const tools = sortContributions(toolModules).tools;

test("the precompiled tool validators match the tools' schemas (run `deno task gen` if this fails)", () => {
  const expected = renderToolValidators(tools);
  const present = readdirSync(VALIDATORS_DIR).sort();
  assert.deepEqual(
    present,
    [...expected.keys()].sort(),
    "tools/_catalog/validators/ holds other files than the tools' schemas need. Run `deno task gen`.",
  );
  for (const [name, text] of expected) {
    assert.equal(
      readFileSync(join(VALIDATORS_DIR, name), "utf8"),
      text,
      `tools/_catalog/validators/${name} is stale: a tool's schema changed. Run \`deno task gen\`.`,
    );
  }
});

/** Values that break a schema in many ways: each field given each kind of value. */
function probes(schema: JsonSchema): unknown[] {
  const kinds = [12345, -1, 1.5, "x", "", "y".repeat(5000), true, null, [], [{}], [1, 1], {}, {
    zz_unknown: 1,
  }];
  const values: unknown[] = [{}, { zz_unknown: 1 }, null, "text", [], 7];
  const properties = Object.keys((schema.properties ?? {}) as Record<string, unknown>);
  for (const name of properties) {
    for (const kind of kinds) values.push({ [name]: kind });
    // All fields at once, each wrong the same way: the errors of several fields together.
    values.push(Object.fromEntries(properties.map((p) => [p, [{}]])));
  }
  return values;
}

test("each precompiled validator gives the errors Ajv gives at run time, so the same messages", async () => {
  const { default: ajv2020 } = await import("ajv/dist/2020.js");
  const { default: ajv07 } = await import("ajv");
  const ajv = {
    "2020-12": new ajv2020.default(AJV_OPTIONS),
    "draft-07": new ajv07.default(AJV_OPTIONS),
  };
  let compared = 0;
  for (const tool of tools) {
    for (const schema of [tool.input, tool.output]) {
      if (!schema) continue;
      const load = precompiledValidators[schemaFingerprint(schema)];
      assert.ok(load, `${tool.name}: no precompiled validator for its schema`);
      const ahead = (await load()).default as ValidateFunction;
      const runtime = ajv[dialectOf(schema)].compile(schema);
      for (const value of probes(schema)) {
        const verdict = runtime(value);
        assert.equal(ahead(value), verdict, `${tool.name}: ${JSON.stringify(value).slice(0, 80)}`);
        assert.deepEqual(ahead.errors ?? null, runtime.errors ?? null, tool.name);
        compared++;
      }
    }
  }
  assert.ok(compared > 500, `only ${compared} values compared`);
});

test("a schema that differs from a built-in one in anything is compiled, not given the built-in validator", async () => {
  const readFile = tools.find((tool) => tool.name === "read_file")!;
  const schema = readFile.input as JsonSchema;
  const properties = schema.properties as Record<string, JsonSchema>;
  assert.ok(precompiledValidators[schemaFingerprint(schema)]);
  const narrowed = {
    ...schema,
    properties: { ...properties, path: { ...properties.path, maxLength: 3 } },
  };
  const builtIn = await validatorFor(schema, precompiledValidators);
  const own = await validatorFor(narrowed, precompiledValidators);
  assert.equal(builtIn({ path: "abcdef" }).ok, true);
  assert.deepEqual(own({ path: "abcdef" }).problems, [
    'path must be at most 3 characters long, got "abcdef"',
  ]);
});

test("a precompiled validator that cannot be loaded is compiled instead: the call still checks", async () => {
  const readFile = tools.find((tool) => tool.name === "read_file")!;
  const schema = readFile.input as JsonSchema;
  const missing = {
    [schemaFingerprint(schema)]: () => Promise.reject(new Error("module not found")),
  };
  const validate = await validatorFor(schema, missing);
  assert.equal(validate({ path: "a.txt" }).ok, true);
  assert.match(validate({ path: 5 }).problems.join("\n"), /path/);
});

/** Argument validation messages a model can act on, and the supported dialects. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileSchema, fieldPath } from "../../mcp/tool/schema/schema.ts";
import { closest } from "../../config/suggest.ts";

test("field paths read like code: nested fields, indexes, odd keys", () => {
  assert.equal(fieldPath("#"), "arguments");
  assert.equal(fieldPath("#/edits/0/old_string"), "edits[0].old_string");
  assert.equal(fieldPath("#/a~1b", "c d"), '["a/b"]["c d"]');
});

test("closest prefers an abbreviation, then a near spelling, else nothing", () => {
  assert.equal(closest("cmd", ["cwd", "command"]), "command");
  assert.equal(closest("timout_ms", ["timeout_ms", "cwd"]), "timeout_ms");
  assert.equal(closest("zzzz", ["command", "cwd"]), undefined);
});

test("closest suggests nothing for a name over 100 characters, however near", () => {
  assert.equal(closest(`command${"x".repeat(94)}`, ["command"]), undefined);
  assert.equal(
    closest("comand".padEnd(100, "x"), ["command".padEnd(100, "x")]),
    "command".padEnd(100, "x"),
  );
});

test("nested problems name the nested field", async () => {
  const validate = await compileSchema({
    type: "object",
    properties: {
      edits: {
        type: "array",
        items: {
          type: "object",
          properties: { old_string: { type: "string" } },
          required: ["old_string"],
        },
      },
    },
  });
  const result = validate({ edits: [{ old_string: "a" }, { old_string: 3 }, {}] });
  assert.equal(result.ok, false);
  assert.deepEqual(result.problems, [
    "edits[1].old_string must be string, got integer 3",
    "edits[2].old_string is required (string) but is missing",
  ]);
});

test("limits are stated with the value that broke them", async () => {
  const validate = await compileSchema({
    type: "object",
    properties: { n: { type: "integer", maximum: 10 }, s: { type: "string", minLength: 2 } },
  });
  assert.deepEqual(validate({ n: 11, s: "x" }).problems, [
    "n must be <= 10, got 11",
    's must be at least 2 characters long, got "x"',
  ]);
});

test("draft-07 schemas are validated with draft-07 rules; unknown dialects are refused clearly", async () => {
  const draft7 = await compileSchema({
    $schema: "http://json-schema.org/draft-07/schema#",
    type: "object",
    properties: { a: { type: "string" } },
    required: ["a"],
  });
  assert.equal(draft7({}).ok, false);
  assert.equal(draft7({ a: "x" }).ok, true);
  await assert.rejects(
    compileSchema({ $schema: "https://example.com/my-dialect", type: "object" }),
    /Unsupported JSON Schema dialect https:\/\/example\.com\/my-dialect/,
  );
});

test("an unknown field with no near name ends its sentence before the allowed fields", async () => {
  const validate = await compileSchema({
    type: "object",
    properties: { path: { type: "string" }, edits: { type: "array" } },
    additionalProperties: false,
  });
  assert.deepEqual(validate({ path: "a", old_string: "x" }).problems, [
    "old_string is not a known field. Allowed fields: path, edits",
  ]);
  const closed = await compileSchema({ type: "object", additionalProperties: false });
  assert.deepEqual(closed({ zzz: 1 }).problems, [
    "zzz is not a known field; no fields are allowed here",
  ]);
});

test("$ref to another document is never fetched: compiling fails instead", async () => {
  await assert.rejects(compileSchema({
    type: "object",
    properties: { a: { $ref: "https://example.com/schema.json" } },
  }));
});

test("local $ref and $defs work", async () => {
  const validate = await compileSchema({
    type: "object",
    $defs: { positive: { type: "integer", minimum: 1 } },
    properties: { n: { $ref: "#/$defs/positive" } },
  });
  assert.equal(validate({ n: 1 }).ok, true);
  assert.deepEqual(validate({ n: 0 }).problems, ["n must be >= 1, got 0"]);
});

test("anyOf is reported once, unknown nested fields are named with their path", async () => {
  const validate = await compileSchema({
    type: "object",
    properties: {
      target: { anyOf: [{ type: "string" }, { type: "integer" }] },
      options: {
        type: "object",
        properties: { recursive: { type: "boolean" } },
        additionalProperties: false,
      },
    },
  });
  assert.deepEqual(validate({ target: true, options: { recurse: true } }).problems, [
    "target must match at least one of the allowed forms, got true",
    'options.recurse is not a known field; did you mean "recursive"? Allowed fields: recursive',
  ]);
});

test("compiling does not alter the tool's schema object", async () => {
  const schema = {
    type: "object",
    $defs: { a: { type: "string" } },
    properties: { x: { $ref: "#/$defs/a" } },
  };
  const before = JSON.stringify(schema);
  const validate = await compileSchema(schema);
  validate({ x: 1 });
  assert.equal(JSON.stringify(schema), before);
  assert.deepEqual(Object.getOwnPropertyNames(schema.properties.x), ["$ref"]);
});

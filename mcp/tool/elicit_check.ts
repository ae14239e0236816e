/**
 * Checks a client's answer against the form it was given. Elicitation forms are flat and use a
 * small subset of JSON Schema (strings, numbers, booleans, single and multiple choice), so this
 * is a short walk rather than a general validator — and a tool can trust what it gets back.
 */
import { isPlainObject } from "../wire/jsonrpc.ts";
import type { ElicitRequest } from "./elicit.ts";

type FieldSchema = Record<string, unknown>;

/**
 * The answer's fields the form asked for (others are dropped), or the problems that make it
 * unusable, one short sentence each.
 */
export function checkAnswer(
  request: ElicitRequest,
  content: unknown,
): { ok: true; content: Record<string, unknown> } | { ok: false; problems: string[] } {
  if (!isPlainObject(content)) return { ok: false, problems: ["the answer has no content"] };
  const { properties, required = [] } = request.requestedSchema;
  const problems: string[] = [];
  const kept: Record<string, unknown> = {};
  for (const key of required) {
    if (content[key] === undefined) problems.push(`${key} is required but missing`);
  }
  for (const [key, schema] of Object.entries(properties)) {
    const value = content[key];
    if (value === undefined) continue;
    const problem = fieldProblem(schema, value);
    if (problem) problems.push(`${key} ${problem}`);
    else kept[key] = value;
  }
  return problems.length > 0 ? { ok: false, problems } : { ok: true, content: kept };
}

function choicesOf(schema: FieldSchema | undefined): string[] | undefined {
  if (!schema) return undefined;
  if (Array.isArray(schema.enum)) return schema.enum.map(String);
  const titled = schema.oneOf ?? schema.anyOf;
  if (Array.isArray(titled)) return titled.map((choice) => String(choice?.const));
  return undefined;
}

function fieldProblem(schema: FieldSchema, value: unknown): string | undefined {
  switch (schema.type) {
    case "string": {
      if (typeof value !== "string") return "must be text";
      const choices = choicesOf(schema);
      if (choices && !choices.includes(value)) return "is not one of the choices offered";
      return sizeProblem(schema, value.length, "minLength", "maxLength", "characters");
    }
    case "number":
    case "integer": {
      if (typeof value !== "number" || !Number.isFinite(value)) return "must be a number";
      if (schema.type === "integer" && !Number.isInteger(value)) return "must be a whole number";
      return sizeProblem(schema, value, "minimum", "maximum", "");
    }
    case "boolean":
      return typeof value === "boolean" ? undefined : "must be true or false";
    case "array": {
      if (!Array.isArray(value)) return "must be a list of choices";
      const choices = choicesOf(schema.items as FieldSchema | undefined) ?? [];
      if (value.some((item) => typeof item !== "string" || !choices.includes(item))) {
        return "holds something that is not one of the choices offered";
      }
      if (new Set(value).size !== value.length) return "repeats a choice";
      return sizeProblem(schema, value.length, "minItems", "maxItems", "choices");
    }
  }
  return undefined;
}

function sizeProblem(
  schema: FieldSchema,
  size: number,
  low: string,
  high: string,
  unit: string,
): string | undefined {
  const suffix = unit ? ` ${unit}` : "";
  if (typeof schema[low] === "number" && size < schema[low]) {
    return `must be at least ${schema[low]}${suffix}`;
  }
  if (typeof schema[high] === "number" && size > schema[high]) {
    return `must be at most ${schema[high]}${suffix}`;
  }
  return undefined;
}

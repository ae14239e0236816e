/**
 * Checks a configuration (as a file holds it) against toolhost.schema.json and says what is wrong
 * in sentences: what the value is, what the schema allows, and for an unknown key the known key
 * it most likely meant. Where the problem is comes back as a path, for the caller to turn into a
 * line and column or the name of a variable.
 */
import type { ErrorObject, ValidateFunction } from "ajv";
import schema from "../toolhost.schema.json" with { type: "json" };
import { closest } from "./suggest.ts";
import generatedValidate from "./schema_validator.generated.js";

type Schema = Record<string, unknown>;

export interface SchemaProblem {
  /** Keys and array indexes from the top of the configuration to the problem. */
  path: string[];
  /** Whether the problem is the key at the end of `path` (unknown, badly named) or its value. */
  at: "key" | "value";
  /** "what is wrong; allowed: …" */
  message: string;
}

/** Compiled ahead of time by `deno task gen`: compiling at start-up cost 30-70 ms. */
const validate = generatedValidate as unknown as ValidateFunction;

/** Resolves a local `$ref` ("#/$defs/url"), merging the referring schema's own keywords. */
function resolved(node: unknown): Schema {
  if (typeof node !== "object" || node === null) return {};
  const { $ref, ...rest } = node as Schema;
  if (typeof $ref !== "string" || !$ref.startsWith("#/")) return rest;
  let target: unknown = schema;
  for (const segment of $ref.slice(2).split("/")) {
    target = (target as Schema | undefined)?.[segment];
  }
  return { ...resolved(target), ...rest };
}

const quote = (value: unknown) => JSON.stringify(value);

/** What a schema allows, as a phrase: "an integer from 1000 to 1000000". */
function allowedBy(node: unknown, plural = false): string {
  const s = resolved(node);
  const a = (one: string, many: string) => (plural ? many : one);
  if (Array.isArray(s.enum)) return `one of ${s.enum.map(quote).join(", ")}`;
  // Either of two forms (the sandbox's mode alone, or its object): each said in turn.
  if (Array.isArray(s.type)) {
    return s.type.map((type) => allowedBy({ ...s, type }, plural)).join(", or ");
  }
  if ("const" in s) return quote(s.const);
  const range = (min: unknown, max: unknown) =>
    min !== undefined && max !== undefined
      ? ` from ${min} to ${max}`
      : min !== undefined
      ? ` of at least ${min}`
      : max !== undefined
      ? ` of at most ${max}`
      : "";
  switch (s.type) {
    case "boolean":
      return "true or false";
    case "integer":
      return a("an integer", "integers") + range(s.minimum, s.maximum);
    case "number":
      return a("a number", "numbers") + range(s.minimum, s.maximum);
    case "string": {
      const noun = s.minLength === 1
        ? a("a non-empty string", "non-empty strings")
        : a("a string", "strings");
      // A pattern that is a list of words (the sandbox's modes) reads as that list.
      const words = typeof s.pattern === "string" && /^\^\(([\w-]+\|)*[\w-]+\)\$$/.test(s.pattern)
        ? s.pattern.slice(2, -2).split("|")
        : undefined;
      if (words) return `one of ${words.map(quote).join(", ")}`;
      return typeof s.pattern === "string" ? `${noun} matching ${s.pattern}` : noun;
    }
    case "array": {
      const items = allowedBy(s.items, true);
      const noun = s.minItems
        ? a("a non-empty array", "non-empty arrays")
        : a("an array", "arrays");
      return `${noun} of ${items}`;
    }
    case "object": {
      const properties = (s.properties ?? {}) as Schema;
      const keys = Object.keys(properties);
      if (s.additionalProperties === false) {
        return `${a("an object", "objects")} with the keys ${keys.join(", ")}`;
      }
      if (typeof s.additionalProperties === "object") {
        return `${a("an object", "objects")} whose values are ${
          allowedBy(s.additionalProperties, true)
        }`;
      }
      const required = Array.isArray(s.required) ? s.required : [];
      const needs = required.map((key) => `${quote(key)}: ${allowedBy(properties[key])}`);
      return a("an object", "objects") + (needs.length ? ` with ${needs.join(", ")}` : "");
    }
  }
  return a("a value", "values");
}

/** "limits.output_chars", "roots[2]", "custom_tools[\"my tool\"].command". */
function keyPath(path: string[]): string {
  let text = "";
  for (const segment of path) {
    text += /^\d+$/.test(segment)
      ? `[${segment}]`
      : /^[A-Za-z_$][\w$]*$/.test(segment)
      ? (text ? "." : "") + segment
      : `[${quote(segment)}]`;
  }
  return text || "the configuration";
}

/** A value as a phrase: `the string "lots"`, `an array`, `true`. */
function describeValue(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string") {
    return `the string ${quote(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  }
  return String(value);
}

function pointerPath(pointer: string): string[] {
  return pointer.split("/").slice(1).map((s) => s.replaceAll("~1", "/").replaceAll("~0", "~"));
}

function problemFor(error: ErrorObject): SchemaProblem {
  const path = pointerPath(error.instancePath);
  const subject = keyPath(path);
  const parent = resolved(error.parentSchema);
  const params = error.params as Record<string, unknown>;
  const allowed = allowedBy(parent);
  const data = error.data;
  // A key of `custom_tools` that is no tool name: Ajv reports it at the object, naming the key,
  // with the propertyNames schema as the parent.
  if (error.propertyName !== undefined) {
    return {
      path: [...path, error.propertyName],
      at: "key",
      message: `${
        quote(error.propertyName)
      } is not a valid name in ${subject}; allowed: ${allowed}`,
    };
  }
  switch (error.keyword) {
    case "additionalProperties": {
      const key = String(params.additionalProperty);
      const known = Object.keys((parent.properties ?? {}) as Schema);
      const guess = closest(key, known);
      const where = path.length ? ` in ${subject}` : "";
      return {
        path: [...path, key],
        at: "key",
        message: `unknown key ${quote(key)}${where}${
          guess ? `; did you mean ${quote(guess)}?` : ";"
        } allowed: ${known.join(", ")}`,
      };
    }
    case "required": {
      const key = String(params.missingProperty);
      const properties = (parent.properties ?? {}) as Schema;
      return {
        path,
        at: "value",
        message: `${subject} has no ${quote(key)}, which is required; allowed: ${
          allowedBy(properties[key])
        }`,
      };
    }
    case "type":
      return {
        path,
        at: "value",
        message: `${subject} is ${describeValue(data)}; allowed: ${allowed}`,
      };
    case "minimum":
    case "exclusiveMinimum":
      return {
        path,
        at: "value",
        message: `${subject} is ${data}, below the minimum ${params.limit}; allowed: ${allowed}`,
      };
    case "maximum":
    case "exclusiveMaximum":
      return {
        path,
        at: "value",
        message: `${subject} is ${data}, above the maximum ${params.limit}; allowed: ${allowed}`,
      };
    case "minLength":
    case "minItems":
      return { path, at: "value", message: `${subject} is empty; allowed: ${allowed}` };
    case "pattern":
      return {
        path,
        at: "value",
        message: `${subject} is ${
          quote(data)
        }, which does not match the pattern; allowed: ${allowed}`,
      };
  }
  return {
    path,
    at: "value",
    message: `${subject} is ${describeValue(data)}; allowed: ${allowed}`,
  };
}

/**
 * The problems of a configuration, one per place: a value of the wrong type that is not in an
 * enum either is one problem, not two.
 */
export function checkConfig(value: unknown): SchemaProblem[] {
  // Compiling the schema costs tens of milliseconds of start-up; nothing given, nothing to check.
  const empty = typeof value === "object" && value !== null && !Array.isArray(value) &&
    Object.keys(value).length === 0;
  if (empty) return [];
  if (validate(value)) return [];
  const problems = new Map<string, SchemaProblem>();
  for (const error of validate.errors ?? []) {
    // propertyNames reports the bad name twice: once for the pattern, once for itself.
    if (error.keyword === "propertyNames") continue;
    const problem = problemFor(error);
    const place = `${problem.at} ${problem.path.join("\0")}` +
      (error.keyword === "required"
        ? `\0${(error.params as { missingProperty: string }).missingProperty}`
        : "");
    if (!problems.has(place)) problems.set(place, problem);
  }
  return [...problems.values()];
}

/**
 * JSON Schema validation of tool arguments and structured outputs, with messages a model can act
 * on. The built-in tools' schemas are compiled ahead of time (`deno task gen`), each loaded on
 * its first use; any other schema has Ajv imported and compiles it on first use, so start-up
 * pays nothing for them.
 * `$ref`s are resolved only inside the schema: nothing is ever fetched over the network.
 */
import { quoted } from "../../../config/quote.ts";
import type { ErrorObject, ValidateFunction } from "ajv";
import { closest } from "../../../config/suggest.ts";
import { AJV_OPTIONS, dialectOf, type JsonSchema, schemaFingerprint } from "./ajv_options.ts";

export type { JsonSchema };

export interface ValidationResult {
  ok: boolean;
  /** One sentence per problem, naming the field and what was expected. */
  problems: string[];
}

export type Validator = (value: unknown) => ValidationResult;
const VALID: ValidationResult = Object.freeze({ ok: true, problems: [] });

/**
 * Validators compiled ahead of time, by schema fingerprint (schemaFingerprint): each loads its
 * own small module, whose default export is Ajv's standalone validate function.
 */
export type PrecompiledValidators = Readonly<
  Record<string, () => Promise<{ default: unknown }>>
>;

// Ajv is CommonJS: `default` is module.exports, whose own `default` is the class.
type AjvInstance = { compile(schema: JsonSchema): ValidateFunction };
let ajv2020: Promise<AjvInstance> | undefined;
let ajv07: Promise<AjvInstance> | undefined;

function instanceFor(schema: JsonSchema): Promise<AjvInstance> {
  if (dialectOf(schema) === "2020-12") {
    ajv2020 ??= import("ajv/dist/2020.js").then((m) => new m.default.default(AJV_OPTIONS));
    return ajv2020;
  }
  ajv07 ??= import("ajv").then((m) => new m.default.default(AJV_OPTIONS));
  return ajv07;
}

function validatorOf(validate: ValidateFunction): Validator {
  return (value) => {
    if (validate(value)) return VALID;
    return { ok: false, problems: describeErrors(validate.errors ?? []) };
  };
}

/** Compiles a schema into a validator. Throws when the schema itself is invalid. */
export async function compileSchema(schema: JsonSchema): Promise<Validator> {
  return validatorOf((await instanceFor(schema)).compile(schema));
}

/**
 * The validator of a schema: the precompiled one when there is one for exactly this schema (no
 * Ajv loaded, nothing compiled), else compiled by Ajv.
 */
export async function validatorFor(
  schema: JsonSchema,
  precompiled?: PrecompiledValidators,
): Promise<Validator> {
  const fingerprint = precompiled && schemaFingerprint(schema);
  const load = fingerprint && Object.hasOwn(precompiled, fingerprint)
    ? precompiled[fingerprint]
    : undefined;
  if (!load) return compileSchema(schema);
  // A module the program cannot find (a build that left it out, a platform whose paths the
  // bundle spells otherwise) costs the first call Ajv's compile, never the call itself.
  const module = await load().catch(() => undefined);
  if (typeof module?.default !== "function") return compileSchema(schema);
  return validatorOf(module.default as ValidateFunction);
}

/** A memo of validators, one per schema object, made on first use. */
export class ValidatorCache {
  #compiling = new WeakMap<JsonSchema, Promise<Validator>>();
  #ready = new WeakMap<JsonSchema, Validator>();

  constructor(readonly precompiled?: PrecompiledValidators) {}

  /** The validator if it is compiled already: the hot path needs no await. */
  ready(schema: JsonSchema): Validator | undefined {
    return this.#ready.get(schema);
  }

  get(schema: JsonSchema): Promise<Validator> {
    let validator = this.#compiling.get(schema);
    if (!validator) {
      validator = validatorFor(schema, this.precompiled).then((compiled) => {
        this.#ready.set(schema, compiled);
        return compiled;
      });
      this.#compiling.set(schema, validator);
    }
    return validator;
  }
}

/** "/edits/0/old_string" (or "#/edits/0/old_string") → "edits[0].old_string"; "" is "arguments". */
export function fieldPath(instancePath: string, child?: string): string {
  const segments = instancePath.replace(/^#/, "").split("/").slice(1).map((s) =>
    s.replaceAll("~1", "/").replaceAll("~0", "~")
  );
  if (child !== undefined) segments.push(child);
  let path = "";
  for (const segment of segments) {
    path += /^\d+$/.test(segment)
      ? `[${segment}]`
      : /^[A-Za-z_$][\w$]*$/.test(segment) && segment.length <= 60
      ? (path ? "." : "") + segment
      : `[${quoted(segment, 60)}]`;
  }
  return path || "arguments";
}

function typeName(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

/** A short rendering of a value; objects and arrays are summarised, never serialised whole. */
function preview(value: unknown): string {
  if (Array.isArray(value)) return `an array of ${value.length} items`;
  if (typeof value === "object" && value !== null) {
    return `an object with ${Object.keys(value).length} fields`;
  }
  const text = JSON.stringify(typeof value === "string" ? value.slice(0, 60) : value) ??
    String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function expectedType(schema: unknown): string {
  if (typeof schema !== "object" || schema === null) return "a value";
  const s = schema as Record<string, unknown>;
  if (Array.isArray(s.enum)) return `one of ${s.enum.map((v) => JSON.stringify(v)).join(", ")}`;
  if (Array.isArray(s.type)) return s.type.join(" or ");
  return typeof s.type === "string" ? s.type : "a value";
}

/** Problems listed for one call; a model fixes the first ones and tries again. */
const MAX_PROBLEMS = 20;

const SIZES: Record<string, [string, string]> = {
  minLength: ["be at least", "characters long"],
  maxLength: ["be at most", "characters long"],
  minItems: ["have at least", "item(s)"],
  maxItems: ["have at most", "item(s)"],
  minProperties: ["have at least", "field(s)"],
  maxProperties: ["have at most", "field(s)"],
};

function describeError(error: ErrorObject): string {
  const at = fieldPath(error.instancePath);
  const params = error.params as Record<string, unknown>;
  const parent = (error.parentSchema ?? {}) as Record<string, unknown>;
  const properties = (parent.properties ?? {}) as Record<string, unknown>;
  const got = () => preview(error.data);
  switch (error.keyword) {
    case "required": {
      const name = String(params.missingProperty);
      return `${fieldPath(error.instancePath, name)} is required (${
        expectedType(properties[name])
      }) but is missing`;
    }
    case "additionalProperties":
    case "unevaluatedProperties": {
      const name = String(params.additionalProperty ?? params.unevaluatedProperty);
      const allowed = Object.keys(properties);
      const guess = closest(name, allowed);
      // One sentence, then the fields there are: "x is not a known field. Allowed fields: …".
      return `${fieldPath(error.instancePath, name)} is not a known field` +
        (guess
          ? `; did you mean "${guess}"?`
          : allowed.length
          ? "."
          : "; no fields are allowed here") +
        (allowed.length ? ` Allowed fields: ${allowed.join(", ")}` : "");
    }
    case "type": {
      const expected = String(params.type).replaceAll(",", " or ");
      const data = error.data;
      const actual = typeof data === "object" && data !== null
        ? preview(data)
        : `${typeName(data)} ${preview(data)}`;
      return `${at} must be ${expected}, got ${actual}`;
    }
    case "enum":
      return `${at} must be one of ${
        (params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")
      }, got ${got()}`;
    case "const":
      return `${at} must be ${JSON.stringify(params.allowedValue)}, got ${got()}`;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return `${at} must be ${params.comparison} ${params.limit}, got ${got()}`;
    case "pattern":
      return `${at} must match the pattern ${params.pattern}, got ${got()}`;
    case "multipleOf":
      return `${at} must be a multiple of ${params.multipleOf}, got ${got()}`;
    case "uniqueItems":
      return `${at} must not repeat items (items ${params.j} and ${params.i} are equal)`;
    case "anyOf":
    case "oneOf":
      return `${at} must match ${
        error.keyword === "oneOf" ? "exactly one" : "at least one"
      } of the allowed forms, got ${got()}`;
  }
  if (error.keyword in SIZES) {
    const [bound, unit] = SIZES[error.keyword];
    return `${at} must ${bound} ${params.limit} ${unit}, got ${got()}`;
  }
  return `${at} ${error.message ?? "is invalid"}`;
}

/**
 * Turns Ajv errors into distinct sentences. An anyOf/oneOf is reported once, without the
 * complaints of each of its alternatives; an if/then reports only what `then` required.
 */
export function describeErrors(errors: ErrorObject[]): string[] {
  const alternatives = errors
    .filter((e) => e.keyword === "anyOf" || e.keyword === "oneOf")
    .map((e) => e.schemaPath + "/");
  const sentences = new Set<string>();
  let more = 0;
  for (const error of errors) {
    if (error.keyword === "if") continue;
    if (alternatives.some((prefix) => error.schemaPath.startsWith(prefix))) continue;
    if (sentences.size === MAX_PROBLEMS) {
      more++;
      continue;
    }
    sentences.add(describeError(error));
  }
  if (more > 0) sentences.add(`... and ${more} more problems`);
  return [...sentences];
}

/**
 * How toolhost's Ajv is set up, in one place: the runtime compiler (schema.ts) and the validators
 * compiled ahead of time (scripts/gen_tool_validators.ts) must give the same errors, so the same
 * messages, for the same schema.
 */
import { createHash } from "node:crypto";

export type JsonSchema = Record<string, unknown>;

export const DRAFT_2020_12 = "https://json-schema.org/draft/2020-12/schema";
export const DRAFT_07 = "http://json-schema.org/draft-07/schema";

export const AJV_OPTIONS = {
  allErrors: true,
  verbose: true,
  // Unknown keywords (`x-mcp-header`, vendor annotations) are allowed, as MCP says.
  strict: false,
  // `format` is an annotation in 2020-12 unless a vocabulary asserts it.
  validateFormats: false,
  allowUnionTypes: true,
  // Checking each schema against its meta-schema costs ~18 MB at the first call; the tools'
  // schemas are checked strictly by tests/project/tools_barrel_test.ts instead.
  validateSchema: false,
  // Nor are the meta-schemas loaded at all (another ~1 MB); `$schema` still selects the dialect.
  meta: false,
} as const;

/** The schema's dialect, by its `$schema` (2020-12 when it names none). */
export function dialectOf(schema: JsonSchema): "2020-12" | "draft-07" {
  const dialect = typeof schema.$schema === "string" ? schema.$schema.replace(/#$/, "") : undefined;
  if (dialect === undefined || dialect === DRAFT_2020_12) return "2020-12";
  if (dialect === DRAFT_07) return "draft-07";
  throw new Error(
    `Unsupported JSON Schema dialect ${dialect}: toolhost supports 2020-12 (the default) and draft-07`,
  );
}

/**
 * What names a schema among the precompiled validators: the SHA-256 of its JSON text. A schema
 * that differs in anything (one prepared at run time, a custom tool's) finds none and is compiled.
 */
export function schemaFingerprint(schema: JsonSchema): string {
  return createHash("sha256").update(JSON.stringify(schema)).digest("hex");
}

/**
 * JSON Schema for tools: checking arguments and structured output against a schema (a validator
 * compiled ahead of time for the built-in tools' schemas, else Ajv, imported and compiling on first
 * use), how Ajv is set up for both, and the TypeScript type a schema literal describes. A face of its
 * own, apart from the tool API's: a module that only throws ToolError (one a worker also loads)
 * must not bring Ajv into its bundle. Outside mcp/, import from here.
 *
 * @example Refuse a schema Ajv cannot compile, before any call needs it
 * ```ts
 * import { compileSchema, type JsonSchema } from "./mod.ts";
 *
 * export async function checkSchema(schema: JsonSchema): Promise<string | undefined> {
 *   try {
 *     await compileSchema(schema);
 *     return undefined;
 *   } catch (error) {
 *     return (error as Error).message;
 *   }
 * }
 * ```
 * @module
 */
export {
  compileSchema,
  type JsonSchema,
  type PrecompiledValidators,
  type ValidationResult,
  type Validator,
} from "./schema.ts";
export type { FromSchema } from "./schema_types.ts";
export { AJV_OPTIONS, dialectOf, schemaFingerprint } from "./ajv_options.ts";

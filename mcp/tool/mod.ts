/**
 * The tool API: what a module of tools/ makes a tool with (`defineTool`: its input schema,
 * annotations, what it writes, its icons and app), what its handler gets as `ctx` and may return,
 * the hooks around every call, and the few pieces a tool reaches beyond `ctx` (forms, icons,
 * apps); checking against a schema is schema/mod.ts's. Everything outside mcp/ imports the tool
 * API from here; mcp/'s own packages reach the files behind it directly.
 *
 * @example A tool: the input schema is written once and the handler's argument type follows
 * ```ts
 * // From tools/<family>/, the face is "../../mcp/tool/mod.ts".
 * import { defineTool, ToolError } from "./mod.ts";
 *
 * export default defineTool({
 *   name: "word_count",
 *   description: "Counts the words of a text.",
 *   input: {
 *     type: "object",
 *     properties: { text: { type: "string" } },
 *     required: ["text"],
 *     additionalProperties: false,
 *   },
 *   async run(args, ctx) {
 *     if (ctx.signal.aborted) throw new ToolError("stopped");
 *     return `${args.text.split(/\s+/).filter(Boolean).length} words`;
 *   },
 * });
 * ```
 * @module
 */
export {
  type AskOptions,
  CallWrites,
  type ClientRoot,
  type ContentBlock,
  defineTool,
  defineToolHook,
  type Describe,
  describedFor,
  type FinishedCall,
  Handoff,
  HOOK_PHASES,
  type HookPhase,
  listOffered,
  MissingClientCapability,
  type Offers,
  type PathWrite,
  type PlannedWrite,
  type PrepareEnvironment,
  type ProgramContext,
  type Question,
  type RunTimeWrite,
  type SampleRequest,
  type SampleResult,
  SessionKey,
  SessionMemory,
  type TaskSupport,
  type Tool,
  TOOL_NAME,
  type ToolAnnotations,
  type ToolContext,
  ToolError,
  type ToolHook,
  type ToolHooks,
  type ToolReturn,
  type ToolSpec,
  type ToolState,
  type ToolWrites,
  type WriteKind,
} from "./tool.ts";
export { mayWrite, onlyAdds, plannedWrites } from "./writes.ts";
// Types only: the schema checks (and Ajv behind them) have a face of their own, schema/mod.ts.
export type { FromSchema, JsonSchema } from "./schema/mod.ts";
export type { ElicitRequest, ElicitResult } from "./elicit.ts";
export { InputRequired } from "./round_trip.ts";
export { APP_MIME_TYPE, appOnly, APPS_EXTENSION, type ToolUi } from "./apps.ts";
export { type Icon, svgIcon } from "./icons.ts";

/**
 * What a module of tools/ may offer besides its tools, and how mcp/ serves it all: resources and
 * resource templates (`defineResource`, `defineResourceTemplate`), prompts (`definePrompt`,
 * `definePrompts`), the watches that tell of their changes, protocol extensions
 * (`defineExtension`), shutdown hooks (`defineShutdownHook`), and the sorting of a module's
 * exports by kind (`Contribution`). The catalogs behind them (tools/list and tools/call,
 * resources, prompts, completion) are mcp/'s own. Outside mcp/, import from here.
 *
 * @example A resource that tells subscribers when it changes
 * ```ts
 * // From tools/<family>/, the face is "../../mcp/features/mod.ts".
 * import { defineResource, type WatchContext } from "./mod.ts";
 *
 * let notes = "";
 * const listeners = new Set<() => void>();
 *
 * export default defineResource({
 *   uri: "toolhost://notes",
 *   name: "notes",
 *   mimeType: "text/markdown",
 *   read: () => Promise.resolve(notes),
 *   watch(_ctx: WatchContext, changed: () => void) {
 *     listeners.add(changed);
 *     return () => listeners.delete(changed);
 *   },
 * });
 * ```
 * @module
 */
export {
  type Completer,
  defineResource,
  defineResourceTemplate,
  type ReadContext,
  type ReadReturn,
  type Resource,
  type ResourceBody,
  type ResourceInfo,
  ResourceNotFound,
  type ResourceSpec,
  type ResourceTemplate,
  type ResourceTemplateSpec,
} from "./resource.ts";
export {
  definePrompt,
  definePrompts,
  type Prompt,
  type PromptArgument,
  type PromptContext,
  type PromptFamily,
  type PromptFamilySpec,
  type PromptMessage,
  type PromptReturn,
  type PromptSpec,
} from "./prompt.ts";
export type { Unwatch, Watch, WatchContext } from "./watch.ts";
export {
  defineExtension,
  type Extension,
  type ExtensionContext,
  type ExtensionMethod,
  type ExtensionSpec,
} from "./extension.ts";
export { defineShutdownHook, runShutdownHooks, type ShutdownHook } from "./shutdown.ts";
export {
  type Contribution,
  type Contributions,
  sortContributions,
  withOfferedTools,
} from "./contribution.ts";
export { UriTemplate } from "./uri_template.ts";

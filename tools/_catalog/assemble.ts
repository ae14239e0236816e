/**
 * What a session offers, assembled in one place: the modules of tools/ (tools, resources,
 * templates, prompts, hooks), the user's custom command tools, then what the allow and deny
 * lists and the read-only profile leave of them. Resources and prompts go with the tools they
 * belong to.
 */
import type { Settings } from "../../config/settings.ts";
import {
  type Contribution,
  type Extension,
  type Prompt,
  type PromptFamily,
  type Resource,
  type ResourceTemplate,
  type ShutdownHook,
  sortContributions,
  withOfferedTools,
} from "../../mcp/features/mod.ts";
import { describedFor, type Tool, type ToolHook } from "../../mcp/tool/mod.ts";
import { FAMILY_ICONS } from "./icons.ts";
import { moduleFamilies, toolModules } from "../mod.ts";
import { checkInputSchemas, customTools } from "../shell/_lib/custom_tools.ts";
import { filterTools } from "./tool_filter.ts";
import { readOnlyGate } from "./read_only_gate.ts";
import { precompiledValidators } from "./validators/index.generated.ts";
import type { PrecompiledValidators } from "../../mcp/tool/schema/mod.ts";

export interface Assembled {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: (Prompt | PromptFamily)[];
  hooks: ToolHook[];
  /** What modules need done when the server stops (main.ts runs them). */
  shutdownHooks: ShutdownHook[];
  /** Protocol extensions the families speak (the skills extension), with their methods. */
  extensions: Extension[];
  /** The built-in tools' validators, compiled by `deno task gen`, each loaded on first use. */
  validators: PrecompiledValidators;
  /** Things the user should hear about on stderr, though toolhost runs. */
  warnings: string[];
  /** Each tool left out, and why (for --list-tools and debug logs). */
  removed: { name: string; why: string }[];
}

/**
 * Throws an Error whose message says what to fix in the configuration. `extra` joins the
 * modules of tools/ (a test binary's fixtures).
 */
export async function assemble(
  settings: Settings,
  extra: readonly Contribution[] = [],
): Promise<Assembled> {
  const { tools: builtIn, hooks, shutdownHooks, ...others } = sortContributions([
    ...toolModules.map((module, i) => withFamilyIcon(module, moduleFamilies[i])),
    ...extra,
  ]);
  const custom = customTools(settings.customTools, {
    outputChars: settings.limits.outputChars,
    maxTimeoutMs: settings.limits.bashMaxTimeoutMs,
  });
  const taken = new Set(builtIn.map((tool) => tool.name));
  for (const tool of custom) {
    if (taken.has(tool.name)) {
      throw new Error(
        `custom_tools.${tool.name}: a built-in tool has that name; choose another (the built-in ` +
          "one can be hidden with tools.deny)",
      );
    }
  }
  await checkInputSchemas(custom);
  const filtered = filterTools([...builtIn, ...custom], settings);
  const { removed, unmatched } = filtered;
  // Descriptions that name other tools name only those offered here.
  const offered = new Set(filtered.tools.map((tool) => tool.name));
  const tools = filtered.tools.map((tool) => describedFor(tool, (name) => offered.has(name)));
  const warnings = unmatched.map((name) =>
    `tools.allow/tools.deny: ${JSON.stringify(name)} matches no tool`
  );
  if (tools.length === 0) {
    warnings.push("no tool is left after tools.profile, tools.allow, tools.deny and read_only");
  }
  // Every hook runs in its own phase (the read-only gate among the gates), whatever its file.
  return {
    tools,
    ...withOfferedTools(others, tools),
    hooks: [readOnlyGate, ...hooks],
    shutdownHooks,
    validators: precompiledValidators,
    warnings,
    removed,
  };
}

/** A module's tools that show no icon of their own get their family's (the same object). */
function withFamilyIcon(
  module: Contribution | Contribution[],
  family: string | undefined,
): Contribution | Contribution[] {
  const icon = family === undefined ? undefined : FAMILY_ICONS[family];
  if (!icon) return module;
  const give = (item: Contribution): Contribution =>
    "kind" in item || (item as Tool).icons ? item : { ...item, icons: [icon] };
  return Array.isArray(module) ? module.map(give) : give(module);
}

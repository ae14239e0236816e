/**
 * What a module in tools/ may export: tools, resources, resource templates, prompts, tool hooks,
 * shutdown hooks and protocol extensions, alone or in an array. This sorts them by kind and drops what belongs to a tool that is
 * not offered.
 */
import type { Extension } from "./extension.ts";
import type { Prompt, PromptFamily } from "./prompt.ts";
import type { Resource, ResourceTemplate } from "./resource.ts";
import type { ShutdownHook } from "./shutdown.ts";
import type { Tool, ToolHook } from "../tool/tool.ts";

export type Contribution =
  | Tool
  | Resource
  | ResourceTemplate
  | Prompt
  | PromptFamily
  | ToolHook
  | ShutdownHook
  | Extension;

export interface Contributions {
  tools: Tool[];
  resources: Resource[];
  templates: ResourceTemplate[];
  prompts: (Prompt | PromptFamily)[];
  hooks: ToolHook[];
  /** What must happen when the server stops (kept whichever tools are offered). */
  shutdownHooks: ShutdownHook[];
  extensions: Extension[];
}

/** Tools carry no `kind`: they came first, and every tool module keeps working unchanged. */
export function sortContributions(all: readonly (Contribution | Contribution[])[]): Contributions {
  const sorted: Contributions = {
    tools: [],
    resources: [],
    templates: [],
    prompts: [],
    hooks: [],
    shutdownHooks: [],
    extensions: [],
  };
  for (const item of all.flat()) {
    const kind = "kind" in item ? item.kind : undefined;
    if (kind === "resource") sorted.resources.push(item as Resource);
    else if (kind === "resource_template") sorted.templates.push(item as ResourceTemplate);
    else if (kind === "prompt" || kind === "prompt_family") {
      sorted.prompts.push(item as Prompt | PromptFamily);
    } else if (kind === "tool_hook") sorted.hooks.push(item as ToolHook);
    else if (kind === "shutdown_hook") sorted.shutdownHooks.push(item as ShutdownHook);
    else if (kind === "extension") sorted.extensions.push(item as Extension);
    else sorted.tools.push(item as Tool);
  }
  return sorted;
}

/** The resources, templates and prompts whose `requires` tool is among `offered` (or none). */
export function withOfferedTools(
  sorted: Omit<Contributions, "tools" | "hooks" | "shutdownHooks">,
  offered: readonly Tool[],
): Omit<Contributions, "tools" | "hooks" | "shutdownHooks"> {
  const names = new Set(offered.map((tool) => tool.name));
  const keep = <T extends { requires?: string }>(items: T[]) =>
    items.filter((item) => item.requires === undefined || names.has(item.requires));
  return {
    resources: keep(sorted.resources),
    templates: keep(sorted.templates),
    prompts: keep(sorted.prompts),
    extensions: keep(sorted.extensions),
  };
}

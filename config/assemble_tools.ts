/**
 * The tools a session offers: the built-in ones, the user's custom command tools, then what the
 * allow and deny lists and the read-only profile leave of them.
 */
import type { Tool } from "../mcp/tool.ts";
import { checkInputSchemas, customTools } from "../tools/shell/_lib/custom_tools.ts";
import type { Settings } from "./settings.ts";
import { filterTools } from "./tool_filter.ts";

export interface Assembled {
  tools: Tool[];
  /** Things the user should hear about on stderr, though toolhost runs. */
  warnings: string[];
  /** Each tool left out, and why (for --list-tools and debug logs). */
  removed: { name: string; why: string }[];
}

/** Throws an Error whose message says what to fix in the configuration. */
export async function assembleTools(builtIn: Tool[], settings: Settings): Promise<Assembled> {
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
  const { tools, removed, unmatched } = filterTools([...builtIn, ...custom], settings);
  const warnings = unmatched.map((name) =>
    `tools.allow/tools.deny: ${JSON.stringify(name)} matches no tool`
  );
  if (tools.length === 0) {
    warnings.push("no tool is left after tools.allow, tools.deny and read_only");
  }
  return { tools, warnings, removed };
}

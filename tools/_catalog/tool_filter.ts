/**
 * Which tools a session offers: the profile (profiles.ts), `tools.allow` (when given, only
 * these), `tools.deny` (never these; wins over allow) and read_only (only tools annotated
 * read-only), less any tool whose `needs` are not all offered. Names may use `*` for any run of
 * characters.
 */
import type { Settings } from "../../config/settings.ts";
import type { Tool } from "../../mcp/tool/mod.ts";
import { profileExcludes } from "./profiles.ts";

function pattern(name: string): RegExp {
  const escaped = name.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\-]/g, "\\$&"));
  return new RegExp(`^${escaped.join(".*")}$`);
}

function matcher(names: string[]): (name: string) => boolean {
  const patterns = names.map(pattern);
  return (name) => patterns.some((p) => p.test(name));
}

export interface Filtered {
  tools: Tool[];
  /** Each tool left out, and why. */
  removed: { name: string; why: string }[];
  /** allow or deny entries that matched no tool: probably a typo. */
  unmatched: string[];
}

export function filterTools(tools: Tool[], settings: Settings): Filtered {
  const allowed = matcher(settings.toolsAllow);
  const denied = matcher(settings.toolsDeny);
  const kept: Tool[] = [];
  const removed: Filtered["removed"] = [];
  for (const tool of tools) {
    const outOfProfile = profileExcludes(settings.toolsProfile, tool);
    if (outOfProfile) {
      removed.push({ name: tool.name, why: outOfProfile });
    } else if (settings.toolsAllow.length && !allowed(tool.name)) {
      removed.push({ name: tool.name, why: "not in tools.allow" });
    } else if (denied(tool.name)) {
      removed.push({ name: tool.name, why: "in tools.deny" });
    } else if (settings.readOnly && tool.annotations?.readOnlyHint !== true) {
      removed.push({ name: tool.name, why: "not read-only (read_only is on)" });
    } else {
      kept.push(tool);
    }
  }
  // A tool whose work another one starts goes with it (bash_output with bash_background).
  for (let i = 0; i < kept.length;) {
    const missing = kept[i].needs?.find((name) => !kept.some((tool) => tool.name === name));
    if (missing === undefined) i++;
    else {
      removed.push({ name: kept[i].name, why: `${missing}, which it needs, is off` });
      kept.splice(i, 1);
      i = 0;
    }
  }
  const unmatched = [...settings.toolsAllow, ...settings.toolsDeny].filter((name) =>
    !tools.some((tool) => pattern(name).test(tool.name))
  );
  return { tools: kept, removed, unmatched };
}

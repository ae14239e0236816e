/**
 * grep's own engine (builtin_search.ts): for machines without rg, and for trees rg must not walk
 * (ripgrep_engine.ts). It refuses patterns that could backtrack for ever; rg takes them all.
 */
import { ToolError } from "../../../../../mcp/tool/mod.ts";
import { quoted } from "../../../../../config/quote.ts";
import { backtrackingRisk } from "../backtracking.ts";
import { drain, type GrepEngine, type GrepOutcome, type GrepResults } from "../engine.ts";
import type { GrepQuery } from "../query.ts";
import { builtinSearch } from "./builtin_search.ts";

/** Why the built-in engine answers, as its refusal of a pattern says. */
export interface BuiltinReason {
  /** Why it is used rather than rg. */
  why: string;
  /** What else would let the search run. */
  instead: string;
}

const NO_RG: BuiltinReason = {
  why: "used when there is no rg",
  instead: "or install ripgrep (rg), which runs any pattern in linear time",
};

export class BuiltinEngine implements GrepEngine {
  constructor(readonly reason: BuiltinReason = NO_RG) {}

  check(pattern: string, caseInsensitive: boolean): void {
    const risk = backtrackingRisk(pattern, caseInsensitive);
    if (!risk) return;
    throw new ToolError(
      `pattern ${quoted(pattern, 200)} ${risk}, which can take grep's built-in search ` +
        `(${this.reason.why}) exponential time. Write it without repeating such a ` +
        `group (for example [ab]+ for (a|b)+, \\w+ for (\\w+)+), ${this.reason.instead}`,
    );
  }

  search(query: GrepQuery, results: GrepResults): Promise<GrepOutcome> {
    return drain(builtinSearch(query, () => results.full), (file) => results.add(file));
  }
}

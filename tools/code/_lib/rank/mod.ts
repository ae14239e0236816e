/**
 * The project map's order: which definitions to show first. Two rankings of the same files:
 * `uses` counts the other files that use a definition's name (aider's repo-map weights, without
 * its graph); `graph` ranks files by PageRank over who uses whose names, personalised by the
 * files in play, as aider does (docs/code.md says which the map uses, and why).
 *
 * @example
 * ```ts
 * const ranked = await rankDefinitions(files, { method: "graph", inPlay: new Set([3]) });
 * for (const { file, symbol, refs } of ranked.slice(0, 10)) console.error(file.shown, symbol.namePath, refs);
 * ```
 */
import type { FileOutline, OutlineSymbol } from "../outlines/mod.ts";
import { TimeSlice } from "../time_slice.ts";
import { scoresByGraph } from "./_graph.ts";
import { bestFirst } from "./_order.ts";
import { definitionsOf } from "./_scores.ts";
import { scoresByUses } from "./_uses.ts";

export type RankMethod = "uses" | "graph";

export interface RankedSymbol {
  file: FileOutline;
  symbol: OutlineSymbol;
  /** Its place among its file's symbols (their order in the file). */
  index: number;
  /** Other files that use its name. */
  refs: number;
  score: number;
}

export interface RankOptions {
  method: RankMethod;
  /** The files in play (indices in `files`): ranked from, and left out. */
  inPlay?: ReadonlySet<number>;
  /** At most this many, the best (default: all). */
  limit?: number;
  slice?: TimeSlice;
}

/** The definitions of `files`, best first, ties in the files' order and then the file's own. */
export async function rankDefinitions(
  files: readonly FileOutline[],
  options: RankOptions,
): Promise<RankedSymbol[]> {
  const slice = options.slice ?? new TimeSlice();
  const definitions = await definitionsOf(files, slice);
  const scores = options.method === "graph"
    ? await scoresByGraph(definitions, options.inPlay ?? new Set(), slice)
    : await scoresByUses(definitions, options.inPlay ?? new Set(), slice);
  const order = bestFirst(scores, options.limit ?? scores.length);
  return order.map((i) => {
    const file = files[definitions.file[i]];
    const index = definitions.symbol[i];
    return {
      file,
      symbol: file.symbols[index],
      index,
      refs: definitions.refs[i],
      score: scores[i],
    };
  });
}

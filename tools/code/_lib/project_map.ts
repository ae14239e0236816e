/**
 * The project map: the definitions that fit a budget, best first, shown file by file. Ranked by
 * the graph of who uses whose names (rank/), personalised by the files in play when the caller
 * names them: their own definitions are left out (the caller has them), and what they use, and
 * what uses them, comes first. scripts/bench/code_rank_eval.ts shows why: on this repository's
 * history, with one file a commit modified in play, the map showed 23.6 % of the others the
 * commit modified (counting uses: 9.4 %) and put the first of them five times higher (docs/code.md).
 */
import type { FileOutline } from "./outlines/mod.ts";
import { rankDefinitions } from "./rank/mod.ts";
import { mapLines } from "./symbol_lines.ts";
import type { RankedSymbol } from "./rank/mod.ts";
import type { TimeSlice } from "./time_slice.ts";

export interface ProjectMap {
  /** The head line, then the files and their definitions. */
  text: string;
  shown: RankedSymbol[];
  /** Definitions in all the files. */
  total: number;
}

const count = (n: number) => n.toLocaleString("en-US");

/** The map of `files` within `budget` characters; `inPlay` are real paths among them. */
export async function projectMap(
  files: readonly FileOutline[],
  inPlay: ReadonlySet<string>,
  budget: number,
  slice: TimeSlice,
): Promise<ProjectMap> {
  const playing = new Set<number>();
  for (const [i, file] of files.entries()) if (inPlay.has(file.real)) playing.add(i);
  // As many as the shortest lines could fill.
  const ranked = await rankDefinitions(files, {
    method: "graph",
    inPlay: playing,
    limit: Math.ceil(budget / 8),
    slice,
  });
  const { text, shown } = mapLines(ranked, budget);
  const total = files.reduce((sum, file) => sum + file.symbols.length, 0);
  const order = playing.size === 0
    ? "most used first"
    : `ranked from the files in play (${
      [...playing].map((i) => files[i].shown).join(", ")
    }, left out)`;
  const head = `[map of ${count(total)} definitions in ${count(files.length)} files, ${order}; ` +
    `${shown.length} shown within ${count(budget)} characters]`;
  return { text: `${head}\n${text}`, shown, total };
}

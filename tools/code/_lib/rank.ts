/**
 * The project map's order (aider's repo-map idea, without the graph): a definition ranks by how
 * many of the files parsed use its name, and the map takes the best-ranked definitions that fit
 * the budget, shown file by file.
 */
import type { CodeSymbol } from "./parse/mod.ts";
import type { FileOutline } from "./outlines.ts";

export interface RankedSymbol {
  file: FileOutline;
  symbol: CodeSymbol;
  /** Other files that use its name. */
  refs: number;
  score: number;
}

/**
 * Every definition of `files` with its rank, best first: how many other files use its name,
 * shared among the definitions of that name, a tenth for names defined in more than five places
 * or shorter than four characters, members counting half.
 */
export function rankDefinitions(files: FileOutline[]): RankedSymbol[] {
  const usedIn = new Map<string, number>();
  for (const file of files) {
    for (const word of Object.keys(file.identifiers ?? {})) {
      usedIn.set(word, (usedIn.get(word) ?? 0) + 1);
    }
  }
  const definitions = new Map<string, number>();
  for (const file of files) {
    for (const symbol of file.symbols) {
      // A function's local definitions are no part of the project's map.
      if (symbol.local) continue;
      definitions.set(symbol.name, (definitions.get(symbol.name) ?? 0) + 1);
    }
  }
  const ranked: RankedSymbol[] = [];
  for (const file of files) {
    for (const symbol of file.symbols) {
      if (symbol.local) continue;
      const refs = Math.max(0, (usedIn.get(symbol.name) ?? 0) - 1);
      const defined = definitions.get(symbol.name)!;
      // As aider weighs them: a name defined in many places, or a very short one, says little.
      const telling = (defined > 5 ? 0.1 : 1) * (symbol.name.length < 4 ? 0.1 : 1);
      const score = (refs / defined) * telling * (symbol.parent === undefined ? 1 : 0.5);
      ranked.push({ file, symbol, refs, score });
    }
  }
  // Then by place, so the order is stable.
  return ranked.sort((a, b) =>
    b.score - a.score || a.file.shown.localeCompare(b.file.shown) || a.symbol.start - b.symbol.start
  );
}

/**
 * The project map's order (aider's repo-map idea, without the graph): a definition ranks by how
 * often its name occurs in the files parsed, its own definitions not counted, and the map takes
 * the best-ranked definitions that fit the budget, shown file by file.
 */
import type { CodeSymbol } from "./parse/mod.ts";
import type { FileOutline } from "./outlines.ts";

export interface RankedSymbol {
  file: FileOutline;
  symbol: CodeSymbol;
  refs: number;
}

/** Every definition of `files` with its reference count, best first. */
export function rankDefinitions(files: FileOutline[]): RankedSymbol[] {
  const uses = new Map<string, number>();
  for (const file of files) {
    for (const [word, count] of Object.entries(file.identifiers ?? {})) {
      uses.set(word, (uses.get(word) ?? 0) + count);
    }
  }
  const definitions = new Map<string, number>();
  for (const file of files) {
    for (const symbol of file.symbols) {
      definitions.set(symbol.name, (definitions.get(symbol.name) ?? 0) + 1);
    }
  }
  const ranked: RankedSymbol[] = [];
  for (const file of files) {
    for (const symbol of file.symbols) {
      const refs = Math.max(0, (uses.get(symbol.name) ?? 0) - definitions.get(symbol.name)!);
      ranked.push({ file, symbol, refs });
    }
  }
  // Containers before their members at equal rank, then by place, so the order is stable.
  return ranked.sort((a, b) =>
    b.refs - a.refs || a.file.shown.localeCompare(b.file.shown) || a.symbol.start - b.symbol.start
  );
}

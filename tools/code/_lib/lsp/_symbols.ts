/**
 * A symbol by name path (`Class/method`) in one file, found through the server's
 * textDocument/documentSymbol (for a language tree-sitter does not parse): the position its
 * name starts at, for the request that follows. Name paths read as `symbols` reads them: the
 * last segments, or from the top with a leading `/`.
 */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import { matchesName, namePattern } from "../name_path.ts";
import type { Position } from "./_documents.ts";
import type { DocumentSymbol, SymbolInformation } from "./_protocol.ts";

interface Found {
  path: string;
  at: Position;
}

/** A server's name as a segment: `(*T).Method` and `method()` still match `Method`/`method`. */
function bare(name: string): string {
  return name.replace(/\(.*$/, "").replace(/^.*\./, "").trim();
}

function flatten(symbols: DocumentSymbol[], prefix: string[], out: Found[], depth = 0): void {
  if (depth > 50) return;
  for (const symbol of symbols) {
    if (typeof symbol?.name !== "string") continue;
    const path = [...prefix, bare(symbol.name) || symbol.name];
    const at = symbol.selectionRange?.start ?? symbol.range?.start;
    if (at) out.push({ path: path.join("/"), at });
    if (symbol.children) flatten(symbol.children, path, out, depth + 1);
  }
}

/**
 * The position of `namePath` among a file's symbols: an exact path, else a unique path ending
 * in it. Ambiguity and absence are refusals listing what there is.
 */
export function resolveNamePath(answer: unknown, namePath: string, shown: string): Position {
  const list: unknown[] = Array.isArray(answer) ? answer : [];
  const found: Found[] = [];
  if (list.some((s) => (s as SymbolInformation)?.location)) {
    // SymbolInformation: flat, with containerName.
    for (const s of list as SymbolInformation[]) {
      const at = s?.location?.range?.start;
      if (typeof s?.name !== "string" || !at) continue;
      const path = [s.containerName, bare(s.name)].filter(Boolean).join("/");
      found.push({ path, at });
    }
  } else flatten(list as DocumentSymbol[], [], found);
  const wanted = namePath.replace(/\/+$/, "");
  const pattern = namePattern(wanted, false);
  const matches = found.filter((f) => matchesName(f.path, pattern));
  if (matches.length === 1) return matches[0].at;
  const listed = (list: Found[]) =>
    list.slice(0, 10).map((f) => `${f.path} (line ${f.at.line + 1})`).join(", ") +
    (list.length > 10 ? `, … ${list.length - 10} more` : "");
  if (matches.length > 1) {
    throw new ToolError(
      `${matches.length} symbols in ${shown} match ${JSON.stringify(wanted.slice(0, 200))}: ` +
        `${listed(matches)}; give the full name path or line and column`,
    );
  }
  throw new ToolError(
    `no symbol ${JSON.stringify(wanted.slice(0, 200))} in ${shown}` +
      (found.length > 0 ? `; its symbols include ${listed(found)}` : " (the server lists none)"),
  );
}

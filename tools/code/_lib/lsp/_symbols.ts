/**
 * A symbol by name path (`Class/method`) in one file, found through the server's
 * textDocument/documentSymbol: the position its name starts at, for the request that follows.
 */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Position } from "./_documents.ts";

interface DocumentSymbol {
  name: string;
  kind?: number;
  selectionRange?: { start: Position };
  range?: { start: Position };
  location?: { range: { start: Position } };
  containerName?: string;
  children?: DocumentSymbol[];
}

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
    const path = [...prefix, bare(symbol.name) || symbol.name];
    const at = symbol.selectionRange?.start ?? symbol.range?.start ?? symbol.location?.range.start;
    if (at) out.push({ path: path.join("/"), at });
    if (symbol.children) flatten(symbol.children, path, out, depth + 1);
  }
}

/**
 * The position of `namePath` among a file's symbols: an exact path, else a unique path ending
 * in it. Ambiguity and absence are refusals listing what there is.
 */
export function resolveNamePath(answer: unknown, namePath: string, shown: string): Position {
  const symbols = (Array.isArray(answer) ? answer : []) as DocumentSymbol[];
  const found: Found[] = [];
  if (symbols.some((s) => s.location)) {
    // SymbolInformation: flat, with containerName.
    for (const s of symbols) {
      const path = [s.containerName, bare(s.name)].filter(Boolean).join("/");
      found.push({ path, at: s.location!.range.start });
    }
  } else flatten(symbols, [], found);
  const wanted = namePath.replace(/^\/+|\/+$/g, "");
  const exact = found.filter((f) => f.path === wanted);
  const matches = exact.length > 0
    ? exact
    : found.filter((f) => f.path.endsWith(`/${wanted}`) || f.path === wanted);
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

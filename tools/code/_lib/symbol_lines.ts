/** How symbols read in a reply: one short line each, `path:line kind name | first line`. */
import { shownName } from "../../_lib/text/shown_name.ts";
import type { RankedSymbol } from "./rank/mod.ts";

export interface SymbolRow {
  path: string;
  line: number;
  endLine: number;
  kind: string;
  namePath: string;
  signature?: string;
  refs?: number;
  body?: string;
}

/** The files a map or find looks at, and whether the walk stopped early. */
export interface Walked {
  files: string[];
  stoppedEarly?: string;
}

const SHOWN_SIGNATURE = 100;

function signatureOf(signature: string | undefined): string {
  if (!signature) return "";
  const cut = signature.length > SHOWN_SIGNATURE
    ? `${signature.slice(0, SHOWN_SIGNATURE)}…`
    : signature;
  return ` | ${shownName(cut)}`;
}

/** `path:line-end kind namePath | signature`, and the body below it when there is one. */
export function symbolLine(row: SymbolRow): string {
  const lines = row.endLine > row.line ? `${row.line}-${row.endLine}` : `${row.line}`;
  const head = `${shownName(row.path)}:${lines} ${row.kind} ${shownName(row.namePath)}${
    signatureOf(row.signature)
  }`;
  return row.body === undefined ? head : `${head}\n${row.body}\n`;
}

/**
 * The best-ranked definitions that fit `budget` characters, shown under their files (files in
 * the order of their best definition, definitions in line order).
 */
export function mapLines(
  ranked: RankedSymbol[],
  budget: number,
): { text: string; shown: RankedSymbol[] } {
  const chosen: RankedSymbol[] = [];
  const files = new Map<string, RankedSymbol[]>();
  let chars = 0;
  for (const entry of ranked) {
    const line = `  ${entry.symbol.line} ${entry.symbol.kind} ${shownName(entry.symbol.namePath)}${
      signatureOf(entry.symbol.signature)
    }\n`;
    const header = files.has(entry.file.shown) ? 0 : shownName(entry.file.shown).length + 2;
    if (chars + line.length + header > budget) continue;
    chars += line.length + header;
    chosen.push(entry);
    const list = files.get(entry.file.shown) ?? [];
    list.push(entry);
    files.set(entry.file.shown, list);
    if (budget - chars < 20) break;
  }
  const out: string[] = [];
  for (const [file, entries] of files) {
    out.push(`${shownName(file)}:`);
    entries.sort((a, b) => a.index - b.index);
    for (const e of entries) {
      out.push(
        `  ${e.symbol.line} ${e.symbol.kind} ${shownName(e.symbol.namePath)}${
          signatureOf(e.symbol.signature)
        }`,
      );
    }
  }
  return { text: out.join("\n"), shown: chosen };
}

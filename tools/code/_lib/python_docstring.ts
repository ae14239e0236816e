/**
 * A Python docstring is the first statement of the body, not a comment above the definition:
 * a symbol edit keeps it as it keeps a doc comment elsewhere, unless the new text brings one
 * (issue 34, item 6). replace_body keeps it above the new statements; replace_definition puts
 * it back at the top of the new body when the new definition has none.
 */
import type { CodeSymbol } from "./parse/mod.ts";
import { reindent } from "./symbol_splice.ts";

function lineStart(text: string, at: number): number {
  return text.lastIndexOf("\n", at - 1) + 1;
}

/** The docstring's whole lines (from the start of its first line), when it has its own lines. */
export function docstringLines(text: string, symbol: CodeSymbol): string | undefined {
  const doc = symbol.body?.doc;
  if (!doc) return undefined;
  const from = lineStart(text, doc.start);
  if (text.slice(from, doc.start).trim() !== "") return undefined;
  return text.slice(from, doc.end);
}

/**
 * `after` with `doc` (the old docstring's lines) put back at the top of the body of the
 * definition the edit inserted at `from`..`to`, when that definition has no docstring; else
 * `after` unchanged.
 */
export function restoreDocstring(
  after: string,
  symbols: CodeSymbol[],
  from: number,
  to: number,
  doc: string,
): string {
  const made = symbols.find((s) => s.head >= from && s.head < to);
  const body = made?.body;
  if (!body || body.colon === undefined || body.doc) return after;
  const at = lineStart(after, body.start);
  if (at <= body.colon) {
    // A body on the colon's line (`def f(): return 1`) moves below the docstring, at the
    // docstring's indentation (the new definition stands where the old one did).
    const indent = /^[ \t]*/.exec(doc)![0];
    return after.slice(0, body.colon) + "\n" + reindent(doc, indent, true) + "\n" + indent +
      after.slice(body.start);
  }
  if (after.slice(at, body.start).trim() !== "") return after;
  const indent = /^[ \t]*/.exec(after.slice(at, body.start))![0];
  return after.slice(0, at) + reindent(doc, indent, true) + "\n" + after.slice(at);
}

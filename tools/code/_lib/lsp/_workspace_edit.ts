/**
 * A server's WorkspaceEdit (a rename's answer) as new file contents: only text edits (a rename
 * that creates, moves or deletes files is refused), edits applied from the end so earlier
 * offsets stay true, overlapping edits refused.
 */
import { ToolError } from "../../../../mcp/tool/mod.ts";
import { lineStarts, offsetOf, type Position } from "./_documents.ts";

export interface TextEdit {
  range: { start: Position; end: Position };
  newText: string;
}

/** The text edits of a WorkspaceEdit by URI, in either of its two shapes. */
export function editsByUri(edit: unknown): Map<string, TextEdit[]> {
  const byUri = new Map<string, TextEdit[]>();
  const add = (uri: unknown, edits: unknown) => {
    if (typeof uri !== "string" || !Array.isArray(edits)) return;
    byUri.set(uri, [...(byUri.get(uri) ?? []), ...(edits as TextEdit[])]);
  };
  const { changes, documentChanges } = (edit ?? {}) as {
    changes?: Record<string, unknown>;
    documentChanges?: Record<string, unknown>[];
  };
  if (Array.isArray(documentChanges)) {
    for (const change of documentChanges) {
      if (typeof change.kind === "string") {
        throw new ToolError(
          `the server's rename would ${change.kind} a file; only renames within files are applied`,
        );
      }
      add((change.textDocument as { uri?: unknown })?.uri, change.edits);
    }
  } else if (changes && typeof changes === "object") {
    for (const [uri, edits] of Object.entries(changes)) add(uri, edits);
  }
  return byUri;
}

/** `text` with `edits` applied; throws on edits that overlap. */
export function applyEdits(text: string, edits: TextEdit[], shown: string): string {
  const starts = lineStarts(text);
  const spans = edits.map((e) => ({
    start: offsetOf(text, e.range.start, starts),
    end: offsetOf(text, e.range.end, starts),
    text: String(e.newText ?? ""),
  })).sort((a, b) => b.start - a.start || b.end - a.end);
  let result = text;
  let limit = Infinity;
  for (const span of spans) {
    if (span.end > limit || span.end < span.start) {
      throw new ToolError(`the server's edits for ${shown} overlap; nothing was changed`);
    }
    result = result.slice(0, span.start) + span.text + result.slice(span.end);
    limit = span.start;
  }
  return result;
}

/**
 * Source files as a language server sees them: read through the sandbox (never through a link
 * out of the roots), bounded, text only; and the conversions between the 1-based line and column
 * a model gives and LSP's 0-based UTF-16 positions.
 */
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../../../../mcp/tool/mod.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import type { Position } from "./_protocol.ts";

/** Larger files are not sent to a server (a minified bundle would only slow it down). */
export const MAX_SOURCE_BYTES = 4 * 1024 * 1024;

export interface Source {
  text: string;
  mtimeMs: number;
  size: number;
  ino: number;
}

/**
 * Reads `real` (a path the sandbox checked) as UTF-8 text, refusing big or binary files; `open`
 * opens it (through the edit transaction, for a rename), through the sandbox unless given.
 */
export async function readSource(
  sandbox: Sandbox,
  real: string,
  open: () => Promise<FileHandle> = () => sandbox.openForReading(real),
): Promise<Source> {
  const handle = await open();
  try {
    const info = await handle.stat();
    if (info.size > MAX_SOURCE_BYTES) {
      throw new ToolError(
        `${sandbox.display(real)} is ${info.size} bytes, over the ${MAX_SOURCE_BYTES}-byte limit ` +
          "for a language server query; use grep or read_file on it",
      );
    }
    const bytes = await handle.readFile();
    if (bytes.includes(0)) {
      throw new ToolError(`${sandbox.display(real)} is a binary file, not source code`);
    }
    let text: string;
    try {
      // The BOM is kept as a character, so what is written back is byte for byte the same.
      text = new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      throw new ToolError(`${sandbox.display(real)} is not UTF-8 text`);
    }
    return { text, mtimeMs: info.mtimeMs, size: info.size, ino: info.ino };
  } finally {
    await handle.close();
  }
}

export type { Position };

/** The LSP position of text offset `at` (a string index, so UTF-16 like LSP's characters). */
export function positionAt(text: string, at: number): Position {
  const start = text.lastIndexOf("\n", at - 1) + 1;
  let line = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < start; i = text.indexOf("\n", i + 1)) line++;
  return { line, character: at - start };
}

/** The LSP position of 1-based `line` and `column` in `text`, or a clear refusal. */
export function positionIn(text: string, line: number, column: number, shown: string): Position {
  const content = lineOf(text, line);
  if (content === undefined) {
    const count = lineStarts(text).length - (text.endsWith("\n") ? 1 : 0);
    throw new ToolError(
      `line ${line} is past the end of ${shown} (${count} lines); give a line in 1..${count}`,
    );
  }
  const length = content.replace(/\r$/, "").length;
  if (column > length + 1) {
    throw new ToolError(
      `column ${column} is past the end of line ${line} of ${shown} (${length} characters); ` +
        `give a column in 1..${length + 1}`,
    );
  }
  return { line: line - 1, character: column - 1 };
}

/**
 * Line `line` (1-based) of `text` without its newline, or undefined past the last one (a final
 * newline ends the last line, it starts none). Found without splitting the whole text: every
 * query asks this of its file.
 */
export function lineOf(text: string, line: number): string | undefined {
  let start = 0;
  for (let n = 1; n < line; n++) {
    const next = text.indexOf("\n", start);
    if (next < 0) return undefined;
    start = next + 1;
  }
  if (line > 1 && start === text.length) return undefined;
  const end = text.indexOf("\n", start);
  return text.slice(start, end < 0 ? text.length : end);
}

/** The text offset of an LSP position (clamped to the text, as servers may round). */
export function offsetOf(text: string, position: Position, starts = lineStarts(text)): number {
  const line = Math.min(Math.max(position.line, 0), starts.length - 1);
  const start = starts[line];
  const end = line + 1 < starts.length ? starts[line + 1] : text.length;
  return Math.min(start + Math.max(position.character, 0), end);
}

export function lineStarts(text: string): number[] {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return starts;
}

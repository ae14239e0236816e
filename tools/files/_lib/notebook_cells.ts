/**
 * notebook_edit's work on a notebook's text, without the disk: find a cell by id or number,
 * change, insert or delete it, and write the notebook back in its own layout (indentation,
 * line endings, trailing newline, ASCII escapes), every other cell's content as it was.
 */
import { randomBytes } from "node:crypto";
import { quoted } from "../../../config/quote.ts";
import { shapeProblem } from "../../../mcp/wire/mod.ts";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { joined, type Notebook, type NotebookCell } from "../../_lib/documents/notebook.ts";
import { explainMissing, occurrences } from "./edit_match.ts";

export type CellType = "code" | "markdown";

export interface CellEdit {
  action: "replace" | "insert" | "delete";
  /** A cell id, or a 1-based number (an integer, or a string of digits that is no cell's id). */
  cell?: string | number;
  source?: string;
  old_string?: string;
  new_string?: string;
  cell_type?: CellType;
  position?: "before" | "after";
}

export interface CellEditResult {
  text: string;
  /** The cell changed or inserted (1-based, after the edit), or the one deleted (before it). */
  number: number;
  id?: string;
  cells: number;
  /** A code cell's outputs and execution count were cleared. */
  clearedOutputs: boolean;
  /** The cell's source after the edit (none after a delete). */
  source?: string;
}

/** The layout the notebook was written in, so that it is written back the same way. */
interface Layout {
  indent: string;
  crlf: boolean;
  finalNewline: boolean;
  asciiOnly: boolean;
}

function layoutOf(text: string): Layout {
  const crlf = /\r\n/.test(text) && !/(^|[^\r])\n/.test(text);
  const second = /\r?\n([ \t]*)\S/.exec(text);
  return {
    indent: second ? second[1] : "",
    crlf,
    finalNewline: /\n$/.test(text),
    // ensure_ascii=True writers escape every non-ASCII character.
    // deno-lint-ignore no-control-regex
    asciiOnly: /^[\x00-\x7f]*$/.test(text) && /\\u[0-9a-fA-F]{4}/.test(text),
  };
}

function serialize(notebook: Notebook, layout: Layout): string {
  let out = JSON.stringify(notebook, null, layout.indent);
  if (layout.asciiOnly) {
    out = out.replace(
      /[\u0080-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    );
  }
  if (layout.finalNewline) out += "\n";
  return layout.crlf ? out.replaceAll("\n", "\r\n") : out;
}

/** Source as nbformat stores it: a list of lines, each but the last ending in "\n". */
export function sourceLines(source: string): string[] {
  return source.match(/[^\n]*\n|[^\n]+$/g) ?? [];
}

/** Levels of arrays and objects a notebook may nest; nbformat's own structure needs about six. */
const MAX_NOTEBOOK_DEPTH = 1_000;

/** The notebook's text parsed, checked to be nbformat 4 with cells that have a type. */
export function parseForEdit(text: string, shown: string): Notebook {
  // Looked at before parsing: a notebook nested a million levels deep overflowed the stack of
  // the code that walks it, and held every other request for seconds while it was parsed.
  const problem = shapeProblem(text, { depth: MAX_NOTEBOOK_DEPTH, values: Infinity });
  if (problem !== undefined) {
    throw new ToolError(
      `${shown} cannot be edited: ${problem} (a notebook nests a few); nothing was changed`,
    );
  }
  let notebook: Notebook;
  try {
    notebook = JSON.parse(text.replace(/^\uFEFF/, ""));
  } catch (error) {
    throw new ToolError(
      `${shown} is not valid JSON (${(error as Error).message.slice(0, 200)}); nothing was changed`,
    );
  }
  if (!notebook || typeof notebook !== "object" || !Array.isArray(notebook.cells)) {
    throw new ToolError(`${shown} is not a Jupyter notebook (nbformat 4): it has no cells list`);
  }
  if (notebook.nbformat !== 4) {
    throw new ToolError(
      `${shown} is nbformat ${notebook.nbformat ?? "unknown"}; notebook_edit edits nbformat 4 only`,
    );
  }
  for (const [i, cell] of notebook.cells.entries()) {
    if (!cell || typeof cell !== "object" || typeof cell.cell_type !== "string") {
      throw new ToolError(`${shown}: cell ${i + 1} has no cell_type; nothing was changed`);
    }
  }
  return notebook;
}

/** What a wrong cell reference is told: the numbers and ids there are. */
function available(cells: NotebookCell[]): string {
  if (cells.length === 0) return "the notebook has no cells (insert one without `cell`)";
  const ids = cells.map((c, i) => typeof c.id === "string" ? `${i + 1}=${c.id}` : "")
    .filter(Boolean);
  const shownIds = ids.slice(0, 40).join(", ") + (ids.length > 40 ? ", ..." : "");
  return `the notebook has cells 1-${cells.length}${
    ids.length ? `; ids: ${shownIds}` : " (no ids)"
  }`;
}

/** The 0-based index of the cell `ref` names. */
export function findCell(cells: NotebookCell[], ref: string | number): number {
  if (typeof ref === "string") {
    const byId = cells.findIndex((c) => c.id === ref);
    if (byId >= 0) return byId;
    if (!/^\d+$/.test(ref.trim())) {
      throw new ToolError(`no cell has id ${quoted(ref)}: ${available(cells)}`);
    }
    ref = Number(ref.trim());
  }
  if (!Number.isInteger(ref) || ref < 1 || ref > cells.length) {
    throw new ToolError(`there is no cell ${ref}: ${available(cells)}`);
  }
  return ref - 1;
}

/** nbformat 4.5 and later give every cell an id; so do notebooks whose cells already have one. */
function wantsIds(notebook: Notebook): boolean {
  const minor = typeof notebook.nbformat_minor === "number" ? notebook.nbformat_minor : 0;
  return minor >= 5 || notebook.cells.some((c) => typeof c.id === "string");
}

function newId(cells: NotebookCell[]): string {
  const taken = new Set(cells.map((c) => c.id));
  for (;;) {
    const id = randomBytes(4).toString("hex");
    if (!taken.has(id)) return id;
  }
}

/** A code cell's outputs and count are cleared; a cell that changes type gets its fields. */
function setType(cell: NotebookCell, type: string): void {
  cell.cell_type = type;
  if (type === "code") {
    cell.execution_count = null;
    cell.outputs = [];
  } else {
    delete cell.execution_count;
    delete cell.outputs;
  }
}

function newCell(type: CellType, source: string, id: string | undefined): NotebookCell {
  // Keys in the order Jupyter writes them (sorted).
  return type === "code"
    ? {
      cell_type: "code",
      execution_count: null,
      ...(id ? { id } : {}),
      metadata: {},
      outputs: [],
      source: sourceLines(source),
    }
    : { cell_type: "markdown", ...(id ? { id } : {}), metadata: {}, source: sourceLines(source) };
}

/** Applies `edit` to the notebook in `text`; throws a ToolError saying why it cannot. */
export function editNotebook(text: string, shown: string, edit: CellEdit): CellEditResult {
  const notebook = parseForEdit(text, shown);
  const cells = notebook.cells;
  const layout = layoutOf(text);
  const done = (index: number, clearedOutputs: boolean, source?: string): CellEditResult => ({
    text: serialize(notebook, layout),
    number: index + 1,
    ...(typeof cells[index]?.id === "string" && edit.action !== "delete"
      ? { id: cells[index].id }
      : {}),
    cells: cells.length,
    clearedOutputs,
    ...(source !== undefined ? { source } : {}),
  });

  if (edit.action === "insert") {
    if (edit.source === undefined) throw new ToolError("insert needs `source` (it may be empty)");
    if (edit.old_string !== undefined) {
      throw new ToolError("insert takes `source`, not old_string/new_string");
    }
    const after = (edit.position ?? "after") === "after";
    const at = edit.cell === undefined
      ? (after ? cells.length : 0)
      : findCell(cells, edit.cell) + (after ? 1 : 0);
    const cell = newCell(
      edit.cell_type ?? "code",
      edit.source,
      wantsIds(notebook) ? newId(cells) : undefined,
    );
    cells.splice(at, 0, cell);
    return done(at, false, edit.source);
  }

  if (edit.cell === undefined) {
    throw new ToolError(`${edit.action} needs \`cell\` (an id or number)`);
  }
  const index = findCell(cells, edit.cell);
  const cell = cells[index];
  const name = `cell ${index + 1}${typeof cell.id === "string" ? ` (id ${cell.id})` : ""}`;

  if (edit.action === "delete") {
    cells.splice(index, 1);
    const result = done(index, false);
    return { ...result, ...(typeof cell.id === "string" ? { id: cell.id } : {}) };
  }

  const before = joined(cell.source);
  let after: string;
  if (edit.old_string !== undefined) {
    if (edit.source !== undefined) {
      throw new ToolError("give either `source` or old_string/new_string, not both");
    }
    if (edit.new_string === undefined) throw new ToolError("old_string needs new_string");
    const found = occurrences(before, edit.old_string);
    if (found.length === 0) {
      throw new ToolError(
        `old_string was not found in ${name}; nothing was changed. ${
          explainMissing(before, edit.old_string)
        }`,
      );
    }
    if (found.length > 1) {
      throw new ToolError(
        `old_string appears ${found.length} times in ${name}; add context to make it unique, or replace the whole source`,
      );
    }
    after = before.slice(0, found[0]) + edit.new_string +
      before.slice(found[0] + edit.old_string.length);
  } else if (edit.source !== undefined) {
    after = edit.source;
  } else if (edit.cell_type !== undefined) {
    after = before;
  } else {
    throw new ToolError("replace needs `source`, old_string/new_string, or a new cell_type");
  }
  const typeChanges = edit.cell_type !== undefined && edit.cell_type !== cell.cell_type;
  if (after === before && !typeChanges) {
    throw new ToolError(`${name} already has that source; nothing was changed`);
  }
  if (after !== before) cell.source = sourceLines(after);
  let cleared = false;
  if (typeChanges) {
    cleared = cell.cell_type === "code" && (cell.outputs?.length ?? 0) > 0;
    setType(cell, edit.cell_type!);
  } else if (cell.cell_type === "code") {
    cleared = (cell.outputs?.length ?? 0) > 0 || cell.execution_count != null;
    setType(cell, "code");
  }
  return done(index, cleared, after);
}

import { defineTool, type ToolContext } from "../../mcp/tool/mod.ts";
import { transaction } from "../_lib/transaction/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { FORCE_PROPERTY, pathProperty } from "../_lib/declarations/path_properties.ts";
import { encodeText } from "../_lib/text/text.ts";
import { type CellEdit, editNotebook } from "./_lib/notebook_cells.ts";

/** Characters of the changed cell's source shown in the result. */
const MAX_SHOWN_CHARS = 2_000;

export default defineTool({
  name: "notebook_edit",
  title: "Edit a notebook cell",
  description: (offers) =>
    "Edits one cell of a Jupyter notebook (.ipynb), found by `cell` id or number (from 1" +
    (offers("read_file") ? ", as read_file shows" : "") +
    "): replace its `source`, or `old_string` (exactly once in the cell) with " +
    "`new_string`; insert a cell before/after it; or delete it. A changed code cell loses its " +
    "outputs and execution count.",
  annotations: CHANGES_FILES,
  writes: { paths: [{ arg: "path", kind: "replaces" }], force: "force" },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The .ipynb file"),
      cell: {
        type: ["string", "integer"],
        description: "Cell id or number. Insert without it: at the end.",
      },
      action: { type: "string", enum: ["replace", "insert", "delete"], default: "replace" },
      source: { type: "string", description: "The cell's whole new source." },
      old_string: { type: "string", minLength: 1 },
      new_string: { type: "string" },
      cell_type: {
        type: "string",
        enum: ["code", "markdown"],
        description: "Insert: default code. Replace: changes the type.",
      },
      position: { type: "string", enum: ["before", "after"], default: "after" },
      force: FORCE_PROPERTY,
    },
    required: ["path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      action: { type: "string" },
      cell: { type: "integer" },
      id: { type: "string" },
      cells: { type: "integer" },
      clearedOutputs: { type: "boolean" },
    },
    required: ["path", "action", "cell", "cells", "clearedOutputs"],
    additionalProperties: false,
  },

  run: editNotebookFile,
});

/** What the model asked notebook_edit for. */
type NotebookArgs = Omit<CellEdit, "action"> & {
  path: string;
  action?: CellEdit["action"];
  force?: boolean;
};

/** Edits one cell of the notebook through the edit transaction. */
function editNotebookFile(args: NotebookArgs, ctx: ToolContext) {
  return transaction(ctx, async (tx) => {
    const target = await tx.target(args.path);
    const file = await tx.readText(target, {
      tool: "notebook_edit",
      create: "create a notebook with write_file",
      instead: "use a script instead",
      notText: `${target.shown} is not a text file; it cannot be a notebook`,
    });
    const { shown, decoded } = file;
    const action = args.action ?? "replace";
    const result = editNotebook(decoded.text, shown, { ...args, action });
    const { note } = await tx.replace(
      file,
      encodeText(result.text, decoded.encoding, decoded.bom),
    );
    const name = `cell ${result.number}${result.id ? ` (id ${result.id})` : ""}`;
    const what = action === "delete"
      ? `Deleted ${name}`
      : action === "insert"
      ? `Inserted ${name}`
      : `Replaced the source of ${name}`;
    const source = result.source === undefined
      ? ""
      : `\n\n${
        result.source.length > MAX_SHOWN_CHARS
          ? `${result.source.slice(0, MAX_SHOWN_CHARS)}\n[... cut at ${MAX_SHOWN_CHARS} characters]`
          : result.source
      }`;
    return {
      content: `${what} of ${shown}; it has ${result.cells} cell${result.cells === 1 ? "" : "s"}.${
        result.clearedOutputs ? " The cell's outputs and execution count were cleared." : ""
      }${note}${source}`,
      structured: {
        path: shown,
        action,
        cell: result.number,
        ...(result.id ? { id: result.id } : {}),
        cells: result.cells,
        clearedOutputs: result.clearedOutputs,
      },
    };
  });
}

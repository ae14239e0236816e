import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import {
  assertWritable,
  hardLinkNote,
  Sandbox,
  whileChanging,
  writeFileAtomic,
} from "../_lib/sandbox/mod.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { FORCE_PROPERTY, pathProperty } from "../_lib/declarations/path_properties.ts";
import { decodeText, encodeText } from "../_lib/text/text.ts";
import { assertUnchanged, editableFile } from "./_lib/edited_file.ts";
import { editNotebook } from "./_lib/notebook_cells.ts";

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

  run(args, ctx) {
    return whileChanging(async () => {
      const sandbox = await Sandbox.of(ctx);
      const { real, exists } = await sandbox.resolve(args.path);
      const shown = sandbox.display(real);
      const info = await editableFile(sandbox, { real, exists, shown }, {
        tool: "notebook_edit",
        create: "create a notebook with write_file",
        instead: "use a script instead",
      });
      await assertWritable(real, shown);
      const handle = await sandbox.openForReading(real);
      const content = await handle.readFile().finally(() => handle.close());
      const decoded = decodeText(content);
      if (!decoded || decoded.invalid > 0) {
        throw new ToolError(`${shown} is not a text file; it cannot be a notebook`);
      }
      const action = args.action ?? "replace";
      const result = editNotebook(decoded.text, shown, { ...args, action });
      await assertUnchanged(sandbox, real, shown, info);
      let note = "";
      try {
        const written = await writeFileAtomic(
          real,
          encodeText(result.text, decoded.encoding, decoded.bom),
          sandbox,
          {
            // The journal then knows what the file holds without reading it back, and may
            // still be opening the old file for undo.
            digest: true,
            beforeRename: () => ctx.writes.replacing(),
          },
        );
        note = hardLinkNote(written.hardLinks);
      } catch (error) {
        throw new ToolError(
          `could not write ${shown}: ${(error as Error).message}. The file was left as it was.`,
        );
      }
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
            ? `${
              result.source.slice(0, MAX_SHOWN_CHARS)
            }\n[... cut at ${MAX_SHOWN_CHARS} characters]`
            : result.source
        }`;
      return {
        content: `${what} of ${shown}; it has ${result.cells} cell${
          result.cells === 1 ? "" : "s"
        }.${
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
  },
});

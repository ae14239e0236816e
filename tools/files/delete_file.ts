import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { DELETES_FILES } from "../_lib/declarations/annotations.ts";
import {
  describeEntry,
  ENTRY_TYPES,
  entryType,
  isWithin,
  resolveEntry,
  Sandbox,
  whileChanging,
} from "../_lib/sandbox/mod.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { showBeforeRemoving } from "../_lib/tree_witness.ts";
import { bytes, count } from "../_lib/text/units.ts";
import { MAX_TREE_ENTRIES, measure, newTally, removeContents } from "./_lib/held_tree.ts";

export default defineTool({
  name: "delete_file",
  title: "Delete a file or directory",
  description: "Deletes a file or symlink (the link, not its target); a directory only with " +
    `\`recursive: true\` (everything in it, up to ${count(MAX_TREE_ENTRIES)} entries and 1 GB). ` +
    "Never an allowed root. Links inside are removed, not followed.",
  annotations: DELETES_FILES,
  writes: { paths: [{ arg: "path", kind: "removes", link: true, tree: "recursive" }] },
  input: {
    type: "object",
    properties: {
      path: pathProperty("What to delete"),
      recursive: { type: "boolean", description: "Needed to delete a directory." },
    },
    required: ["path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      type: { enum: ENTRY_TYPES },
      entries: { type: "integer", description: "removed inside it" },
      bytes: { type: "integer" },
    },
    required: ["path", "type", "entries", "bytes"],
    additionalProperties: false,
  },

  run: deleteFile,
});

/** What the model asked delete_file for. */
interface DeleteArgs {
  path: string;
  recursive?: boolean;
}

/** Deletes a file or link, or with `recursive` a directory tree, never an allowed root. */
function deleteFile(args: DeleteArgs, ctx: ToolContext) {
  return whileChanging(async () => {
    const sandbox = await Sandbox.of(ctx);
    const { entry } = await resolveEntry(sandbox, args.path);
    const shown = sandbox.display(entry);
    const inside = sandbox.roots.find((root) => isWithin(entry, root));
    if (inside !== undefined) {
      throw new ToolError(
        inside === entry
          ? `${shown} is an allowed root; delete_file never deletes a root.`
          : `${shown} holds the allowed root ${inside}; delete_file never deletes a root.`,
      );
    }
    const info = await sandbox.info(entry).catch((error) => {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "ENOTDIR") {
        throw new ToolError(`${shown} does not exist; nothing was deleted.`);
      }
      throw error;
    });
    const type = entryType(info);
    if (info.isDirectory() && !args.recursive) {
      throw new ToolError(
        `${shown} is a directory; pass recursive: true to delete it with everything in it.`,
      );
    }
    if (ctx.signal.aborted) throw new ToolError("nothing deleted: the call was stopped first");
    const { dir, name } = await sandbox.parent(entry);
    const removed = newTally();
    try {
      if (!info.isDirectory()) {
        await dir.unlink(name).catch((error) => {
          throw new ToolError(`could not delete ${shown}: ${(error as Error).message}`);
        });
        if (info.isFile()) removed.bytes = info.size;
      } else {
        let inner;
        try {
          inner = (await dir.child(name)).dir;
        } catch {
          throw new ToolError(`${shown} changed while it was being opened; try again`);
        }
        try {
          // The journal compares it with the tree it kept for undo.
          await showBeforeRemoving(ctx, inner);
          // Counted first: a tree over the bounds is refused before anything is removed.
          const total = await measure(inner, shown, "bash (rm -r)", ctx.signal);
          ctx.progress(0, total.entries);
          await removeContents(inner, removed, ctx.signal);
        } catch (error) {
          if (removed.entries === 0 && error instanceof ToolError) throw error;
          throw new ToolError(
            `could not delete all of ${shown}: ${(error as Error).message}. ${
              count(removed.entries)
            } entries inside it were removed before that.`,
          );
        } finally {
          await inner.close();
        }
        await dir.rmdir(name).catch((error) => {
          throw new ToolError(
            `emptied ${shown} (${count(removed.entries)} entries) but could not remove it: ${
              (error as Error).message
            }`,
          );
        });
      }
    } finally {
      await dir.close();
    }
    const what = info.isDirectory()
      ? `the directory ${shown} and the ${count(removed.entries)} entr${
        removed.entries === 1 ? "y" : "ies"
      } in it (${bytes(removed.bytes)} of files)`
      : info.isFile()
      ? `the file ${shown} (${bytes(info.size)})`
      : `the ${describeEntry(info)} ${shown}`;
    return {
      content: `Deleted ${what}.`,
      structured: { path: shown, type, entries: removed.entries, bytes: removed.bytes },
    };
  });
}

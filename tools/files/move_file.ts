import type { Stats } from "node:fs";
import { basename, join } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { describeEntry, type Dir, ENTRY_TYPES, entryType, isWithin } from "../_lib/sandbox/mod.ts";
import { transaction } from "../_lib/transaction/mod.ts";
import { moveAcrossDevices } from "./_lib/move_across_devices.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";

export default defineTool({
  name: "move_file",
  title: "Move or rename a file or directory",
  description:
    "Moves or renames a file, directory or symlink (the link itself). `destination` is the new " +
    "path, not a folder to move into. An existing destination is refused unless `overwrite`; even " +
    "then a directory replaces only an empty directory, and a file only a file. Creates missing " +
    "parents; across filesystems it copies, then removes the source.",
  annotations: CHANGES_FILES,
  writes: { paths: [{ arg: "source", kind: "moves", to: "destination", link: true }] },
  input: {
    type: "object",
    properties: {
      source: { type: "string", minLength: 1 },
      destination: {
        type: "string",
        minLength: 1,
        description: "Its new path (including the name); relative paths start at the first root.",
      },
      overwrite: {
        type: "boolean",
        description: "Replace an existing destination.",
      },
    },
    required: ["source", "destination"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      source: { type: "string" },
      destination: { type: "string" },
      type: { enum: ENTRY_TYPES },
      overwritten: {
        type: "boolean",
        description: "whether something at the destination was replaced",
      },
      copied: { type: "boolean", description: "moved across filesystems by copying" },
    },
    required: ["source", "destination", "type", "overwritten", "copied"],
    additionalProperties: false,
  },

  run: move,
});

/** What the model asked move_file for. */
interface MoveArgs {
  source: string;
  destination: string;
  overwrite?: boolean;
}

/**
 * Renames the source into the destination's place through the edit transaction (across
 * filesystems: copied beside it first, then put in place, then the source removed).
 */
function move(args: MoveArgs, ctx: ToolContext) {
  return transaction(ctx, async (tx) => {
    const { sandbox } = tx;
    const from = await tx.target(args.source);
    const to = await tx.target(args.destination);
    const [source, destination] = [from.real, to.real];
    const [sourceShown, destinationShown] = [from.shown, to.shown];
    const sourceInfo = from.info;
    if (!sourceInfo) {
      throw new ToolError(
        `source ${sourceShown} does not exist. Check the path; list_dir or glob can find it.`,
      );
    }
    if (sandbox.roots.includes(source)) {
      throw new ToolError(`${sourceShown} is an allowed root; it cannot be moved.`);
    }
    if (source === destination) {
      throw new ToolError(`source and destination are the same path (${sourceShown}).`);
    }
    if (sourceInfo.isDirectory() && isWithin(source, destination)) {
      throw new ToolError(
        `cannot move ${sourceShown} into itself (${destinationShown}); choose a destination outside it.`,
      );
    }
    const destinationInfo = to.info;
    if (destinationInfo) {
      refuseReplacing(
        sourceInfo,
        destinationInfo,
        destinationShown,
        basename(source),
        args.overwrite,
      );
    } else {
      await tx.makeParents(to);
    }
    if (ctx.signal.aborted) throw new ToolError("not moved: the call was stopped first");
    let copied = false;
    // Both ends are opened beneath their root: the rename acts on those two directories'
    // entries, whatever is renamed meanwhile.
    const opened: Dir[] = [];
    try {
      const leaving = await sandbox.parent(source);
      opened.push(leaving.dir);
      const into = await tx.parentOf(to);
      opened.push(into.dir);
      try {
        // In the destination's place, once the journal holds what was there and it is still
        // what this call saw.
        await tx.commit(to, into, leaving);
      } catch (error) {
        if (error instanceof ToolError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOTEMPTY" || code === "EEXIST") {
          throw new ToolError(
            `${destinationShown} is a directory that is not empty; overwrite replaces only empty ` +
              "directories. Move its contents away, or choose another destination.",
          );
        }
        if (code !== "EXDEV") {
          throw new ToolError(
            `could not move ${sourceShown} to ${destinationShown}: ${(error as Error).message}`,
          );
        }
        await moveAcrossDevices(
          leaving,
          into,
          sourceShown,
          destinationShown,
          (temporary) => tx.commit(to, into, { dir: into.dir, name: temporary }),
          ctx.signal,
        );
        copied = true;
      }
    } finally {
      for (const dir of opened) await dir.close();
    }
    const how = [
      ...(destinationInfo ? [`replaced the ${describeEntry(destinationInfo)} that was there`] : []),
      ...(copied ? ["copied across filesystems, then the source removed"] : []),
    ];
    return {
      content: `Moved ${sourceShown} to ${destinationShown}${
        how.length ? ` (${how.join("; ")})` : ""
      }.`,
      structured: {
        source: sourceShown,
        destination: destinationShown,
        type: entryType(sourceInfo),
        overwritten: destinationInfo !== undefined,
        copied,
      },
    };
  });
}

/** Refuses a move that would put one kind of entry in place of another, or overwrite unasked. */
function refuseReplacing(
  source: Stats,
  destination: Stats,
  shown: string,
  name: string,
  overwrite: boolean | undefined,
): void {
  if (destination.isDirectory() && !source.isDirectory()) {
    throw new ToolError(
      `${shown} is a directory; a ${describeEntry(source)} cannot replace it. Give the full new ` +
        `path instead, e.g. ${join(shown, name)}.`,
    );
  }
  if (source.isDirectory() && !destination.isDirectory()) {
    throw new ToolError(
      `${shown} is a ${
        describeEntry(destination)
      }; a directory cannot replace it. Choose another destination.`,
    );
  }
  if (!overwrite) {
    const into = destination.isDirectory()
      ? ` (only when it is empty), or give a path inside it (e.g. ${
        join(shown, name)
      }) to move into it`
      : "";
    throw new ToolError(
      `destination ${shown} already exists (a ${describeEntry(destination)}); pass ` +
        `overwrite: true to replace it${into}.`,
    );
  }
}

import type { Stats } from "node:fs";
import { basename, dirname, join, sep } from "node:path";
import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import {
  describeEntry,
  type Dir,
  ENTRY_TYPES,
  entryType,
  infoIfAny,
  makeDirectories,
  resolveEntry,
  Sandbox,
  whileChanging,
} from "../_lib/sandbox/mod.ts";
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

  run(args, ctx) {
    return whileChanging(async () => {
      const sandbox = await Sandbox.of(ctx);
      const from = await resolveEntry(sandbox, args.source);
      const to = await resolveEntry(sandbox, args.destination);
      const [source, destination] = [from.entry, to.entry];
      const [sourceShown, destinationShown] = [
        sandbox.display(source),
        sandbox.display(destination),
      ];
      const sourceInfo = await infoIfAny(sandbox, source);
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
      if (sourceInfo.isDirectory() && destination.startsWith(source + sep)) {
        throw new ToolError(
          `cannot move ${sourceShown} into itself (${destinationShown}); choose a destination outside it.`,
        );
      }
      const destinationInfo = await infoIfAny(sandbox, destination);
      if (destinationInfo) {
        refuseReplacing(
          sourceInfo,
          destinationInfo,
          destinationShown,
          basename(source),
          args.overwrite,
        );
      } else {
        await makeDirectories(sandbox, dirname(destination));
      }
      if (ctx.signal.aborted) throw new ToolError("not moved: the call was stopped first");
      let copied = false;
      // Both ends are opened beneath their root: the rename acts on those two directories'
      // entries, whatever is renamed meanwhile.
      const opened: Dir[] = [];
      try {
        const from = await sandbox.parent(source);
        opened.push(from.dir);
        const into = await sandbox.parent(destination);
        opened.push(into.dir);
        try {
          await from.dir.rename(from.name, into.dir, into.name);
        } catch (error) {
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
          await moveAcrossDevices(from, into, sourceShown, destinationShown, ctx.signal);
          copied = true;
        }
      } finally {
        for (const dir of opened) await dir.close();
      }
      const how = [
        ...(destinationInfo
          ? [`replaced the ${describeEntry(destinationInfo)} that was there`]
          : []),
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
  },
});

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

import type { Stats } from "node:fs";
import { join } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { REPLACES_FILES } from "../_lib/declarations/annotations.ts";
import {
  describeEntry,
  type Dir,
  ENTRY_TYPES,
  entryType,
  infoIfAny,
  isWithin,
  MovedOutOfRoots,
  resolveEntry,
  type Sandbox,
  temporaryName,
} from "../_lib/sandbox/mod.ts";
import { transaction } from "../_lib/transaction/mod.ts";
import { bytes, count } from "../_lib/text/units.ts";
import {
  copyContents,
  copyFile,
  MAX_TREE_ENTRIES,
  measure,
  newTally,
  removeEntry,
} from "./_lib/held_tree.ts";

export default defineTool({
  name: "copy_file",
  title: "Copy a file or directory",
  description: "Copies a file, or a directory with `recursive: true` (up to " +
    `${count(MAX_TREE_ENTRIES)} entries and 1 GB), to \`destination\` (the new path). ` +
    "Symlinks are copied as links, never followed; FIFOs and devices are skipped. An existing " +
    "destination is refused unless `overwrite` (a file replaces only a file, a directory only " +
    "an empty directory). Creates missing parents.",
  annotations: REPLACES_FILES,
  writes: { paths: [{ arg: "destination", kind: "receives", link: true }] },
  input: {
    type: "object",
    properties: {
      source: { type: "string", minLength: 1 },
      destination: { type: "string", minLength: 1, description: "The copy's path." },
      overwrite: { type: "boolean", description: "Replace an existing destination." },
      recursive: { type: "boolean", description: "Needed to copy a directory." },
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
      entries: { type: "integer" },
      bytes: { type: "integer" },
      overwritten: { type: "boolean" },
      skipped: { type: "array", items: { type: "string" } },
    },
    required: ["source", "destination", "type", "entries", "bytes", "overwritten", "skipped"],
    additionalProperties: false,
  },

  run: copy,
});

/** What the model asked copy_file for. */
interface CopyArgs {
  source: string;
  destination: string;
  overwrite?: boolean;
  recursive?: boolean;
}

/**
 * Copies the source under a temporary name beside the destination, through held directories,
 * and has the edit transaction put it in the destination's place.
 */
function copy(args: CopyArgs, ctx: ToolContext) {
  return transaction(ctx, async (tx) => {
    const { sandbox } = tx;
    const source = (await resolveEntry(sandbox, args.source)).entry;
    const target = await tx.target(args.destination);
    const destination = target.real;
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
    const isDirectory = sourceInfo.isDirectory();
    if (!isDirectory && !sourceInfo.isFile() && !sourceInfo.isSymbolicLink()) {
      throw new ToolError(
        `${sourceShown} is a ${describeEntry(sourceInfo)}; copy_file copies files, ` +
          "directories and symlinks.",
      );
    }
    if (isDirectory && !args.recursive) {
      throw new ToolError(
        `${sourceShown} is a directory; pass recursive: true to copy it with what it holds.`,
      );
    }
    if (source === destination) {
      throw new ToolError(`source and destination are the same path (${sourceShown}).`);
    }
    if (isDirectory && isWithin(source, destination)) {
      throw new ToolError(
        `cannot copy ${sourceShown} into itself (${destinationShown}); choose a destination outside it.`,
      );
    }
    const destinationInfo = target.info;
    if (destinationInfo) {
      refuseReplacing(sourceInfo, destinationInfo, destinationShown, args.overwrite);
    } else {
      await tx.makeParents(target);
    }
    if (ctx.signal.aborted) throw new ToolError("nothing copied: the call was stopped first");
    const tally = newTally();
    const opened: Dir[] = [];
    const temporary = temporaryName();
    let made = false;
    try {
      const from = await openSource(sandbox, source, isDirectory, sourceShown);
      opened.push(from.dir);
      const into = await tx.parentOf(target);
      opened.push(into.dir);
      try {
        if (sourceInfo.isSymbolicLink()) {
          await into.dir.symlink(await from.dir.readlink(from.name), temporary);
          made = true;
        } else if (!isDirectory) {
          made = true;
          await copyFile(from.dir, from.name, into.dir, temporary, tally, ctx.signal);
        } else {
          const inner = from.inner!;
          opened.push(inner);
          // Counted first: a tree over the bounds is refused before anything is copied.
          const total = await measure(inner, sourceShown, "bash (cp -r)", ctx.signal);
          ctx.progress(0, total.entries);
          await into.dir.mkdir(temporary);
          made = true;
          const copy = (await into.dir.child(temporary)).dir;
          opened.push(copy);
          await copyContents(inner, copy, tally, (p) => sandbox.display(p), ctx.signal);
          await copy.chmod(sourceInfo.mode & 0o7777);
        }
        // In the destination's place, once the journal holds what was there and it is still
        // what this call saw.
        await tx.commit(target, into, { dir: into.dir, name: temporary });
        made = false;
      } catch (error) {
        const left = made &&
          !(await removeEntry(into.dir, temporary).then(() => true, () => false));
        if (error instanceof MovedOutOfRoots) {
          throw new ToolError(
            `could not copy ${sourceShown} to ${destinationShown}: ${
              sandbox.display(error.path)
            } was moved out of the allowed roots during the copy; stopped after ${
              count(tally.entries)
            } entries (${
              bytes(tally.bytes)
            } of files). What had been copied into it went with it, outside the roots, and was not removed.${
              left ? "" : " The rest of the partial copy was removed."
            }`,
          );
        }
        if (error instanceof ToolError) throw error;
        const code = (error as NodeJS.ErrnoException).code;
        if (code === "ENOTEMPTY" || code === "EEXIST") {
          throw new ToolError(
            `${destinationShown} is a directory that is not empty; overwrite replaces only ` +
              "empty directories. Delete it first, or choose another destination.",
          );
        }
        throw new ToolError(
          `could not copy ${sourceShown} to ${destinationShown}: ${(error as Error).message}. ${
            left ? `The partial copy (${temporary}) could not be removed.` : "Nothing was copied."
          }`,
        );
      }
    } finally {
      for (const dir of opened.reverse()) await dir.close();
    }
    const inside = isDirectory
      ? ` (${count(tally.entries)} entr${tally.entries === 1 ? "y" : "ies"}, ${
        bytes(tally.bytes)
      } of files)`
      : sourceInfo.isFile()
      ? ` (${bytes(tally.bytes)})`
      : " (the link itself)";
    const notes = [
      ...(destinationInfo ? [`replaced the ${describeEntry(destinationInfo)} there`] : []),
      ...(tally.special.length
        ? [
          `skipped, not files: ${tally.special.slice(0, 10).join(", ")}${
            tally.special.length > 10 ? `, and ${tally.special.length - 10} more` : ""
          }`,
        ]
        : []),
    ];
    return {
      content: `Copied ${sourceShown} to ${destinationShown}${inside}${
        notes.length ? `; ${notes.join("; ")}` : ""
      }.`,
      structured: {
        source: sourceShown,
        destination: destinationShown,
        type: entryType(sourceInfo),
        entries: tally.entries,
        bytes: tally.bytes,
        overwritten: destinationInfo !== undefined,
        skipped: tally.special,
      },
    };
  });
}

/** The source's held parent and name, and for a directory the directory itself, held too. */
async function openSource(
  sandbox: Sandbox,
  source: string,
  isDirectory: boolean,
  shown: string,
): Promise<{ dir: Dir; name: string; inner?: Dir }> {
  if (sandbox.roots.includes(source)) {
    // A root copied whole: it is held itself; it has no parent to hold.
    const { dir } = await sandbox.directory(source);
    return { dir, name: "", inner: dir };
  }
  const { dir, name } = await sandbox.parent(source);
  if (!isDirectory) return { dir, name };
  try {
    return { dir, name, inner: (await dir.child(name)).dir };
  } catch {
    await dir.close();
    throw new ToolError(`${shown} changed while it was being opened; try again`);
  }
}

/** Refuses to put one kind of entry in place of another, or to overwrite unasked. */
function refuseReplacing(
  source: Stats,
  destination: Stats,
  shown: string,
  overwrite: boolean | undefined,
): void {
  if (destination.isDirectory() !== source.isDirectory()) {
    throw new ToolError(
      `${shown} is a ${describeEntry(destination)}; a ${describeEntry(source)} cannot replace ` +
        `it. Give the copy's full path${
          destination.isDirectory() ? `, e.g. ${join(shown, "name")}` : ""
        }.`,
    );
  }
  if (!overwrite) {
    throw new ToolError(
      `destination ${shown} already exists (a ${describeEntry(destination)}); pass overwrite: ` +
        "true to replace it.",
    );
  }
}

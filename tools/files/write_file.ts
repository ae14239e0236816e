import { constants } from "node:fs";
import { readlink } from "node:fs/promises";
import { dirname, join, resolve } from "node:path";
import { defineTool, ToolError } from "../../mcp/tool/mod.ts";
import {
  assertWritable,
  describeEntry,
  type Entry,
  hardLinkNote,
  makeDirectories,
  O_NONBLOCK,
  resolveEntry,
  Sandbox,
  whileChanging,
  writeFileAtomic,
} from "../_lib/sandbox/mod.ts";
import { FORCE_PROPERTY, pathProperty } from "../_lib/declarations/path_properties.ts";
import { bytes, count } from "../_lib/text/units.ts";
import { CHANGES_FILES } from "../_lib/declarations/annotations.ts";
import { quoted } from "../../config/quote.ts";
import { lineCount, utf8Chunks } from "./_lib/utf8_chunks.ts";
import { Buffer } from "node:buffer";

/**
 * UTF-16 code units of content (at most 24 MiB of UTF-8) encoded at once: one write call, its
 * digest taken while the disk takes it. Past this, chunks keep a second copy out of memory.
 */
const WHOLE_UNITS = 8 << 20;

/** Symlinks followed at most when the target of a link does not exist yet. */
const MAX_LINK_HOPS = 8;

export default defineTool({
  name: "write_file",
  title: "Write a file",
  description: (offers) =>
    "Creates a file, or replaces all of it, with `content` (UTF-8), atomically: the file never " +
    "holds a partial write. Creates missing parents, keeps an existing file's permissions, writes " +
    "through a symlink to its target, and says whether it created or overwrote and how many " +
    'bytes. `mode: "append"` adds `content` at the end instead (creating the file if needed).' +
    (offers("edit_file") ? " To change part of a file, use edit_file." : ""),
  // Not idempotent: appending twice is not appending once.
  annotations: CHANGES_FILES,
  writes: {
    paths: [
      { arg: "path", kind: "replaces", when: (args) => args.mode !== "append" },
      { arg: "path", kind: "changes", when: (args) => args.mode === "append" },
    ],
    force: "force",
  },
  input: {
    type: "object",
    properties: {
      path: pathProperty("The file to write"),
      content: { type: "string" },
      mode: { enum: ["overwrite", "append"], description: 'Default "overwrite".' },
      force: FORCE_PROPERTY,
    },
    required: ["path", "content"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      created: { type: "boolean", description: "false when an existing file was overwritten" },
      bytes: { type: "integer" },
      previousBytes: { type: ["integer", "null"], description: "the size it replaced" },
      createdDirectory: {
        type: ["string", "null"],
        description: "the first parent directory that had to be created",
      },
    },
    required: ["path", "created", "bytes", "previousBytes", "createdDirectory"],
    additionalProperties: false,
  },

  run(args, ctx) {
    return whileChanging(async () => {
      const sandbox = await Sandbox.of(ctx);
      if (/(^|\/)(\.{1,2})?$/.test(args.path.replace(/\/+$/, "/"))) {
        throw new ToolError(
          `${quoted(args.path)} ends with a slash (or . or ..): it names a directory. Give the ` +
            "path of a file, without a trailing slash.",
        );
      }
      const target = await writeTarget(sandbox, args.path);
      const shown = sandbox.display(target.real);
      let previousBytes: number | null = null;
      let createdDirectory: string | undefined;
      if (target.exists) {
        const info = await sandbox.info(target.real);
        if (info.isDirectory()) {
          throw new ToolError(
            `${shown} is a directory; give the path of a file, e.g. ${join(shown, "name.txt")}.`,
          );
        }
        if (!info.isFile()) {
          throw new ToolError(
            `${shown} is a ${
              describeEntry(info)
            }, not a regular file; write_file writes regular files only.`,
          );
        }
        previousBytes = info.size;
        await assertWritable(target.real, shown);
      } else {
        createdDirectory = await makeDirectories(sandbox, dirname(target.real));
      }
      // A replacement up to WHOLE_UNITS is encoded once and written in one call; a larger one
      // (and an append) is encoded in chunks as it is written, only counted here.
      const whole = args.mode !== "append" && args.content.length <= WHOLE_UNITS
        ? Buffer.from(args.content, "utf8")
        : undefined;
      const size = whole?.length ?? Buffer.byteLength(args.content, "utf8");
      if (ctx.signal.aborted) throw new ToolError("not written: the call was stopped first");
      /** The result for a file written: `summary`, and the directory made for it if any. */
      const written = (summary: string) => ({
        content: createdDirectory
          ? `${summary}\nCreated the directory ${sandbox.display(createdDirectory)} for it.`
          : summary,
        structured: {
          path: shown,
          created: previousBytes === null,
          bytes: size,
          previousBytes,
          createdDirectory: createdDirectory ? sandbox.display(createdDirectory) : null,
        },
      });
      if (args.mode === "append") {
        await appendBeneath(sandbox, target.real, utf8Chunks(args.content), shown);
        const total = (previousBytes ?? 0) + size;
        const summary = `${previousBytes === null ? "Created" : "Appended to"} ${shown}: ${
          bytes(size)
        } added, ${bytes(total)} now.`;
        return written(summary);
      }
      let note = "";
      let lines = 0;
      try {
        const content = whole ?? utf8Chunks(args.content);
        const written = await writeFileAtomic(target.real, content, sandbox, {
          // The journal then knows what the file holds without reading it back.
          digest: true,
          meanwhile: () => (lines = lineCount(args.content)),
          // The journal may still be opening the old file for undo.
          beforeRename: () => ctx.writes.replacing(),
        });
        note = hardLinkNote(written.hardLinks);
      } catch (error) {
        throw new ToolError(
          `could not write ${shown}: ${(error as Error).message}. ${
            target.exists ? "The file was left as it was." : "No file was created."
          }`,
        );
      }
      const sized = `${bytes(size)}${size >= 1024 ? ` (${count(size)} bytes)` : ""}`;
      const summary = previousBytes === null
        ? `Created ${shown}: ${sized}, ${count(lines)} line${lines === 1 ? "" : "s"}.`
        : `Overwrote ${shown}: ${sized}, ${count(lines)} line${lines === 1 ? "" : "s"} (it held ${
          bytes(previousBytes)
        })${note}.`;
      return written(summary);
    });
  },
});

/**
 * Appends to the file at `real` through a descriptor opened in its held parent: O_APPEND, no
 * link followed, created when missing, and only ever a regular file (a FIFO swapped in fails
 * the non-blocking open or the check).
 */
async function appendBeneath(
  sandbox: Sandbox,
  real: string,
  chunks: Iterable<Uint8Array>,
  shown: string,
): Promise<void> {
  let handle;
  const { dir, name } = await sandbox.parent(real);
  try {
    handle = await dir.open(
      name,
      constants.O_WRONLY | constants.O_APPEND | constants.O_CREAT | O_NONBLOCK,
      0o666,
    );
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ToolError(
      code === "ELOOP" || code === "EMLINK"
        ? `${shown} changed while it was being opened; try again`
        : `could not append to ${shown}: ${(error as Error).message}`,
    );
  } finally {
    await dir.close();
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) {
      throw new ToolError(`${shown} is not a regular file; nothing was appended.`);
    }
    // Appending changes the file in place, under every name it has, and its other names may be
    // outside the allowed roots: refused (a replacement changes only this name).
    if (info.nlink > 1) {
      throw new ToolError(
        `${shown} has ${info.nlink} hard links; append would change them all (their other ` +
          `names may be outside the allowed roots). Nothing was appended; use write_file ` +
          `(mode "overwrite") with the whole new content to replace it under this name only.`,
      );
    }
    for (const chunk of chunks) await handle.writeFile(chunk);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Where a write to `path` lands. Sandbox.resolve already follows symlinks whose target exists;
 * a link to a file not yet created is followed here, each hop checked by the sandbox.
 */
async function writeTarget(sandbox: Sandbox, path: string): Promise<Entry> {
  let at = await resolveEntry(sandbox, path);
  for (let hops = 0; at.link && !at.exists; hops++) {
    if (hops === MAX_LINK_HOPS) {
      throw new ToolError(
        `${path} leads through more than ${MAX_LINK_HOPS} symlinks; write to the final path instead.`,
      );
    }
    at = await resolveEntry(sandbox, resolve(dirname(at.entry), await readlink(at.entry)));
  }
  return at;
}

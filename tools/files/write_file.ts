import { join } from "node:path";
import { defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { describeEntry } from "../_lib/sandbox/mod.ts";
import { transaction } from "../_lib/transaction/mod.ts";
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

  run: writeFile,
});

/** What the model asked write_file for. */
interface WriteArgs {
  path: string;
  content: string;
  mode?: "overwrite" | "append";
  force?: boolean;
}

/**
 * Writes `content` to the file, through a link to its target (the transaction's one resolution
 * follows a link to a file not made yet too): replaced whole, or appended to.
 */
function writeFile(args: WriteArgs, ctx: ToolContext) {
  return transaction(ctx, async (tx) => {
    const { sandbox } = tx;
    if (/(^|\/)(\.{1,2})?$/.test(args.path.replace(/\/+$/, "/"))) {
      throw new ToolError(
        `${quoted(args.path)} ends with a slash (or . or ..): it names a directory. Give the ` +
          "path of a file, without a trailing slash.",
      );
    }
    const target = await tx.target(args.path);
    const { shown, info } = target;
    let previousBytes: number | null = null;
    let createdDirectory: string | undefined;
    if (info) {
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
    } else {
      createdDirectory = await tx.makeParents(target);
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
      await tx.append(target, utf8Chunks(args.content));
      const total = (previousBytes ?? 0) + size;
      const summary = `${previousBytes === null ? "Created" : "Appended to"} ${shown}: ${
        bytes(size)
      } added, ${bytes(total)} now.`;
      return written(summary);
    }
    let lines = 0;
    const { note } = await tx.replace(target, whole ?? utf8Chunks(args.content), {
      meanwhile: () => (lines = lineCount(args.content)),
    });
    const sized = `${bytes(size)}${size >= 1024 ? ` (${count(size)} bytes)` : ""}`;
    const summary = previousBytes === null
      ? `Created ${shown}: ${sized}, ${count(lines)} line${lines === 1 ? "" : "s"}.`
      : `Overwrote ${shown}: ${sized}, ${count(lines)} line${lines === 1 ? "" : "s"} (it held ${
        bytes(previousBytes)
      })${note}.`;
    return written(summary);
  });
}

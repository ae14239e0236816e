import { Buffer } from "node:buffer";
import type { FileHandle } from "node:fs/promises";
import { defineTool, ToolError } from "../../mcp/tool.ts";
import { describeEntry } from "../_lib/entries.ts";
import { encodingName, sniff } from "../_lib/file_sniff.ts";
import { pathProperty } from "../_lib/path_properties.ts";
import { Sandbox } from "../_lib/sandbox.ts";
import { MAX_LINE_CHARS, type Page, readPage } from "./_lib/text_page.ts";
import { bytes, count } from "../_lib/units.ts";
import { READ_ONLY } from "../_lib/annotations.ts";
import { whileReading } from "./_lib/file_lock.ts";
import { DOCUMENT_SCHEMA, readDocument } from "./_lib/documents.ts";

const DEFAULT_LIMIT = 2_000;
const DEFAULT_MAX_CHARS = 30_000;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export default defineTool({
  name: "read_file",
  title: "Read a file",
  description:
    "Reads a text file with line numbers (`cat -n` style: number, tab, line), from line " +
    "`offset` (1-based, default 1) for `limit` lines (default 2,000), stopping earlier once " +
    `about ${count(DEFAULT_MAX_CHARS)} characters are shown (\`max_chars\`). Lines over ` +
    `${count(MAX_LINE_CHARS)} characters are cut with a marker. The result gives the total ` +
    "line count and the offset to pass to read the next part. UTF-8 and UTF-16 (with a BOM) " +
    "are decoded; invalid bytes show as U+FFFD and are counted; CRLF line endings are shown " +
    "without the \\r and reported. PNG, JPEG, GIF and WebP images (up to 5 MB) come back as " +
    "images. PDFs, .docx, .xlsx and .ipynb come back as text; offset/limit then count pages, " +
    "markdown lines, rows (of `sheet`) or cells. Other binary files are described. Use list_dir for directories, and " +
    "file_info for a file's size, times and permissions.",
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      path: pathProperty("The file to read"),
      offset: {
        type: "integer",
        minimum: 1,
        description: "The first line to show, 1-based (default 1).",
      },
      limit: {
        type: "integer",
        minimum: 1,
        description: `Lines to show at most (default ${count(DEFAULT_LIMIT)}).`,
      },
      sheet: {
        type: "string",
        maxLength: 200,
        description: "An .xlsx sheet to read; offset and limit then count its rows.",
      },
      max_chars: {
        type: "integer",
        minimum: 1_000,
        maximum: 1_000_000,
        description: `Characters of numbered lines to show at most (default ${
          count(DEFAULT_MAX_CHARS)
        }).`,
      },
    },
    required: ["path"],
    additionalProperties: false,
  },
  output: {
    type: "object",
    properties: {
      path: { type: "string" },
      kind: { enum: ["text", "image", "binary", "document"] },
      size: { type: "integer", description: "bytes" },
      encoding: { enum: ["utf-8", "utf-16le", "utf-16be"] },
      bom: { type: "boolean" },
      startLine: { type: "integer" },
      endLine: { type: "integer", description: "the last line shown (startLine - 1 if none)" },
      totalLines: { type: "integer", description: "a lower bound unless totalLinesExact" },
      totalLinesExact: { type: "boolean" },
      nextOffset: {
        type: ["integer", "null"],
        description: "the offset that reads the next part; null at the end of the file",
      },
      linesCut: { type: "integer", description: `lines cut at ${MAX_LINE_CHARS} characters` },
      invalidSequences: { type: "integer", description: "invalid byte sequences shown as U+FFFD" },
      lineEndings: { enum: ["lf", "crlf", "mixed", "none"], description: "of the lines shown" },
      mimeType: { type: "string" },
      description: { type: "string", description: "what a binary file holds" },
      document: DOCUMENT_SCHEMA,
    },
    required: ["path", "kind", "size"],
    additionalProperties: false,
  },

  run(args, ctx) {
    return whileReading(async () => {
      const sandbox = await Sandbox.of(ctx);
      const { real, exists } = await sandbox.resolve(args.path);
      const shown = sandbox.display(real);
      if (!exists) {
        throw new ToolError(
          `${shown} does not exist. Check the path; list_dir or glob can find the file.`,
        );
      }
      const info = await sandbox.info(real);
      if (info.isDirectory()) {
        throw new ToolError(
          `${shown} is a directory, not a file; use list_dir to see what it holds.`,
        );
      }
      if (!info.isFile()) {
        throw new ToolError(
          `${shown} is a ${
            describeEntry(info)
          }, not a regular file; read_file reads regular files only.`,
        );
      }
      const handle = await sandbox.openForReading(real);
      try {
        const sniffed = await sniff(handle);
        const base = { path: shown, size: info.size };
        const document = await readDocument(handle, {
          ...args,
          real,
          shown,
          size: info.size,
          maxChars: args.max_chars ?? ctx.config.limits.outputChars,
          signal: ctx.signal,
        });
        if (document) return document;
        if (sniffed.kind === "image") {
          return await readImage(handle, { ...base, ...sniffed });
        }
        if (sniffed.kind === "binary") {
          return {
            content:
              `${shown} is a binary file (${sniffed.description}, ${
                bytes(info.size)
              }); read_file shows text and images only. file_info gives its details; bash (xxd, ` +
              "strings, or a tool for the format) can inspect its bytes.",
            structured: { ...base, kind: "binary" as const, description: sniffed.description },
          };
        }
        const from = args.offset ?? 1;
        const page = await readPage(handle, {
          encoding: sniffed.encoding,
          bomBytes: sniffed.bomBytes,
          from,
          limit: args.limit ?? DEFAULT_LIMIT,
          maxChars: args.max_chars ?? ctx.config.limits.outputChars,
          signal: ctx.signal,
        });
        if (page.lines.length === 0 && page.total > 0) {
          throw new ToolError(
            `offset ${from} is past the end of ${shown}, which has ${count(page.total)} lines; ` +
              `pass an offset from 1 to ${page.total}.`,
          );
        }
        const more = page.last < page.total || !page.totalExact;
        const notes = [
          ...pageNotes(page, from, info.size),
          ...(sniffed.encoding !== "utf-8" || sniffed.bomBytes > 0
            ? [`[encoding: ${encodingName(sniffed.encoding, sniffed.bomBytes)}]`]
            : []),
        ];
        const body = page.lines.length ? page.lines.join("\n") : "(empty file)";
        return {
          content: `${body}\n\n${notes.join("\n")}`,
          structured: {
            ...base,
            kind: "text" as const,
            encoding: sniffed.encoding,
            bom: sniffed.bomBytes > 0,
            startLine: from,
            endLine: page.last,
            totalLines: page.total,
            totalLinesExact: page.totalExact,
            nextOffset: more ? page.last + 1 : null,
            linesCut: page.linesCut,
            invalidSequences: page.invalid,
            lineEndings: page.crlfLines && page.lfLines
              ? "mixed" as const
              : page.crlfLines
              ? "crlf" as const
              : page.lfLines
              ? "lf" as const
              : "none" as const,
          },
        };
      } finally {
        await handle.close();
      }
    });
  },
});

async function readImage(
  handle: FileHandle,
  image: { path: string; size: number; mimeType: string; description: string },
) {
  if (image.size > MAX_IMAGE_BYTES) {
    throw new ToolError(
      `${image.path} is a ${image.description} of ${bytes(image.size)}, over the ${
        bytes(MAX_IMAGE_BYTES)
      } read_file returns; make a smaller copy (e.g. with ImageMagick's convert -resize) and read that.`,
    );
  }
  const data = Buffer.from(await handle.readFile()).toString("base64");
  return {
    content: [
      { type: "text" as const, text: `${image.path}: ${image.description}, ${bytes(image.size)}` },
      { type: "image" as const, data, mimeType: image.mimeType },
    ],
    structured: {
      path: image.path,
      kind: "image" as const,
      size: image.size,
      mimeType: image.mimeType,
    },
  };
}

/** Where the page sits in the file, how to go on, and what was changed for display. */
function pageNotes(page: Page, from: number, size: number): string[] {
  const total = page.totalExact
    ? count(page.total)
    : `at least ${count(page.total)} (counted through the first ${bytes(page.bytesCounted)} of ${
      bytes(size)
    })`;
  const notes = [
    page.lines.length ? `[lines ${count(from)}–${count(page.last)} of ${total}]` : `[0 lines]`,
  ];
  if (page.last < page.total || !page.totalExact) {
    const why = page.stoppedForSize ? " (this part stopped at the character limit)" : "";
    notes.push(`[more: call read_file with offset ${page.last + 1} to continue${why}]`);
  }
  if (page.linesCut) {
    notes.push(
      `[${count(page.linesCut)} line${page.linesCut === 1 ? " was" : "s were"} cut at ${
        count(MAX_LINE_CHARS)
      } characters; bash (e.g. cut -c or fold) can show ${
        page.linesCut === 1 ? "it" : "them"
      } whole]`,
    );
  }
  if (page.invalid) {
    notes.push(`[${count(page.invalid)} invalid byte sequences shown as \uFFFD]`);
  }
  if (page.crlfLines) {
    notes.push(
      page.lfLines
        ? `[mixed line endings: ${page.crlfLines} CRLF and ${page.lfLines} LF lines; shown without \\r]`
        : "[CRLF line endings, shown without \\r]",
    );
  }
  return notes;
}

import { Buffer } from "node:buffer";
import type { FileHandle } from "node:fs/promises";
import { bounded } from "../../config/quote.ts";
import { type ContentBlock, defineTool, type ToolContext, ToolError } from "../../mcp/tool/mod.ts";
import { describeEntry, Sandbox, whileReading } from "../_lib/sandbox/mod.ts";
import { encodingName, sniff } from "../_lib/text/file_sniff.ts";
import { pathProperty } from "../_lib/declarations/path_properties.ts";
import { MAX_LINE_CHARS, type Page, readPage } from "./_lib/text_page.ts";
import { bytes, count } from "../_lib/text/units.ts";
import { READ_ONLY } from "../_lib/declarations/annotations.ts";
import { rememberRead } from "../_lib/transaction/mod.ts";
import { tailStart } from "./_lib/tail_lines.ts";
import { DOCUMENT_SCHEMA, readDocument } from "./_lib/documents.ts";

const DEFAULT_LIMIT = 2_000;
const DEFAULT_MAX_CHARS = 30_000;
const MAX_IMAGE_BYTES = 5 * 1024 * 1024;
const MAX_PATHS = 20;

export default defineTool({
  name: "read_file",
  title: "Read a file",
  description:
    "Reads a text file as numbered lines (`cat -n` style) from `offset` (negative: the last " +
    "lines) for `limit` lines, stopping at `max_chars` characters; lines over " +
    `${count(MAX_LINE_CHARS)} characters are cut. The result gives the total line count and ` +
    "the offset of the next part. `paths` reads several files within the same caps. UTF-8 and " +
    "UTF-16 (with a BOM) are decoded; CRLF is shown without the \\r. PNG, JPEG, GIF and WebP " +
    "images (up to 5 MB) come back as images; PDF, .docx, .xlsx and .ipynb as text, " +
    "offset/limit counting pages, lines, rows (of `sheet`) or cells; other binary files are " +
    "described.",
  annotations: READ_ONLY,
  input: {
    type: "object",
    properties: {
      path: pathProperty("The file to read"),
      paths: {
        type: "array",
        minItems: 1,
        maxItems: MAX_PATHS,
        items: { type: "string", minLength: 1 },
        description: "Several files instead of `path`.",
      },
      offset: {
        type: "integer",
        description: "First line, 1-based (default 1); -N: the last N lines.",
      },
      limit: {
        type: "integer",
        minimum: 1,
        description: `Lines to show at most (default ${count(DEFAULT_LIMIT)}).`,
      },
      sheet: {
        type: "string",
        maxLength: 200,
        description: "An .xlsx sheet; offset/limit count its rows.",
      },
      max_chars: {
        type: "integer",
        minimum: 1_000,
        maximum: 1_000_000,
        description: `Characters to show at most (default ${count(DEFAULT_MAX_CHARS)}).`,
      },
    },
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
      endLine: { type: "integer" },
      totalLines: { type: "integer", description: "a lower bound unless totalLinesExact" },
      totalLinesExact: { type: "boolean" },
      nextOffset: { type: ["integer", "null"], description: "null at the end" },
      linesCut: { type: "integer" },
      invalidSequences: { type: "integer" },
      lineEndings: { enum: ["lf", "crlf", "mixed", "none"] },
      mimeType: { type: "string" },
      description: { type: "string" },
      document: DOCUMENT_SCHEMA,
      files: {
        type: "array",
        items: { type: "object" },
        description: "with `paths`: each file's fields, or path and error",
      },
    },
    additionalProperties: false,
  },

  run: readFile,
});

/** What the model asked read_file for. */
interface ReadFileArgs {
  path?: string;
  paths?: string[];
  offset?: number;
  limit?: number;
  sheet?: string;
  max_chars?: number;
}

/** Reads a page of one file (text, image or sheet), or several files when `paths` is given. */
function readFile(args: ReadFileArgs, ctx: ToolContext) {
  if (args.paths !== undefined) return readSeveral(args, ctx);
  return whileReading(async () => {
    const sandbox = await Sandbox.of(ctx);
    const { real, exists } = await sandbox.resolve(onePath(args.path));
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
      // A later write of this session checks the file is still what was read.
      rememberRead(ctx, real, info, sniffed.head);
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
      if (args.offset === 0) throw new ToolError("offset 0 names no line: lines start at 1.");
      // A negative offset reads blocks backwards from the end to find the last lines.
      const tail = (args.offset ?? 1) < 0
        ? await tailStart(handle, {
          encoding: sniffed.encoding,
          start: sniffed.bomBytes,
          size: info.size,
          lines: -args.offset!,
          signal: ctx.signal,
        })
        : undefined;
      const fromEnd = tail !== undefined && tail.linesBefore === undefined;
      const from = tail ? (fromEnd ? args.offset! : tail.linesBefore! + 1) : args.offset ?? 1;
      const page = await readPage(handle, {
        encoding: sniffed.encoding,
        bomBytes: sniffed.bomBytes,
        from: tail ? 1 : from,
        startByte: tail?.byte,
        firstNumber: tail ? from : undefined,
        limit: args.limit ?? DEFAULT_LIMIT,
        maxChars: args.max_chars ?? ctx.config.limits.outputChars,
        size: info.size,
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
        ...(fromEnd ? tailNotes(page, from, info.size) : pageNotes(page, from, info.size)),
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
          totalLines: fromEnd ? -from : page.total,
          totalLinesExact: !fromEnd && page.totalExact,
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
}

/** The one file a call without `paths` reads. */
function onePath(path: string | undefined): string {
  if (path === undefined) throw new ToolError("give `path` (one file) or `paths` (several).");
  return path;
}

/** Notes for the last lines of a file too big to count before them: numbered from the end. */
function tailNotes(page: Page, from: number, size: number): string[] {
  const notes = pageNotes(page, from, size).slice(1);
  notes.unshift(
    `[lines ${from} to ${page.last} from the end (-1 is the last line; the ${
      bytes(size)
    } before them were not counted)]`,
  );
  return notes;
}

/**
 * Several files in one call, each under a `==> path <==` header (as `head` shows them), within
 * the caps of one call: lines and characters are shared, images too (5 MB in all). Files the
 * budget does not reach are named, to be read in another call.
 */
async function readSeveral(args: ReadFileArgs, ctx: ToolContext) {
  if (args.path !== undefined) throw new ToolError("give either `path` or `paths`, not both.");
  let chars = args.max_chars ?? ctx.config.limits.outputChars;
  let lines = args.limit ?? DEFAULT_LIMIT;
  let imageBytes = 0;
  const content: ContentBlock[] = [];
  const files: Record<string, unknown>[] = [];
  const paths = args.paths ?? [];
  let failed = 0;
  for (const [i, path] of paths.entries()) {
    if (chars < 200 || lines < 1) {
      content.push({
        type: "text",
        text: `[not read, the limits of one call being reached: ${
          bounded(paths.slice(i).join(", "), 1_000)
        }; read them in another call]`,
      });
      break;
    }
    // The path as given, bounded: it is the client's text until the file is found.
    const named = bounded(path, 300);
    const header = `==> ${named} <==\n`;
    let result;
    try {
      result = await readFile(
        { ...args, paths: undefined, path, max_chars: Math.max(chars, 1), limit: lines },
        ctx,
      ) as { content: string | ContentBlock[]; structured: Record<string, unknown> };
    } catch (error) {
      if (!(error instanceof ToolError)) throw error;
      failed++;
      content.push({ type: "text", text: `${header}[error: ${error.message}]` });
      files.push({ path: named, error: error.message });
      continue;
    }
    const blocks: ContentBlock[] = typeof result.content === "string"
      ? [{ type: "text", text: result.content }]
      : result.content;
    const data = result.structured;
    for (const [j, block] of blocks.entries()) {
      if (block.type === "text") {
        const text = j === 0 ? header + block.text : block.text;
        content.push({ type: "text", text });
        chars -= text.length;
      } else if (block.type === "image") {
        imageBytes += data.size as number;
        if (imageBytes > MAX_IMAGE_BYTES) {
          content.push({
            type: "text",
            text: "[image left out: 5 MB of images per call; read it alone]",
          });
        } else content.push(block);
      } else content.push(block);
    }
    if (typeof data.endLine === "number" && typeof data.startLine === "number") {
      lines -= data.endLine - data.startLine + 1;
    }
    files.push(data);
  }
  return { content, structured: { files }, isError: failed === paths.length };
}

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

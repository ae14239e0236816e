/**
 * read_file's documents: a PDF, .docx, .xlsx or notebook is extracted (in a worker:
 * tools/_lib/documents/) and shown as text, a window of its pages, lines, rows or cells at a time.
 */
import type { FileHandle } from "node:fs/promises";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { recognize } from "../../_lib/documents/formats.ts";
import {
  DocumentError,
  type DocumentFormat,
  type DocumentUnit,
  UNITS,
} from "../../_lib/documents/types.ts";
import { bytes, count } from "../../_lib/text/units.ts";

/** Documents larger than this are not read into memory. */
export const MAX_DOCUMENT_BYTES = 64 * 1024 * 1024;

/** Units one read shows when no `limit` is given, and at most. */
const DEFAULT_LIMITS: Record<DocumentUnit, number> = { page: 50, line: 2_000, row: 500, cell: 200 };
const MAX_LIMITS: Record<DocumentUnit, number> = {
  page: 500,
  line: 100_000,
  row: 10_000,
  cell: 2_000,
};

const NAMES: Record<DocumentFormat, string> = {
  pdf: "PDF",
  docx: "Word document",
  xlsx: "Excel workbook",
  ipynb: "Jupyter notebook",
};

/** The output schema's description of a document read (kept short: tools/list carries it). */
export const DOCUMENT_SCHEMA = {
  type: "object",
  description: "format, unit (what offset counts), first, last, total; sheets, sheet",
} as const;

const plural = (unit: string, n: number) => `${unit}${n === 1 ? "" : "s"}`;

/**
 * The file as a document, when it is one (by its name and first bytes); undefined otherwise.
 * Throws ToolError for a document that cannot be read, with why.
 */
export async function readDocument(
  handle: FileHandle,
  file: {
    real: string;
    shown: string;
    size: number;
    offset?: number;
    limit?: number;
    maxChars: number;
    sheet?: string;
    signal: AbortSignal;
  },
) {
  const head = new Uint8Array(1024);
  const { bytesRead } = await handle.read(head, 0, head.length, 0);
  const recognized = recognize(file.real, head.subarray(0, bytesRead));
  if (!recognized) {
    if (file.sheet !== undefined) {
      throw new ToolError(`sheet is for .xlsx workbooks; ${file.shown} is not one`);
    }
    return undefined;
  }
  if ("refused" in recognized) {
    throw new ToolError(`${file.shown} is ${recognized.refused}.`);
  }
  const { format } = recognized;
  const unit = UNITS[format];
  if (file.sheet !== undefined && format !== "xlsx") {
    throw new ToolError(`sheet is for .xlsx workbooks; ${file.shown} is a ${NAMES[format]}`);
  }
  if (file.size > MAX_DOCUMENT_BYTES) {
    throw new ToolError(
      `${file.shown} is a ${NAMES[format]} of ${bytes(file.size)}, over the ${
        bytes(MAX_DOCUMENT_BYTES)
      } read_file extracts; a command-line tool can (pdftotext, pandoc, in2csv)`,
    );
  }
  const data = new Uint8Array(file.size);
  let filled = 0;
  while (filled < data.length) {
    const { bytesRead } = await handle.read(data, filled, data.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  const offset = file.offset ?? 1;
  if (offset < 1) {
    throw new ToolError(`for a ${NAMES[format]}, offset counts ${unit}s from 1`);
  }
  const limit = Math.min(file.limit ?? DEFAULT_LIMITS[unit], MAX_LIMITS[unit]);
  const { extractInWorker, ExtractionCancelled } = await import("../../_lib/documents/pool.ts");
  let doc;
  try {
    doc = await extractInWorker({
      format,
      bytes: data.subarray(0, filled),
      name: file.shown,
      offset,
      limit,
      maxChars: file.maxChars,
      sheet: file.sheet,
    }, file.signal);
  } catch (error) {
    if (error instanceof DocumentError) throw new ToolError(error.message);
    if (error instanceof ExtractionCancelled) throw new ToolError("The read was cancelled.");
    throw error;
  }
  const overview = format === "xlsx" && file.sheet === undefined;
  if (!overview && doc.last < doc.first && doc.total > 0) {
    throw new ToolError(
      `offset ${offset} is past the end of ${file.shown}${
        doc.sheet ? ` (sheet ${JSON.stringify(doc.sheet)})` : ""
      }, which has ${count(doc.total)} ${
        plural(unit, doc.total)
      }; pass an offset from 1 to ${doc.total}.`,
    );
  }
  const more = !overview && doc.last < doc.total;
  const where = doc.sheet ? ` of sheet ${JSON.stringify(doc.sheet)}` : "";
  const notes = overview
    ? [
      `[${NAMES[format]}: ${plural("sheet", doc.sheets?.length ?? 0)} ${
        (doc.sheets ?? []).map((s) => JSON.stringify(s)).join(", ")
      }; each shows its first rows. To read one, pass sheet, and offset/limit for its rows]`,
    ]
    : [
      doc.last >= doc.first
        ? `[${NAMES[format]}: ${plural(unit, 2)} ${count(doc.first)}–${count(doc.last)} of ${
          count(doc.total)
        }${where}${format === "docx" ? " (lines of its markdown)" : ""}]`
        : `[${NAMES[format]}: no ${plural(unit, 2)}]`,
    ];
  if (more) {
    const why = doc.stoppedForSize ? " (this part stopped at the character limit)" : "";
    notes.push(
      `[more: call read_file with${
        doc.sheet ? ` sheet ${JSON.stringify(doc.sheet)},` : ""
      } offset ${doc.last + 1} to continue${why}]`,
    );
  }
  notes.push(...doc.notes);
  const text = `${doc.text}\n\n${notes.join("\n")}`;
  return {
    content: doc.images.length
      ? [
        { type: "text" as const, text },
        ...doc.images.map((image) => ({ type: "image" as const, ...image })),
      ]
      : text,
    structured: {
      path: file.shown,
      kind: "document" as const,
      size: file.size,
      nextOffset: more ? doc.last + 1 : null,
      document: {
        format,
        unit,
        first: doc.first,
        last: doc.last,
        total: doc.total,
        ...(doc.sheets ? { sheets: doc.sheets } : {}),
        ...(doc.sheet ? { sheet: doc.sheet } : {}),
      },
    },
  };
}

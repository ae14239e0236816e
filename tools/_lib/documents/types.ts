/** What goes to the document worker and what comes back (worker.ts, pool.ts). */

export type DocumentFormat = "pdf" | "docx" | "xlsx" | "ipynb";

/** What one read counts in: PDF pages, markdown lines of a .docx, sheet rows, notebook cells. */
export type DocumentUnit = "page" | "line" | "row" | "cell";

export const UNITS: Record<DocumentFormat, DocumentUnit> = {
  pdf: "page",
  docx: "line",
  xlsx: "row",
  ipynb: "cell",
};

export interface ExtractRequest {
  format: DocumentFormat;
  /** The file's bytes (transferred to the worker, not copied). */
  bytes: Uint8Array;
  /** How the document is named in messages: a path or a URL. */
  name: string;
  /** The first unit to show, 1-based. */
  offset: number;
  /** Units to show at most. */
  limit: number;
  /** Characters to show at most: the window ends early past it (never before its first unit). */
  maxChars: number;
  /** A spreadsheet's sheet to read (without it, every sheet's first rows). */
  sheet?: string;
  /** Images (notebook outputs) to send at most. */
  maxImages?: number;
}

export interface Extracted {
  format: DocumentFormat;
  unit: DocumentUnit;
  /** The window's text: markdown with page, sheet or cell markers. */
  text: string;
  /** The first and last unit shown (last = first - 1 when none). */
  first: number;
  last: number;
  /** Units in the document (in the sheet read, for a spreadsheet read by `sheet`). */
  total: number;
  /** Whether the character budget ended the window before `limit` units. */
  stoppedForSize: boolean;
  /** Facts about the window for the reader ("pages 3, 7 have no text: …"). */
  notes: string[];
  /** Images to send after the text (notebook outputs). */
  images: { data: string; mimeType: string }[];
  /** A workbook's sheets, in order. */
  sheets?: string[];
  /** The sheet read, for a spreadsheet read by `sheet`. */
  sheet?: string;
}

export type ExtractReply =
  | { id: number; result: Extracted }
  | { id: number; error: string; clear: boolean };

/** A document that cannot be read, with a message fit to show as it is. */
export class DocumentError extends Error {
  override name = "DocumentError";
}

/**
 * A workbook's sheets as markdown tables, with exceljs (the .xlsx opened within bounds first:
 * zip.ts). Rows are numbered and columns lettered as in Excel, so a row window can be asked for.
 * Without a `sheet`, each sheet shows its first rows; with one, that sheet's rows from `offset`.
 * Runs in the worker.
 */
import { Buffer } from "node:buffer";
import { DocumentError, type Extracted, type ExtractRequest } from "./types.ts";
import { Window } from "./window.ts";
import { boundedZip } from "./zip.ts";

/** Rows each sheet shows when no sheet is named. */
export const OVERVIEW_ROWS = 50;
/** Columns shown at most. */
export const MAX_COLUMNS = 50;
/** Characters of one cell shown at most. */
const MAX_CELL_CHARS = 200;

type Value = unknown;

function columnName(n: number): string {
  let name = "";
  for (; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + (n - 1) % 26) + name;
  return name;
}

function show(value: Value): string {
  let text: string;
  if (value === null || value === undefined) text = "";
  else if (value instanceof Date) {
    text = isNaN(value.getTime())
      ? ""
      : value.toISOString().replace(/T00:00:00\.000Z$/, "").replace(/\.000Z$/, "Z");
  } else if (typeof value === "object") {
    const v = value as Record<string, unknown>;
    if ("result" in v) text = show(v.result);
    else if ("formula" in v || "sharedFormula" in v) text = `=${v.formula ?? v.sharedFormula}`;
    else if (Array.isArray(v.richText)) {
      text = v.richText.map((r: { text?: string }) => r.text ?? "").join("");
    } else if ("text" in v) text = show(v.text);
    else if ("error" in v) text = String(v.error);
    else text = "";
  } else text = String(value);
  text = text.replace(/\r?\n/g, " ").replace(/\|/g, "\\|");
  return text.length > MAX_CELL_CHARS ? `${text.slice(0, MAX_CELL_CHARS)}…` : text;
}

interface Sheet {
  name: string;
  rowCount: number;
  columnCount: number;
  dimensions?: { toString(): string };
  findRow(n: number): { values: Value[] } | undefined;
}

function rowsOf(sheet: Sheet, from: number, to: number, window: Window, columns: number): boolean {
  const header = `| row | ${
    Array.from({ length: columns }, (_, i) => columnName(i + 1)).join(" | ")
  } |`;
  const rule = `| ---: |${" --- |".repeat(columns)}`;
  let first = true;
  for (let r = from; r <= to; r++) {
    const values = sheet.findRow(r)?.values ?? [];
    const line = `| ${r} | ${
      Array.from({ length: columns }, (_, i) => show(values[i + 1])).join(" | ")
    } |`;
    if (!window.add(r, first ? `${header}\n${rule}\n${line}` : line)) return false;
    first = false;
  }
  return true;
}

export async function extractSheet(request: ExtractRequest): Promise<Extracted> {
  const zip = boundedZip(
    Buffer.from(request.bytes.buffer, request.bytes.byteOffset, request.bytes.byteLength),
    request.name,
    { skip: (name) => name.startsWith("xl/media/") || name.startsWith("xl/embeddings/") },
  );
  const ExcelJS = (await import("exceljs")).default;
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(
      zip as unknown as ArrayBuffer,
      { ignoreNodes: ["dataValidations", "conditionalFormatting", "extLst"] } as never,
    );
  } catch (error) {
    throw new DocumentError(
      `${request.name} is not a readable .xlsx workbook (${
        (error as Error).message.slice(0, 200)
      })`,
    );
  }
  const sheets = workbook.worksheets as unknown as Sheet[];
  const names = sheets.map((s) => s.name);
  const notes: string[] = [];
  const describe = (s: Sheet) =>
    s.rowCount
      ? `${s.dimensions?.toString() ?? "?"}, ${s.rowCount} row${
        s.rowCount === 1 ? "" : "s"
      } × ${s.columnCount} column${s.columnCount === 1 ? "" : "s"}`
      : "empty";

  if (request.sheet !== undefined) {
    const sheet = sheets.find((s) => s.name === request.sheet) ??
      sheets.find((s) => s.name.toLowerCase() === request.sheet!.toLowerCase());
    if (!sheet) {
      throw new DocumentError(
        `${request.name} has no sheet named ${
          JSON.stringify(request.sheet.slice(0, 100))
        }; its sheets: ${names.map((n) => JSON.stringify(n)).join(", ")}`,
      );
    }
    const window = new Window(request);
    const { from, to } = window.range(sheet.rowCount);
    const columns = Math.min(sheet.columnCount, MAX_COLUMNS);
    window.parts.push(`## ${sheet.name} (${describe(sheet)})\n`);
    rowsOf(sheet, from, to, window, columns);
    if (sheet.columnCount > MAX_COLUMNS) {
      notes.push(`[only columns A–${columnName(MAX_COLUMNS)} of ${sheet.columnCount} are shown]`);
    }
    return {
      format: "xlsx",
      unit: "row",
      text: window.text(),
      first: window.first,
      last: window.last,
      total: sheet.rowCount,
      stoppedForSize: window.stoppedForSize,
      notes,
      images: [],
      sheets: names,
      sheet: sheet.name,
    };
  }

  // Every sheet's first rows, as far as the budget goes.
  const window = new Window({
    offset: 1,
    limit: Number.MAX_SAFE_INTEGER,
    maxChars: request.maxChars,
  });
  let shownSheets = 0;
  for (const sheet of sheets) {
    const part = new Window({
      offset: 1,
      limit: OVERVIEW_ROWS,
      maxChars: Math.max(500, request.maxChars - window.parts.join("\n").length),
    });
    const { to } = part.range(sheet.rowCount);
    const columns = Math.min(sheet.columnCount, MAX_COLUMNS);
    part.parts.push(`## ${sheet.name} (${describe(sheet)})\n`);
    if (sheet.rowCount) rowsOf(sheet, 1, to, part, columns);
    const cut = part.last < sheet.rowCount;
    const extra = [
      ...(cut
        ? [
          `[rows 1–${part.last} of ${sheet.rowCount}; read on with sheet: ${
            JSON.stringify(sheet.name)
          }, offset: ${part.last + 1}]`,
        ]
        : []),
      ...(sheet.columnCount > MAX_COLUMNS
        ? [`[only columns A–${columnName(MAX_COLUMNS)} of ${sheet.columnCount} are shown]`]
        : []),
    ];
    if (!window.add(shownSheets + 1, [part.text(), ...extra, ""].join("\n"))) break;
    shownSheets++;
  }
  if (shownSheets < sheets.length) {
    notes.push(
      `[${sheets.length - shownSheets} more sheet(s) not shown for length: ${
        names.slice(shownSheets).map((n) => JSON.stringify(n)).join(", ")
      }; read one with sheet]`,
    );
  }
  return {
    format: "xlsx",
    unit: "row",
    text: window.text() || "(no sheets)",
    first: 1,
    last: 0,
    total: 0,
    stoppedForSize: false,
    notes,
    images: [],
    sheets: names,
  };
}

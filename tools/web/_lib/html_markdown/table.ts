/**
 * HTML tables for the converter: a data table's caption and cells, placed on a grid (colspan
 * and rowspan kept in place), then written as a GFM pipe table or as rows of " | " in text.
 * Layout tables are told apart so that their content is read as ordinary blocks.
 */
import { type DomElement, ELEMENT_NODE, tagOf } from "./dom_tree.ts";
import { isHidden } from "./html_elements.ts";

export interface TableParts {
  caption?: DomElement;
  /** Each row's cells, footer rows last. */
  rows: DomElement[][];
}

/** The parts of a data table; undefined for a layout table (a presentation role, one column). */
export function dataTable(table: DomElement): TableParts | undefined {
  if (/^(?:presentation|none)$/i.test(table.getAttribute("role") ?? "")) return undefined;
  const parts = tableParts(table);
  return parts.rows.every((row) => row.length <= 1) ? undefined : parts;
}

/** The caption and rows of this table, not of tables nested in it; footer rows go last. */
function tableParts(table: DomElement): TableParts {
  let caption: DomElement | undefined;
  const rows: DomElement[] = [];
  const footer: DomElement[] = [];
  for (let child = table.firstChild; child; child = child.nextSibling) {
    if (child.nodeType !== ELEMENT_NODE || isHidden(child as DomElement)) continue;
    const tag = tagOf(child);
    if (tag === "caption") caption ??= child as DomElement;
    else if (tag === "tr") rows.push(child as DomElement);
    else if (tag === "thead" || tag === "tbody" || tag === "tfoot") {
      for (let row = child.firstChild; row; row = row.nextSibling) {
        if (row.nodeType !== ELEMENT_NODE || tagOf(row) !== "tr") continue;
        if (isHidden(row as DomElement)) continue;
        (tag === "tfoot" ? footer : rows).push(row as DomElement);
      }
    }
  }
  const cellsOf = (row: DomElement) => {
    const cells: DomElement[] = [];
    for (let cell = row.firstChild; cell; cell = cell.nextSibling) {
      if (cell.nodeType !== ELEMENT_NODE || isHidden(cell as DomElement)) continue;
      const tag = tagOf(cell);
      if (tag === "td" || tag === "th") cells.push(cell as DomElement);
    }
    return cells;
  };
  return { caption, rows: [...rows, ...footer].map(cellsOf) };
}

function clampSpan(value: string | null, max: number): number {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, Math.max(1, max)) : 1;
}

/**
 * Each cell's text (from `text`) placed on a grid: a colspan repeats as empty cells, a rowspan
 * holds its column. Empty cells at the end of a row are left off.
 */
export function placeCells(
  rows: DomElement[][],
  text: (cell: DomElement) => string,
): string[][] {
  const held: number[] = [];
  return rows.map((cells, r) => {
    const out: string[] = [];
    let column = 0;
    const skipHeld = () => {
      while (held[column] > 0) {
        held[column]--;
        out.push("");
        column++;
      }
    };
    for (const cell of cells) {
      skipHeld();
      const colspan = clampSpan(cell.getAttribute("colspan"), 1000);
      const rowspan = clampSpan(cell.getAttribute("rowspan"), rows.length - r);
      out.push(text(cell));
      for (let i = 1; i < colspan; i++) out.push("");
      for (let i = 0; i < colspan; i++) held[column + i] = rowspan - 1;
      column += colspan;
    }
    for (; column < held.length; column++) {
      if (held[column] > 0) held[column]--;
      out.push("");
    }
    while (out.length && out.at(-1) === "") out.pop();
    return out;
  });
}

/**
 * The grid's lines, its rows padded to the widest: a pipe table whose first row is the header
 * in markdown, cells joined by " | " in text. Pads `grid`'s rows in place.
 */
export function tableLines(grid: string[][], markdown: boolean): string[] {
  if (!grid.length) return [];
  const width = grid.reduce((most, row) => Math.max(most, row.length), 0);
  for (const row of grid) while (row.length < width) row.push("");
  if (!markdown) return grid.map((row) => row.join(" | ").trimEnd());
  const line = (row: string[]) => `| ${row.join(" | ")} |`;
  return [line(grid[0]), line(grid[0].map(() => "---")), ...grid.slice(1).map(line)];
}

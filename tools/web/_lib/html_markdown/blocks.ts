/**
 * The block half of the HTML converter: the lines written so far, the containers that prefix
 * them (list items, quotes, definitions), the blank lines between blocks, and the blocks
 * themselves: paragraphs, headings, lists, definition terms, rules, code blocks and tables.
 * Container indentation stops growing at MAX_CONTAINERS levels, so a page nested thousands of
 * levels deep cannot make each line that long.
 */
import { type DomElement, type DomNode, tagOf } from "./dom_tree.ts";
import { SPACED_IN_TEXT } from "./html_elements.ts";
import { languageOf, preformattedText } from "./code.ts";
import { InlineRenderer } from "./inline.ts";
import { dataTable, placeCells, tableLines } from "./table.ts";
import { escapeLineStart, headingLine, longestRun } from "./markdown_escape.ts";

/** What leaving an element the walk went into does: undoes what entering it began. */
export type Exit =
  | "none"
  | "space"
  | "block"
  | "line"
  | "frame"
  | "heading"
  | "list"
  | "item"
  | "container"
  | "term";

/** Deeper lists and quotes than this stop adding indentation (their text is kept). */
const MAX_CONTAINERS = 40;

/** A block that prefixes its lines: a list item, a quote, a definition. */
interface Container {
  item: boolean;
  /** Prefix of the container's first line (the list marker). */
  first: string;
  rest: string;
  /** Prefix of a blank line inside the container. */
  blank: string;
  used: boolean;
}

interface ListState {
  ordered: boolean;
  next: number;
  /** Width of the latest item's marker, which a list nested straight in this one indents by. */
  markerWidth: number;
  indented: boolean;
}

export abstract class BlockRenderer extends InlineRenderer {
  private readonly lines: string[] = [];
  private readonly containers: Container[] = [];
  private blankPending = false;
  private readonly lists: ListState[] = [];
  /** The level of the heading being built; 0 outside headings. */
  protected headingLevel = 0;

  /** A table cell (or caption) on one line, rendered on its own. */
  protected abstract cellText(cell: DomNode): string;

  /** The document converted, trimmed. */
  result(): string {
    this.settleText();
    this.flush();
    return this.lines.join("\n").trim();
  }

  // ---- lines and containers ----

  protected separate(): void {
    const top = this.containers.at(-1);
    if (!top || top.used) this.blankPending = true;
  }

  private emit(line: string): void {
    if (this.blankPending && this.lines.length) {
      let blank = "";
      for (const container of this.containers) if (container.used) blank += container.blank;
      this.lines.push(blank.trimEnd());
    }
    this.blankPending = false;
    let prefix = "";
    if (line === "") {
      for (const container of this.containers) prefix += container.blank;
      this.lines.push(prefix.trimEnd());
      return;
    }
    for (const container of this.containers) {
      prefix += container.used ? container.rest : container.first;
      container.used = true;
    }
    this.lines.push(prefix + line);
  }

  /** Ends the paragraph being built: its lines (split at `<br>`) go out escaped. */
  protected flush(): void {
    if (this.flat) return;
    const text = this.takeInline();
    if (!text) return;
    let group: string[] = [];
    const emitGroup = () => {
      // A markdown hard break is two spaces before the newline.
      const last = group.length - 1;
      group.forEach((line, i) =>
        this.emit(this.markdown ? escapeLineStart(line) + (i < last ? "  " : "") : line)
      );
      group = [];
    };
    for (const line of text.split("\n")) {
      const trimmed = line.replace(/^ +| +$/g, "");
      if (trimmed) group.push(trimmed);
      else if (group.length) {
        emitGroup();
        this.separate();
      }
    }
    if (group.length) emitGroup();
  }

  private pushContainer(
    first: string,
    blank: string,
    rest = " ".repeat(first.length),
    item = false,
  ) {
    const deep = this.containers.length >= MAX_CONTAINERS;
    this.containers.push({
      item,
      first: deep ? first.trimStart() : first,
      rest: deep ? "" : rest,
      blank: deep ? "" : blank,
      used: false,
    });
  }

  // ---- blocks ----

  protected block(): Exit {
    if (this.flat) {
      this.space();
      return "space";
    }
    this.flush();
    return "block";
  }

  protected endBlock(element: DomNode): void {
    this.flush();
    if (this.markdown || SPACED_IN_TEXT.has(tagOf(element))) this.separate();
  }

  protected container(first: string, blank: string, rest = first, spaced = true): Exit {
    if (this.flat) return this.block();
    this.flush();
    if (spaced) this.separate();
    this.pushContainer(first, blank, rest);
    return "container";
  }

  protected endContainer(): void {
    this.flush();
    this.containers.pop();
    this.separate();
  }

  protected rule(): void {
    if (this.flat) return this.space();
    this.flush();
    this.separate();
    if (this.markdown) {
      this.emit("---");
      this.separate();
    }
  }

  protected heading(level: number): Exit {
    if (this.flat) return this.block();
    this.flush();
    this.separate();
    this.headingLevel = level;
    this.flat++;
    return "heading";
  }

  protected endHeading(): void {
    this.flat--;
    const level = this.headingLevel;
    this.headingLevel = 0;
    const text = this.takeLine();
    if (text) this.emit(this.markdown ? headingLine(level, text) : text);
    this.separate();
  }

  protected term(): Exit {
    if (this.flat) return this.block();
    this.flush();
    this.separate();
    // A term is bold in markdown, and its definition follows on the next line.
    const bold = this.markdown && !this.headingLevel &&
      this.startFrame({ open: "**", close: "**" });
    return bold ? "term" : "line";
  }

  protected endTerm(): void {
    this.closeFrame();
    this.flush();
  }

  protected list(element: DomElement, ordered: boolean): Exit {
    if (this.flat) return this.block();
    this.flush();
    const top = this.containers.at(-1);
    const parent = this.lists.at(-1);
    const straightInList = !!parent && !!element.parentNode &&
      /^(?:ul|ol|menu|dir)$/.test(tagOf(element.parentNode));
    if (!(top?.item && top.used) && !straightInList) this.separate();
    if (straightInList) this.pushContainer(" ".repeat(parent.markerWidth), "");
    const start = Number.parseInt(element.getAttribute("start") ?? "", 10);
    this.lists.push({
      ordered,
      next: Number.isFinite(start) && start >= 0 ? start : 1,
      markerWidth: 2,
      indented: straightInList,
    });
    return "list";
  }

  protected endList(): void {
    this.flush();
    if (this.lists.pop()?.indented) this.containers.pop();
    // A list nested straight in a list is followed by the next item of the outer one.
    else this.separate();
  }

  protected item(element: DomElement): Exit {
    if (this.flat) return this.block();
    this.flush();
    const list = this.lists.at(-1);
    let marker = "-";
    if (list?.ordered) {
      const value = Number.parseInt(element.getAttribute("value") ?? "", 10);
      if (Number.isFinite(value) && value >= 0) list.next = value;
      marker = `${list.next++}.`;
    }
    if (list) list.markerWidth = marker.length + 1;
    this.pushContainer(`${marker} `, "", " ".repeat(marker.length + 1), true);
    return "item";
  }

  protected endItem(): void {
    this.flush();
    // Items of one list follow each other line by line (a tight list).
    if (this.containers.pop()?.used) this.blankPending = false;
  }

  /** A task list's checkbox, at the start of a list item. */
  protected checkbox(element: DomElement): void {
    if (element.getAttribute("type")?.toLowerCase() !== "checkbox") return;
    if (!this.containers.at(-1)?.item) return;
    this.push(element.hasAttribute("checked") ? "[x] " : "[ ] ");
  }

  protected codeBlock(pre: DomElement): void {
    const code = preformattedText(pre);
    if (this.flat) return this.inlineCode(` ${code} `);
    if (!code.trim()) return;
    this.flush();
    this.separate();
    const fence = this.markdown ? "`".repeat(Math.max(3, longestRun(code, "`") + 1)) : "";
    if (fence) this.emit(fence + languageOf(pre));
    for (const line of code.split("\n")) this.emit(line);
    if (fence) this.emit(fence);
    this.separate();
  }

  /** A data table as a pipe table (or rows of " | " in text); false for a layout table. */
  protected table(table: DomElement): boolean {
    const parts = dataTable(table);
    if (!parts) return false;
    const grid = placeCells(parts.rows, (cell) => this.cell(cell))
      .filter((row) => row.some((cell) => cell !== ""));
    this.flush();
    this.separate();
    if (parts.caption) {
      const text = this.cell(parts.caption);
      if (text) {
        this.emit(text);
        this.separate();
      }
    }
    for (const line of tableLines(grid, this.markdown)) this.emit(line);
    this.separate();
    return true;
  }

  private cell(node: DomNode): string {
    const text = this.cellText(node);
    return this.markdown ? text.replace(/\|/g, "\\|") : text;
  }
}

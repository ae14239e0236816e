/**
 * The text of a page too dense to build into a tree (node_budget.ts), read as it is parsed: what
 * a reader would see (no scripts, styles, forms or hidden elements), each block on lines of its
 * own, each `<br>` a line break, runs of blank lines made one. Memory grows with the text, not
 * with the number of nodes: the parser keeps only its stack of open elements.
 */
import { Parser } from "htmlparser2";
import { type DomElement } from "../html_markdown/dom_tree.ts";
import { BLOCK_TAGS, DROPPED_TAGS, isHidden } from "../html_markdown/html_elements.ts";

export interface DenseText {
  title?: string;
  text: string;
}

/** isHidden() for an element the parser reports; one without attributes costs nothing. */
function isHiddenBy(tag: string, attributes: Record<string, string>): boolean {
  let any = false;
  for (const _ in attributes) {
    any = true;
    break;
  }
  if (!any && tag !== "dialog") return false;
  return isHidden({
    tag,
    getAttribute: (name: string) => Object.hasOwn(attributes, name) ? attributes[name] : null,
    hasAttribute: (name: string) => Object.hasOwn(attributes, name),
  } as unknown as DomElement);
}

/** A title longer than this is cut (an unclosed `<title>` runs to the end of the page). */
const MAX_TITLE_CHARS = 1000;

export function denseText(html: string): DenseText {
  const lines: string[] = [];
  let line = "";
  /** How deep the parser is inside an element whose content is left out (0: not inside one). */
  let skipped = 0;
  /** The first `<title>` with text; `titleText` gathers one while the parser is inside it. */
  let title: string | undefined;
  let titleText: string | undefined;

  /** Ends the line under way; a `<br>` (`blank`) may leave an empty one, a block does not. */
  const endLine = (blank: boolean) => {
    // Nothing is made for an empty line: a page of half a million <br> makes no garbage here.
    const text = line && line.replace(/\s+/g, " ").trim();
    line = "";
    // At most one blank line in a row.
    if (text || (blank && lines.length > 0 && lines[lines.length - 1] !== "")) lines.push(text);
  };

  const parser = new Parser({
    onopentag(name, attributes) {
      const tag = name.toLowerCase();
      if (tag === "title" && title === undefined) titleText = "";
      if (skipped > 0 || DROPPED_TAGS.has(tag) || isHiddenBy(tag, attributes)) {
        skipped++;
        return;
      }
      if (tag === "br" || BLOCK_TAGS.has(tag)) endLine(tag === "br");
    },
    ontext(text) {
      if (titleText !== undefined && titleText.length < MAX_TITLE_CHARS) titleText += text;
      if (skipped === 0) line += text;
    },
    onclosetag(name) {
      const tag = name.toLowerCase();
      if (tag === "title" && titleText !== undefined) {
        title = titleText.slice(0, MAX_TITLE_CHARS).replace(/\s+/g, " ").trim() || undefined;
        titleText = undefined;
      }
      if (skipped > 0) {
        skipped--;
        return;
      }
      if (BLOCK_TAGS.has(tag)) endLine(false);
    },
  }, { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false });
  parser.write(html);
  parser.end();
  endLine(false);
  return { ...(title ? { title } : {}), text: lines.join("\n").trim() };
}

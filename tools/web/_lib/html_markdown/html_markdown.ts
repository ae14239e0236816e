/**
 * HTML -> markdown (GFM) and plain text, for pages `fetch_url` brings back. Our own converter
 * over DOM nodes (linkedom's, or a browser's): it keeps tables, code languages and list
 * structure, which generic converters lost with linkedom. The walk is iterative, so a page nested
 * ten thousand levels deep cannot overflow the stack.
 *
 * This module walks the tree and says what each element does; the work is done by the block
 * renderer (blocks.ts) on top of the inline one (inline.ts).
 */
import {
  CDATA_SECTION_NODE,
  DOCUMENT_FRAGMENT_NODE,
  DOCUMENT_NODE,
  type DomElement,
  type DomNode,
  ELEMENT_NODE,
  tagOf,
  TEXT_NODE,
  walkTree,
} from "./dom_tree.ts";
import { BLOCK_TAGS, DROPPED_TAGS, isHidden } from "./html_elements.ts";
import { BlockRenderer, type Exit } from "./blocks.ts";
import type { Frame } from "./inline.ts";
import { resolverFor, UrlResolver } from "./url_resolver.ts";

export interface ConvertOptions {
  /** The page's address: relative links and images resolve against it and its `<base href>`. */
  url?: string;
}

class Renderer extends BlockRenderer {
  /** For each element the walk is inside, what leaving it does. */
  private readonly exits: Exit[] = [];

  render(root: DomNode): this {
    walkTree(root, (node) => this.enter(node), (node) => this.leave(node));
    return this;
  }

  /** What a flat renderer gathered, on one line. */
  inlineResult(): string {
    this.settleText();
    return this.takeLine();
  }

  protected cellText(cell: DomNode): string {
    return new Renderer(this.flavor, this.urls, true).render(cell).inlineResult();
  }

  /** Goes into the element's children; leaving it will do what `exit` says. */
  private descend(exit: Exit): boolean {
    this.exits.push(exit);
    return true;
  }

  private markup(frame: Omit<Frame, "start"> | undefined): boolean {
    return this.descend(this.startFrame(frame) ? "frame" : "none");
  }

  private enter(node: DomNode): boolean {
    const type = node.nodeType;
    if (type === TEXT_NODE || type === CDATA_SECTION_NODE) {
      this.addText(node.textContent ?? "");
      return false;
    }
    if (type === ELEMENT_NODE || type === DOCUMENT_NODE) this.settleText();
    if (type === DOCUMENT_NODE || type === DOCUMENT_FRAGMENT_NODE) return this.descend("none");
    if (type !== ELEMENT_NODE) return false;
    const element = node as DomElement;
    const tag = tagOf(element);
    if (DROPPED_TAGS.has(tag) || isHidden(element)) return false;
    switch (tag) {
      case "br":
        this.lineBreak();
        return false;
      case "hr":
        this.rule();
        return false;
      case "img":
        this.image(element);
        return false;
      case "input":
        this.checkbox(element);
        return false;
      case "pre":
        this.codeBlock(element);
        return false;
      case "code":
      case "kbd":
      case "samp":
      case "tt":
        this.inlineCode(element.textContent ?? "");
        return false;
      case "a":
        return this.markup(this.linkFrame(element));
      case "em":
      case "i":
        return this.markup(this.markdown ? { open: "*", close: "*" } : undefined);
      case "strong":
      case "b":
        return this.markup(
          this.markdown && !this.headingLevel ? { open: "**", close: "**" } : undefined,
        );
      case "del":
      case "s":
      case "strike":
        return this.markup(this.markdown ? { open: "~~", close: "~~" } : undefined);
      case "q":
        return this.markup({ open: '"', close: '"' });
      case "table":
        return !this.flat && this.table(element) ? false : this.descend(this.block());
      case "ul":
      case "ol":
      case "menu":
      case "dir":
        return this.descend(this.list(element, tag === "ol"));
      case "li":
        return this.descend(this.item(element));
      case "blockquote":
        return this.descend(
          this.container(this.markdown ? "> " : "  ", this.markdown ? ">" : ""),
        );
      case "dd":
        // A definition follows its term on the next line.
        return this.descend(this.container(this.markdown ? ": " : "  ", "", "  ", false));
      case "dt":
        return this.descend(this.term());
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return this.descend(this.heading(Number(tag[1])));
      default:
        return this.descend(BLOCK_TAGS.has(tag) ? this.block() : "none");
    }
  }

  private leave(node: DomNode): void {
    this.settleText();
    switch (this.exits.pop()) {
      case "space":
        this.space();
        break;
      case "block":
        this.endBlock(node);
        break;
      case "frame":
        this.closeFrame();
        break;
      case "heading":
        this.endHeading();
        break;
      case "list":
        this.endList();
        break;
      case "item":
        this.endItem();
        break;
      case "container":
        this.endContainer();
        break;
      case "term":
        this.endTerm();
        break;
      case "line":
        this.flush();
        break;
    }
  }
}

/**
 * `root` (a document, or an element such as an extracted article) as GitHub-flavoured markdown:
 * ATX headings, absolute links and images, fenced code with its language, pipe tables, nested
 * lists. Script, style, forms, navigation and hidden elements are left out.
 */
export function htmlToMarkdown(root: DomNode, options: ConvertOptions = {}): string {
  return new Renderer("markdown", resolverFor(root, options.url)).render(root).result();
}

/**
 * `root` as plain text to read: blocks on their own lines, list items with "- " or "1. ", table
 * cells separated by " | ", no markup.
 */
export function htmlToText(root: DomNode): string {
  return new Renderer("text", new UrlResolver(undefined, undefined)).render(root).result();
}

/**
 * Links and images made absolute as a browser would: against the page's address, or its
 * `<base href>` resolved against that. One resolver serves the converter and the cleaning of
 * HTML that goes back to the client, so both read a page's base the same way.
 */
import { DOCUMENT_NODE, type DomNode } from "./dom_tree.ts";

export class UrlResolver {
  /** What relative addresses resolve against; undefined when neither address is absolute. */
  readonly base?: URL;

  /** `baseHref` is the page's `<base href>` as written (null or undefined without one). */
  constructor(pageUrl: string | undefined, baseHref: string | null | undefined) {
    let base: URL | undefined;
    try {
      if (pageUrl) base = new URL(pageUrl);
    } catch {
      // Not an absolute address: links stay as the page wrote them unless they are absolute.
    }
    try {
      if (baseHref !== null && baseHref !== undefined) base = new URL(baseHref.trim(), base);
    } catch {
      // An unusable <base href> is ignored, as browsers do.
    }
    this.base = base;
  }

  /** `href` made absolute, or undefined when it cannot be. */
  absolute(href: string): string | undefined {
    try {
      return new URL(cleaned(href), this.base).href;
    } catch {
      return undefined;
    }
  }

  /** `href` made absolute, else as written without its surrounding blanks, tabs or newlines. */
  resolve(href: string): string {
    return this.absolute(href) ?? cleaned(href);
  }
}

/** What a browser parses of an address attribute: no surrounding blanks, tabs or newlines. */
function cleaned(href: string): string {
  return href.trim().replace(/[\t\n\r]/g, "");
}

/** The resolver for `root` (a document, or a node of one) at `url`, with its `<base href>`. */
export function resolverFor(root: DomNode, url: string | undefined): UrlResolver {
  const document = root.nodeType === DOCUMENT_NODE ? root : root.ownerDocument;
  const base = document?.querySelector?.("base[href]")?.getAttribute("href");
  return new UrlResolver(url, base);
}

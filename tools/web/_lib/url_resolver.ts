/**
 * Links and images made absolute as a browser would: against the page's address, or its
 * `<base href>` resolved against that.
 */
import { DOCUMENT_NODE, type DomNode } from "./dom_tree.ts";

export class UrlResolver {
  private readonly base?: URL;

  /** `baseHref` is the page's `<base href>` as written (null or undefined without one). */
  constructor(pageUrl: string | undefined, baseHref: string | null | undefined) {
    let base: URL | undefined;
    try {
      if (pageUrl) base = new URL(pageUrl);
    } catch {
      // Not an absolute address: links stay as the page wrote them unless they are absolute.
    }
    try {
      if (baseHref?.trim()) base = new URL(baseHref.trim(), base);
    } catch {
      // An unusable <base href> is ignored, as browsers do.
    }
    this.base = base;
  }

  /** `href` made absolute, else as written without its surrounding blanks, tabs or newlines. */
  resolve(href: string): string {
    const cleaned = href.trim().replace(/[\t\n\r]/g, "");
    try {
      return new URL(cleaned, this.base).href;
    } catch {
      return cleaned;
    }
  }
}

/** The resolver for `root` (a document, or a node of one) at `url`, with its `<base href>`. */
export function resolverFor(root: DomNode, url: string | undefined): UrlResolver {
  const document = root.nodeType === DOCUMENT_NODE ? root : root.ownerDocument;
  const base = document?.querySelector?.("base[href]")?.getAttribute("href");
  return new UrlResolver(url, base);
}

/**
 * A fetched page turned into what `fetch_url` returns: its main content (Readability's article,
 * else a `<main>`/`<article>` landmark, else the body without its navigation chrome) as
 * markdown, plain text or cleaned HTML. Parsing is linkedom's, or for big pages the light DOM's
 * (light_dom.ts); the tool imports this module on first use, so no parser loads at start-up.
 */
import { Readability } from "@mozilla/readability";
import { parseHTML } from "linkedom";
import {
  childrenOf,
  type DomElement,
  type DomNode,
  ELEMENT_NODE,
  tagOf,
  walkTree,
} from "../html_markdown/dom_tree.ts";
import { isHidden } from "../html_markdown/html_elements.ts";
import { htmlToMarkdown, htmlToText } from "../html_markdown/html_markdown.ts";
import { parseLight } from "./light_dom.ts";
import { checkNodeBudget, DOM_MAX_NODES, TooManyNodes } from "./node_budget.ts";
import { escapeMarkdown, headingLine } from "../html_markdown/markdown_escape.ts";
import { UrlResolver } from "../html_markdown/url_resolver.ts";

export type PageFormat = "markdown" | "text" | "html";

export interface ConvertPageOptions {
  /** The page's address, which relative links resolve against. */
  url: string;
  format: PageFormat;
  /** Keep only the main content (the article) rather than the whole page. */
  extract: boolean;
}

export interface ConvertedPage {
  title?: string;
  text: string;
  /** Whether `text` holds a part of the page (its main content) rather than all of it. */
  extracted: boolean;
}

/** The linkedom surface used here (its types need the DOM lib, which Deno does not load). */
interface HtmlNode extends DomNode {
  readonly parentNode: HtmlNode | null;
  readonly firstChild: HtmlNode | null;
  readonly nextSibling: HtmlNode | null;
  remove(): void;
  toString(): string;
}

interface HtmlElement extends HtmlNode, DomElement {
  readonly parentNode: HtmlNode | null;
  readonly firstChild: HtmlNode | null;
  readonly nextSibling: HtmlNode | null;
  readonly firstElementChild: HtmlElement | null;
  readonly nextElementSibling: HtmlElement | null;
  readonly attributes: ArrayLike<{ name: string }>;
  readonly innerHTML: string;
  readonly outerHTML: string;
  setAttribute(name: string, value: string): void;
  removeAttribute(name: string): void;
  closest(selectors: string): HtmlElement | null;
  querySelector(selectors: string): HtmlElement | null;
  querySelectorAll(selectors: string): Iterable<HtmlElement>;
}

interface HtmlDocument extends HtmlNode {
  readonly documentElement: HtmlElement | null;
  readonly firstElementChild: HtmlElement | null;
  readonly childElementCount: number;
  querySelector(selectors: string): HtmlElement | null;
  querySelectorAll(selectors: string): Iterable<HtmlElement>;
  cloneNode(deep: boolean): HtmlDocument;
}

const COMMENT_NODE = 8;
const DOCUMENT_TYPE_NODE = 10;

/**
 * Readability's cost grows steeply with nesting depth (seconds at 300 levels, minutes at 2,000)
 * and with size; past these limits the landmark heuristics decide alone. On linkedom it costs
 * about 15 µs an element, four to five times the conversion itself: with the limit at 50,000
 * elements a 1 MiB page (25,000) paid it in full, taking twice as long as a 2 MiB page (51,000)
 * that skipped it. At 10,000 it costs at most about as much as converting a 1 MiB page, and a
 * bigger page never takes longer than a smaller one by more than that.
 */
const READABILITY_MAX_DEPTH = 120;
const READABILITY_MAX_ELEMENTS = 10_000;
/** Readability's article needs this much text: on smaller pages its guesses keep chrome. */
const MIN_ARTICLE_CHARS = 250;
/** An article with under this share of the `<main>` landmark's text dropped too much of it. */
const MIN_SHARE_OF_LANDMARK = 0.3;

const HEAD_TAGS = new Set(["title", "meta", "link", "base", "style", "script", "noscript"]);

function parse(html: string): HtmlDocument {
  const document = (parseHTML(html) as unknown as { document: HtmlDocument }).document;
  if (isWellFormed(document)) return document;
  return (parseHTML(rebuilt(document)) as unknown as { document: HtmlDocument }).document;
}

/**
 * linkedom keeps the tree as the source wrote it; Readability (through linkedom's `body`
 * getter) needs exactly `<html><head/><body/></html>`, so anything else is rebuilt into that.
 */
function isWellFormed(document: HtmlDocument): boolean {
  const html = document.documentElement;
  if (!html || document.childElementCount !== 1 || tagOf(html) !== "html") return false;
  const head = html.firstElementChild;
  const body = head?.nextElementSibling;
  return !!head && tagOf(head) === "head" && !!body && tagOf(body) === "body" &&
    !body.nextElementSibling;
}

function rebuilt(document: HtmlDocument): string {
  const head: string[] = [];
  const body: string[] = [];
  let inBody = false;
  const pending: HtmlNode[] = [];
  const pushChildren = (node: HtmlNode) => {
    const children = childrenOf(node) as HtmlNode[];
    for (let i = children.length - 1; i >= 0; i--) pending.push(children[i]);
  };
  pushChildren(document);
  while (pending.length) {
    const node = pending.pop()!;
    if (node.nodeType === COMMENT_NODE || node.nodeType === DOCUMENT_TYPE_NODE) continue;
    if (node.nodeType !== ELEMENT_NODE) {
      if (!inBody && !(node.textContent ?? "").trim()) continue;
      inBody = true;
      body.push(node.toString());
      continue;
    }
    const tag = tagOf(node);
    if (tag === "html") pushChildren(node);
    else if (tag === "body") {
      inBody = true;
      pushChildren(node);
    } else if (tag === "head" && !inBody) {
      for (const child of childrenOf(node)) head.push(child.toString());
    } else if (HEAD_TAGS.has(tag) && !inBody) head.push(node.toString());
    else {
      inBody = true;
      body.push(node.toString());
    }
  }
  return `<!DOCTYPE html><html><head>${head.join("")}</head><body>${body.join("")}</body></html>`;
}

function bodyOf(document: HtmlDocument): HtmlElement {
  // Never linkedom's `body` getter: on an odd tree it inserts elements.
  return document.documentElement!.querySelector("body")!;
}

/** Text with its runs of whitespace made single spaces, trimmed. */
function squeezed(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}

function textLength(node: DomNode): number {
  return squeezed(node.textContent ?? "").length;
}

/** Whether textLength(node) > 0, without squeezing all of its text. */
function hasText(node: DomNode): boolean {
  return /\S/.test(node.textContent ?? "");
}

function documentTitle(document: HtmlDocument): string | undefined {
  for (const title of document.querySelectorAll("title")) {
    if (title.closest("svg")) continue;
    const text = squeezed(title.textContent ?? "");
    if (text) return text;
  }
  const og = document.querySelector('meta[property="og:title"]')?.getAttribute("content");
  return squeezed(og ?? "") || undefined;
}

const URL_ATTRIBUTES = ["href", "src", "poster", "cite", "data-src"];

/** Every link and image made absolute against the page (and its `<base href>`). */
function absolutize(document: HtmlDocument, pageUrl: string): void {
  const baseElement = document.querySelector("base[href]");
  const resolver = new UrlResolver(pageUrl, baseElement?.getAttribute("href"));
  // Neither address is absolute: there is nothing to resolve against.
  if (!resolver.base) return;
  baseElement?.setAttribute("href", resolver.base.href);
  const resolve = (value: string) => {
    const trimmed = value.trim();
    // An empty or bare "#" link and script or data URLs stay as written.
    if (!trimmed || trimmed === "#" || /^(?:javascript|data):/i.test(trimmed)) return value;
    return resolver.absolute(value) ?? value;
  };
  for (const element of document.querySelectorAll("[href],[src],[poster],[cite],[data-src]")) {
    if (element === baseElement) continue;
    for (const name of URL_ATTRIBUTES) {
      const value = element.getAttribute(name);
      if (value !== null) element.setAttribute(name, resolve(value));
    }
  }
  for (const element of document.querySelectorAll("[srcset]")) {
    const candidates = element.getAttribute("srcset")!.split(/,\s+/).map((candidate) => {
      const [url, ...descriptors] = candidate.trim().split(/\s+/);
      return [resolve(url), ...descriptors].join(" ");
    });
    element.setAttribute("srcset", candidates.join(", "));
  }
}

interface TreeStats {
  depth: number;
  elements: number;
}

const STRIPPED_TAGS = new Set(["script", "style", "noscript", "template"]);

/** Removes script, style, comments and hidden elements under `root`; measures what stays. */
function clean(root: HtmlNode): TreeStats {
  const doomed: HtmlNode[] = [];
  const stats: TreeStats = { depth: 0, elements: 0 };
  let depth = 0;
  walkTree(root, (node) => {
    if (node.nodeType === COMMENT_NODE) doomed.push(node as HtmlNode);
    if (node.nodeType !== ELEMENT_NODE) return node === root;
    const element = node as HtmlElement;
    const tag = tagOf(element);
    const stylesheet = tag === "link" &&
      /stylesheet|preload|prefetch|preconnect/i.test(element.getAttribute("rel") ?? "");
    if (STRIPPED_TAGS.has(tag) || stylesheet || isHidden(element)) {
      doomed.push(element);
      return false;
    }
    stats.elements++;
    stats.depth = Math.max(stats.depth, ++depth);
    return true;
  }, (node) => {
    if (node.nodeType === ELEMENT_NODE) depth--;
  });
  for (const node of doomed) node.remove();
  return stats;
}

/** Event handlers and inline styles out of HTML that goes back to the client. */
function stripAttributes(root: HtmlElement): void {
  walkTree(root, (node) => {
    if (node.nodeType !== ELEMENT_NODE) return false;
    const element = node as HtmlElement;
    const names = Array.from(element.attributes, (attribute) => attribute.name);
    for (const name of names) {
      if (/^on/i.test(name) || name.toLowerCase() === "style") element.removeAttribute(name);
    }
    if (/^\s*javascript:/i.test(element.getAttribute("href") ?? "")) {
      element.removeAttribute("href");
    }
    return true;
  });
}

interface Article {
  title?: string;
  content: HtmlElement;
}

function readability(document: HtmlDocument): Article | undefined {
  const copy = document.cloneNode(true);
  type ReadabilityDocument = ConstructorParameters<typeof Readability>[0];
  try {
    const article = new Readability<HtmlElement>(copy as unknown as ReadabilityDocument, {
      keepClasses: true,
      serializer: (node) => node as unknown as HtmlElement,
    }).parse();
    if (!article?.content) return undefined;
    return {
      title: squeezed(article.title ?? "") || undefined,
      content: article.content,
    };
  } catch {
    // Readability gives up on some trees; the landmark heuristics still apply.
    return undefined;
  }
}

/** `<main>`, else `[role=main]`, else the page's one top-level `<article>`, if it has text. */
function landmark(document: HtmlDocument): HtmlElement | undefined {
  for (const selector of ["main", "[role=main]"]) {
    for (const element of document.querySelectorAll(selector)) {
      if (hasText(element)) return element;
    }
  }
  const articles = [...document.querySelectorAll("article")].filter((article) =>
    !article.parentNode || !(article.parentNode as HtmlElement).closest?.("article")
  );
  return articles.length === 1 && hasText(articles[0]) ? articles[0] : undefined;
}

const CHROME = "nav, aside, header, footer, [role=navigation], [role=banner], " +
  "[role=contentinfo], [role=complementary], [role=search]";

/** Removes site navigation, banners, sidebars and footers outside any article; says if any. */
function stripChrome(body: HtmlElement): boolean {
  const doomed = [...body.querySelectorAll(CHROME)].filter((element) => {
    const tag = tagOf(element);
    if (tag === "nav" || element.getAttribute("role") === "navigation") return true;
    const parent = element.parentNode as HtmlElement | null;
    return !parent?.closest?.("article, main, [role=main]");
  });
  for (const element of doomed) element.remove();
  return doomed.length > 0;
}

interface Choice {
  root: HtmlElement;
  title?: string;
  /** Whether `root`'s inner HTML (rather than the element itself) is the content. */
  inner: boolean;
}

/**
 * The page's main content, when it is a part of the page: Readability's article if it has
 * MIN_ARTICLE_CHARS of text (and did not drop most of the `<main>` landmark), else the
 * landmark, else the body without its chrome. Undefined when the whole body is the content.
 */
function mainContent(document: HtmlDocument, stats: TreeStats): Choice | undefined {
  const body = bodyOf(document);
  const bodyLength = textLength(body);
  const found = landmark(document);
  const foundLength = found ? textLength(found) : 0;
  if (stats.depth <= READABILITY_MAX_DEPTH && stats.elements <= READABILITY_MAX_ELEMENTS) {
    const article = readability(document);
    if (article) {
      clean(article.content);
      const length = textLength(article.content);
      const keepsLandmark = length >= foundLength * MIN_SHARE_OF_LANDMARK;
      if (length >= MIN_ARTICLE_CHARS && length < bodyLength && keepsLandmark) {
        return { root: article.content, title: article.title, inner: true };
      }
    }
  }
  if (found && foundLength < bodyLength) return { root: found, inner: false };
  return stripChrome(body) ? { root: body, inner: true } : undefined;
}

function normalizedTitle(text: string): string {
  return text
    .replace(/\]\([^)]*\)/g, "")
    .replace(/\\(.)/g, "$1")
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, " ")
    .trim();
}

/** The text of the markdown's first heading outside code blocks. */
function firstHeading(markdown: string): string | undefined {
  let fence = "";
  for (const line of markdown.split("\n", 100_000)) {
    const marker = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence) {
      if (marker && marker[0] === fence[0] && marker.length >= fence.length) fence = "";
      continue;
    }
    if (marker) fence = marker;
    else {
      const heading = /^#{1,6} +(.*)$/.exec(line);
      if (heading) return heading[1];
    }
  }
  return undefined;
}

/** Whether a heading already says the title ("Intro" matches the title "Intro | Site"). */
function headingSaysTitle(heading: string, title: string): boolean {
  const a = normalizedTitle(heading);
  const b = normalizedTitle(title);
  if (!a || !b) return false;
  const [shorter, longer] = a.length <= b.length ? [a, b] : [b, a];
  return ` ${longer} `.includes(` ${shorter} `) && shorter.length >= Math.min(4, longer.length);
}

/** The page's own first h1 when the title is that plus the site's name ("Intro | Site"). */
function withoutSiteName(title: string | undefined, h1: string | undefined): string | undefined {
  return title && h1 && h1.length < title.length && headingSaysTitle(h1, title) ? h1 : title;
}

function withTitle(markdown: string, title: string | undefined): string {
  if (!title) return markdown;
  const heading = firstHeading(markdown);
  if (heading !== undefined && headingSaysTitle(heading, title)) return markdown;
  const line = headingLine(1, escapeMarkdown(title));
  return markdown ? `${line}\n\n${markdown}` : line;
}

/** Whether Readability may run on the page: the tree within its limits, and extraction asked. */
function readable(stats: TreeStats, options: ConvertPageOptions): boolean {
  return options.extract && stats.depth <= READABILITY_MAX_DEPTH &&
    stats.elements <= READABILITY_MAX_ELEMENTS;
}

/** At least the number of elements in `html`: its `<` count. */
function mostElements(html: string): number {
  let count = 0;
  for (let at = html.indexOf("<"); at >= 0; at = html.indexOf("<", at + 1)) count++;
  return count;
}

/**
 * Converts a fetched HTML page. With `extract`, only its main content comes back (`extracted`
 * says whether that is a part of the page); markdown starts with `# Title` unless its first
 * heading already says it; "html" is the chosen HTML without scripts, styles, comments, hidden
 * elements, event handlers or inline styles. Never throws on malformed or hostile markup.
 *
 * Markdown and text of a page Readability will not read (too big, or not extracting) come from
 * the light DOM (light_dom.ts), the same tree at a fraction of the cost; a page it may read, a
 * page linkedom would rebuild, and "html" go through linkedom. Throws TooManyNodes when the page
 * is over the budget of the tree it would need (node_budget.ts).
 */
export function convertHtml(html: string, options: ConvertPageOptions): ConvertedPage {
  let counted = false;
  if (
    options.format !== "html" &&
    !(options.extract && mostElements(html) <= READABILITY_MAX_ELEMENTS)
  ) {
    const light = parseLight(html);
    if (isWellFormed(light as unknown as HtmlDocument)) {
      const page = convertDocument(light as unknown as HtmlDocument, options, false);
      if (page) return page;
    }
    // linkedom builds the same nodes, at about ten times the cost each, and each attribute.
    if (light.nodeCount + light.attributeCount > DOM_MAX_NODES) {
      throw new TooManyNodes(DOM_MAX_NODES);
    }
    counted = true;
  }
  if (!counted) checkNodeBudget(html, DOM_MAX_NODES);
  return convertDocument(parse(html), options, true)!;
}

/**
 * The conversion of a parsed page; undefined when Readability should read it and `withReadability`
 * says the document cannot be given to it (the light DOM).
 */
function convertDocument(
  document: HtmlDocument,
  options: ConvertPageOptions,
  withReadability: boolean,
): ConvertedPage | undefined {
  absolutize(document, options.url);
  const documentTitleText = documentTitle(document);
  const stats = clean(document);
  if (!withReadability && readable(stats, options)) return undefined;
  const firstH1 = squeezed(document.querySelector("h1")?.textContent ?? "");
  const choice = options.extract ? mainContent(document, stats) : undefined;
  const title = withoutSiteName(choice?.title ?? documentTitleText, firstH1);
  const root = choice?.root ?? bodyOf(document);
  let text: string;
  if (options.format === "html") {
    if (choice) {
      stripAttributes(choice.root);
      // Readability names the elements it creates in upper case ("DIV", "P").
      text = (choice.inner ? choice.root.innerHTML : choice.root.outerHTML)
        .replace(
          /<(\/?)([A-Z][A-Z\d]*)(?=[\s/>])/g,
          (_, slash, tag) => `<${slash}${tag.toLowerCase()}`,
        );
    } else {
      stripAttributes(document.documentElement!);
      text = document.toString();
    }
  } else if (options.format === "text") {
    text = htmlToText(root);
  } else {
    text = withTitle(htmlToMarkdown(root, { url: options.url }), title);
  }
  return { ...(title ? { title } : {}), text: text.trim(), extracted: !!choice };
}

/**
 * HTML -> markdown (GFM) and plain text, for pages `fetch_url` brings back. Our own converter
 * over DOM nodes (linkedom's, or a browser's): it keeps tables, code languages and list
 * structure, which generic converters lost with linkedom. The walk is iterative, so a page nested
 * ten thousand levels deep cannot overflow the stack; container indentation stops growing at
 * MAX_CONTAINERS levels, so such a page cannot make each line that long either.
 */

/** The part of a DOM node the converter reads. */
export interface DomNode {
  readonly nodeType: number;
  readonly nodeName: string;
  readonly parentNode: DomNode | null;
  readonly firstChild: DomNode | null;
  readonly nextSibling: DomNode | null;
  readonly textContent: string | null;
  readonly childNodes?: ArrayLike<DomNode>;
  readonly ownerDocument?: DomNode | null;
  querySelector?(selectors: string): DomElement | null;
}

export interface DomElement extends DomNode {
  getAttribute(name: string): string | null;
  hasAttribute(name: string): boolean;
}

export interface ConvertOptions {
  /** The page's address: relative links and images resolve against it and its `<base href>`. */
  url?: string;
}

export const ELEMENT_NODE = 1;
const TEXT_NODE = 3;
const CDATA_SECTION_NODE = 4;
const DOCUMENT_NODE = 9;
const DOCUMENT_FRAGMENT_NODE = 11;

/**
 * Visits `root` and its descendants in document order without recursion. `enter` says whether to
 * go into a node's children; `leave` runs after the children of every node entered.
 */
export function walkTree(
  root: DomNode,
  enter: (node: DomNode) => boolean,
  leave: (node: DomNode) => void = () => {},
): void {
  if (root.nodeType !== DOCUMENT_NODE) return walkSubtree(root, enter, leave);
  // linkedom links a doctype to no sibling, so a document's children come from `childNodes`.
  if (!enter(root)) return;
  for (const child of childrenOf(root)) walkSubtree(child, enter, leave);
  leave(root);
}

/** A node's children, listed before the caller changes any of them. */
export function childrenOf(node: DomNode): DomNode[] {
  if (node.childNodes) return Array.from(node.childNodes);
  const children: DomNode[] = [];
  for (let child = node.firstChild; child; child = child.nextSibling) children.push(child);
  return children;
}

function walkSubtree(
  root: DomNode,
  enter: (node: DomNode) => boolean,
  leave: (node: DomNode) => void,
): void {
  let node = root;
  for (;;) {
    if (enter(node)) {
      const child = node.firstChild;
      if (child) {
        node = child;
        continue;
      }
      leave(node);
    }
    for (;;) {
      if (node === root) return;
      const next = node.nextSibling;
      if (next) {
        node = next;
        break;
      }
      const parent = node.parentNode;
      if (!parent) return;
      node = parent;
      leave(node);
    }
  }
}

/** The element's tag name in lower case (elements a script created may be upper case). */
export function tagOf(node: DomNode): string {
  return node.nodeName.toLowerCase();
}

/** Content a reader never sees, or that is not prose: dropped with everything inside it. */
const DROPPED_TAGS: ReadonlySet<string> = new Set(
  ("script style noscript template svg canvas iframe frame frameset object embed applet " +
    "video audio map area source track param select option optgroup datalist textarea " +
    "button output progress meter nav head title meta link base rp rt").split(" "),
);

const BLOCK_TAGS: ReadonlySet<string> = new Set(
  ("address article aside blockquote body caption center colgroup dd details dialog dir " +
    "div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr " +
    "html legend li main menu ol p pre search section summary table tbody td tfoot th " +
    "thead tr ul").split(" "),
);

/** In plain text these get a blank line around them; other blocks only start a new line. */
const SPACED_IN_TEXT: ReadonlySet<string> = new Set(
  ("p blockquote dl figure details address table").split(" "),
);

const HIDDEN_STYLE =
  /(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*hidden)\s*(?:!\s*important\s*)?(?:;|$)/i;

/** Whether the page hides the element: `hidden`, `aria-hidden="true"` or an inline style. */
export function isHidden(element: DomElement): boolean {
  if (element.hasAttribute("hidden") || element.getAttribute("aria-hidden") === "true") return true;
  if (tagOf(element) === "dialog" && !element.hasAttribute("open")) return true;
  const style = element.getAttribute("style");
  return style !== null && HIDDEN_STYLE.test(style);
}

/** Deeper lists and quotes than this stop adding indentation (their text is kept). */
const MAX_CONTAINERS = 40;

/** Whitespace a browser collapses (plus no-break space, which pages use for layout). */
const COLLAPSIBLE = /[ \t\n\r\f\u00a0]+/g;

/** Soft hyphens and control characters, which a browser does not show. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const INVISIBLE = /[\u00ad\x00-\x08\x0b\x0e-\x1f\x7f]/g;

function collapse(text: string): string {
  return text.replace(COLLAPSIBLE, " ").replace(INVISIBLE, "");
}

function longestRun(text: string, char: string): number {
  let longest = 0;
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    run = text[i] === char ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}

const SPECIAL = /[\\`*_[\]<&~]/;
const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/;
const WORD_CHAR = /[\p{L}\p{N}]/u;
const ENTITY = /&(?:#\d+|#x[\da-f]+|[a-z][a-z\d]*);/iy;

/**
 * Text escaped for a markdown paragraph, where a character would otherwise start markup:
 * brackets and backticks always, `*` unless spaced on both sides, `_` unless inside a word,
 * `~~`, `<` before a tag-like character, `&` before an entity, `\` before punctuation.
 * Line starts (`#`, `>`, `-`, `1.`) are handled per line by `escapeLineStart`.
 */
export function escapeMarkdown(text: string): string {
  if (!SPECIAL.test(text)) return text;
  let out = "";
  for (let i = 0; i < text.length; i++) {
    const ch = text[i];
    const before = text[i - 1] ?? "";
    const after = text[i + 1] ?? "";
    switch (ch) {
      case "\\":
        out += after === "" || ASCII_PUNCTUATION.test(after) ? "\\\\" : "\\";
        break;
      case "`":
      case "[":
      case "]":
        out += `\\${ch}`;
        break;
      case "*":
        out += before === " " && after === " " ? "*" : "\\*";
        break;
      case "_":
        out += WORD_CHAR.test(before) && WORD_CHAR.test(after) ? "_" : "\\_";
        break;
      case "~":
        out += before === "~" || after === "~" ? "\\~" : "~";
        break;
      case "<":
        out += /[A-Za-z/!?]/.test(after) ? "\\<" : "<";
        break;
      case "&":
        ENTITY.lastIndex = i;
        out += ENTITY.test(text) ? "\\&" : "&";
        break;
      default:
        out += ch;
    }
  }
  return out;
}

/** A line of paragraph text escaped where its start would read as a heading, quote or list. */
function escapeLineStart(line: string): string {
  if (/^(?:#{1,6}(?:[ \t]|$)|>|[-+](?:[ \t]|$)|=+[ \t]*$|(?:[-_][ \t]*){3,}$)/.test(line)) {
    return `\\${line}`;
  }
  const ordered = /^(\d{1,9})([.)])(?:[ \t]|$)/.exec(line);
  return ordered ? `${ordered[1]}\\${line.slice(ordered[1].length)}` : line;
}

/** A link destination that survives spaces, angle brackets and unbalanced parentheses. */
function destination(url: string): string {
  if (/[\s<>]/.test(url)) return `<${url.replace(/[\s<>]/g, encodeURIComponent)}>`;
  let depth = 0;
  for (const ch of url) {
    if (ch === "(") depth++;
    else if (ch === ")" && --depth < 0) break;
  }
  return depth === 0 ? url : url.replace(/[()]/g, "\\$&");
}

class UrlResolver {
  private readonly base?: URL;

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

  resolve(href: string): string {
    const cleaned = href.trim().replace(/[\t\n\r]/g, "");
    try {
      return new URL(cleaned, this.base).href;
    } catch {
      return cleaned;
    }
  }
}

function resolverFor(root: DomNode, url: string | undefined): UrlResolver {
  const document = root.nodeType === DOCUMENT_NODE ? root : root.ownerDocument;
  const base = document?.querySelector?.("base[href]")?.getAttribute("href");
  return new UrlResolver(url, base);
}

const LANGUAGE_CLASS = /^(?:language|lang|highlight-source|highlight|brush)-([\w+#.-]{1,32})$/i;

/** The language a code block declares on the `pre`, its `code`, or a highlighter's wrapper. */
function languageOf(pre: DomElement): string {
  const candidates: DomElement[] = [pre];
  for (let child = pre.firstChild; child; child = child.nextSibling) {
    if (child.nodeType === ELEMENT_NODE && tagOf(child) === "code") {
      candidates.push(child as DomElement);
      break;
    }
  }
  let ancestor = pre.parentNode;
  for (let i = 0; i < 2 && ancestor?.nodeType === ELEMENT_NODE; i++) {
    candidates.push(ancestor as DomElement);
    ancestor = ancestor.parentNode;
  }
  for (const element of candidates) {
    const declared = element.getAttribute("data-lang") ?? element.getAttribute("data-language");
    if (declared && /^[\w+#.-]{1,32}$/.test(declared)) return declared;
    for (const token of (element.getAttribute("class") ?? "").split(/\s+/)) {
      const language = LANGUAGE_CLASS.exec(token)?.[1];
      if (language && !/^(?:none|default)$/i.test(language)) return language;
    }
  }
  return "";
}

/** The text of a `pre` as a browser lays it out: line breaks from `<br>` and block children. */
function preformattedText(pre: DomNode): string {
  let text = "";
  const isBlock = (node: DomNode) =>
    node !== pre && node.nodeType === ELEMENT_NODE && BLOCK_TAGS.has(tagOf(node));
  walkTree(pre, (node) => {
    if (node.nodeType === TEXT_NODE || node.nodeType === CDATA_SECTION_NODE) {
      text += node.textContent ?? "";
      return false;
    }
    if (node.nodeType !== ELEMENT_NODE) return false;
    const tag = tagOf(node);
    if (DROPPED_TAGS.has(tag) || isHidden(node as DomElement)) return false;
    if (tag === "br") {
      text += "\n";
      return false;
    }
    // Sites put alternatives (ESM and CommonJS) in sibling <code>s a stylesheet shows in turn.
    const alternative = tag === "code" && node.parentNode === pre && text;
    if ((isBlock(node) || alternative) && text && !text.endsWith("\n")) text += "\n";
    return true;
  }, (node) => {
    if (isBlock(node) && text && !text.endsWith("\n")) text += "\n";
  });
  return text
    .replace(/\r\n?/g, "\n")
    .replace(/\u00a0/g, " ")
    .replace(/^(?:[ \t]*\n)+/, "")
    .trimEnd();
}

const PERMALINK = /^(?:#|¶|§|🔗|\\#)$/u;

type Flavor = "markdown" | "text";

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

/** Inline markup open around the run being built; `start` indexes `parts`. */
interface Frame {
  start: number;
  open: string;
  close: string;
  link?: boolean;
  /** Link text when the link has none of its own (an icon with an aria-label). */
  fallback?: string;
}

interface ListState {
  ordered: boolean;
  next: number;
  /** Width of the latest item's marker, which a list nested straight in this one indents by. */
  markerWidth: number;
  indented: boolean;
}

type Exit =
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

class Renderer {
  private readonly lines: string[] = [];
  private readonly containers: Container[] = [];
  private blankPending = false;
  private parts: string[] = [];
  private readonly frames: Frame[] = [];
  private atSpace = true;
  private pendingText = "";
  private readonly exits: Exit[] = [];
  private readonly lists: ListState[] = [];
  private headingLevel = 0;
  private openLinks = 0;
  private readonly markdown: boolean;
  /** Above zero, blocks flow into one line: inside a heading, or a table cell renderer. */
  private flat: number;

  constructor(
    private readonly flavor: Flavor,
    private readonly urls: UrlResolver,
    flat = false,
  ) {
    this.markdown = flavor === "markdown";
    this.flat = flat ? 1 : 0;
  }

  render(root: DomNode): this {
    walkTree(root, (node) => this.enter(node), (node) => this.leave(node));
    return this;
  }

  /** The document converted, trimmed. */
  result(): string {
    this.settleText();
    this.flush();
    return this.lines.join("\n").trim();
  }

  /** What a flat renderer gathered, on one line. */
  inlineResult(): string {
    this.settleText();
    return this.takeInline().replace(/ *\n */g, " ").trim();
  }

  private enter(node: DomNode): boolean {
    const type = node.nodeType;
    if (type === TEXT_NODE || type === CDATA_SECTION_NODE) {
      this.pendingText += node.textContent ?? "";
      return false;
    }
    if (type === ELEMENT_NODE || type === DOCUMENT_NODE) this.settleText();
    if (type === DOCUMENT_NODE || type === DOCUMENT_FRAGMENT_NODE) return this.inline();
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
        return this.open(this.linkFrame(element));
      case "em":
      case "i":
        return this.open(this.markdown ? { open: "*", close: "*" } : undefined);
      case "strong":
      case "b":
        return this.open(
          this.markdown && !this.headingLevel ? { open: "**", close: "**" } : undefined,
        );
      case "del":
      case "s":
      case "strike":
        return this.open(this.markdown ? { open: "~~", close: "~~" } : undefined);
      case "q":
        return this.open({ open: '"', close: '"' });
      case "table":
        return !this.flat && this.table(element) ? false : this.block();
      case "ul":
      case "ol":
      case "menu":
      case "dir":
        return this.list(element, tag === "ol");
      case "li":
        return this.item(element);
      case "blockquote":
        return this.container(this.markdown ? "> " : "  ", this.markdown ? ">" : "");
      case "dd":
        // A definition follows its term on the next line.
        return this.container(this.markdown ? ": " : "  ", "", "  ", false);
      case "dt":
        return this.term();
      case "h1":
      case "h2":
      case "h3":
      case "h4":
      case "h5":
      case "h6":
        return this.heading(Number(tag[1]));
      default:
        return BLOCK_TAGS.has(tag) ? this.block() : this.inline();
    }
  }

  private leave(node: DomNode): void {
    this.settleText();
    switch (this.exits.pop()) {
      case "space":
        this.space();
        break;
      case "block":
        this.flush();
        if (this.markdown || SPACED_IN_TEXT.has(tagOf(node))) this.separate();
        break;
      case "frame":
        this.wrap(this.frames.pop()!);
        break;
      case "heading":
        this.endHeading();
        break;
      case "list": {
        this.flush();
        if (this.lists.pop()?.indented) this.containers.pop();
        // A list nested straight in a list is followed by the next item of the outer one.
        else this.separate();
        break;
      }
      case "item": {
        this.flush();
        // Items of one list follow each other line by line (a tight list).
        if (this.containers.pop()?.used) this.blankPending = false;
        break;
      }
      case "container":
        this.flush();
        this.containers.pop();
        this.separate();
        break;
      case "term":
        this.wrap(this.frames.pop()!);
        this.flush();
        break;
      case "line":
        this.flush();
        break;
    }
  }

  // ---- inline runs ----

  private push(text: string): void {
    this.parts.push(text);
    this.atSpace = text.endsWith(" ") || text.endsWith("\n");
  }

  /**
   * Adds the text gathered since the last element. Text nodes are joined first because the
   * parser splits text at entities, and escaping depends on neighbouring characters.
   */
  private settleText(): void {
    if (!this.pendingText) return;
    let text = collapse(this.pendingText);
    this.pendingText = "";
    if (this.atSpace && text.startsWith(" ")) text = text.slice(1);
    if (text) this.push(this.markdown ? escapeMarkdown(text) : text);
  }

  private space(): void {
    if (!this.atSpace) this.push(" ");
  }

  private lineBreak(): void {
    if (this.flat) this.space();
    else this.push("\n");
  }

  private inline(): boolean {
    this.exits.push("none");
    return true;
  }

  private open(frame: Omit<Frame, "start"> | undefined): boolean {
    // Markup nested in the same markup (<b><b>) shows no differently; skipping it also bounds
    // the frames a hostile page can stack up.
    if (!frame || this.frames.some((open) => open.open === frame.open)) return this.inline();
    this.frames.push({ ...frame, start: this.parts.length });
    if (frame.link) this.openLinks++;
    this.exits.push("frame");
    return true;
  }

  /** Closes a frame over the run it covers; whitespace at its edges moves outside the markup. */
  private wrap(frame: Frame): void {
    if (frame.link) this.openLinks--;
    this.applyFrame(frame);
  }

  private applyFrame(frame: Frame): void {
    const inner = this.parts.splice(frame.start).join("");
    const lead = /^[ \n]*/.exec(inner)![0];
    const trail = /[ \n]*$/.exec(inner.slice(lead.length))![0];
    let core = inner.slice(lead.length, inner.length - trail.length);
    if (!core && frame.fallback) core = frame.fallback;
    // A heading's permalink ("#", "¶", "§") is page furniture, not text.
    const kept = frame.link && PERMALINK.test(core) ? lead + trail : inner;
    if (!core || kept !== inner) {
      if (kept) this.push(kept);
      else this.atSpace = this.parts.length === 0 || /[ \n]$/.test(this.parts.at(-1)!);
      return;
    }
    this.push(lead + frame.open + core + frame.close + trail);
  }

  /** The inline run so far with its open frames applied; frames stay open for what follows. */
  private takeInline(): string {
    for (let i = this.frames.length - 1; i >= 0; i--) this.applyFrame(this.frames[i]);
    const text = this.parts.join("");
    this.parts = [];
    this.atSpace = true;
    for (const frame of this.frames) frame.start = 0;
    return text;
  }

  private linkFrame(element: DomElement): Omit<Frame, "start"> | undefined {
    if (!this.markdown || this.openLinks > 0) return undefined;
    const href = element.getAttribute("href")?.trim();
    if (!href || href === "#" || /^javascript:/i.test(href)) return undefined;
    const label = element.getAttribute("aria-label") ?? element.getAttribute("title");
    const fallback = label ? escapeMarkdown(collapse(label).trim()) : undefined;
    return {
      open: "[",
      close: `](${destination(this.urls.resolve(href))})`,
      link: true,
      fallback,
    };
  }

  private image(element: DomElement): void {
    if (!this.markdown) return;
    if (element.getAttribute("width") === "1" && element.getAttribute("height") === "1") return;
    let src = element.getAttribute("src")?.trim();
    if (!src || /^data:/i.test(src)) {
      src = element.getAttribute("data-src") ?? element.getAttribute("data-original") ??
        element.getAttribute("data-lazy-src") ?? src;
    }
    if (!src || /^data:/i.test(src)) return;
    const alt = escapeMarkdown(collapse(element.getAttribute("alt") ?? "").trim());
    this.push(`![${alt}](${destination(this.urls.resolve(src))})`);
  }

  private checkbox(element: DomElement): void {
    if (element.getAttribute("type")?.toLowerCase() !== "checkbox") return;
    if (!this.containers.at(-1)?.item) return;
    this.push(element.hasAttribute("checked") ? "[x] " : "[ ] ");
  }

  private inlineCode(raw: string): void {
    const text = collapse(raw);
    const code = text.trim();
    if (text.startsWith(" ")) this.space();
    if (code) {
      if (this.markdown) {
        const fence = "`".repeat(longestRun(code, "`") + 1);
        const pad = code.startsWith("`") || code.endsWith("`") ? " " : "";
        this.push(fence + pad + code + pad + fence);
      } else {
        this.push(code);
      }
    }
    if (text.endsWith(" ") && text.length > 1) this.space();
  }

  // ---- blocks ----

  private separate(): void {
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
  private flush(): void {
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

  private block(): boolean {
    if (this.flat) {
      this.space();
      this.exits.push("space");
      return true;
    }
    this.flush();
    this.exits.push("block");
    return true;
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

  private container(first: string, blank: string, rest = first, spaced = true): boolean {
    if (this.flat) return this.block();
    this.flush();
    if (spaced) this.separate();
    this.pushContainer(first, blank, rest);
    this.exits.push("container");
    return true;
  }

  private rule(): void {
    if (this.flat) return this.space();
    this.flush();
    this.separate();
    if (this.markdown) {
      this.emit("---");
      this.separate();
    }
  }

  private heading(level: number): boolean {
    if (this.flat) return this.block();
    this.flush();
    this.separate();
    this.headingLevel = level;
    this.flat++;
    this.exits.push("heading");
    return true;
  }

  private endHeading(): void {
    this.flat--;
    const level = this.headingLevel;
    this.headingLevel = 0;
    const text = this.takeInline().replace(/ *\n */g, " ").trim();
    if (text) {
      this.emit(
        this.markdown ? `${"#".repeat(level)} ${text.replace(/(^| )(#+)$/, "$1\\$2")}` : text,
      );
    }
    this.separate();
  }

  private term(): boolean {
    if (this.flat) return this.block();
    this.flush();
    this.separate();
    // A term is bold in markdown, and its definition follows on the next line.
    if (this.markdown && !this.headingLevel && !this.frames.some((open) => open.open === "**")) {
      this.frames.push({ start: this.parts.length, open: "**", close: "**" });
      this.exits.push("term");
    } else {
      this.exits.push("line");
    }
    return true;
  }

  private list(element: DomElement, ordered: boolean): boolean {
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
    this.exits.push("list");
    return true;
  }

  private item(element: DomElement): boolean {
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
    this.exits.push("item");
    return true;
  }

  private codeBlock(pre: DomElement): void {
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
  private table(table: DomElement): boolean {
    if (/^(?:presentation|none)$/i.test(table.getAttribute("role") ?? "")) return false;
    const { caption, rows } = tableParts(table);
    if (rows.every((row) => row.length <= 1)) return false;
    const grid = this.grid(rows).filter((row) => row.some((cell) => cell !== ""));
    this.flush();
    this.separate();
    if (caption) {
      const text = this.cell(caption);
      if (text) {
        this.emit(text);
        this.separate();
      }
    }
    if (grid.length) {
      const width = grid.reduce((most, row) => Math.max(most, row.length), 0);
      for (const row of grid) while (row.length < width) row.push("");
      if (this.markdown) {
        const line = (row: string[]) => `| ${row.join(" | ")} |`;
        this.emit(line(grid[0]));
        this.emit(line(grid[0].map(() => "---")));
        for (const row of grid.slice(1)) this.emit(line(row));
      } else {
        for (const row of grid) this.emit(row.join(" | ").trimEnd());
      }
    }
    this.separate();
    return true;
  }

  /** Cells placed on a grid: a colspan repeats as empty cells, a rowspan holds its column. */
  private grid(rows: DomElement[][]): string[][] {
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
        out.push(this.cell(cell));
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

  private cell(node: DomNode): string {
    const text = new Renderer(this.flavor, this.urls, true).render(node).inlineResult();
    return this.markdown ? text.replace(/\|/g, "\\|") : text;
  }
}

function clampSpan(value: string | null, max: number): number {
  const n = Number.parseInt(value ?? "", 10);
  return Number.isFinite(n) && n >= 1 ? Math.min(n, Math.max(1, max)) : 1;
}

/** The caption and rows of this table, not of tables nested in it; footer rows go last. */
function tableParts(table: DomElement): { caption?: DomElement; rows: DomElement[][] } {
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

/**
 * The inline half of the HTML converter: the run of text that becomes the next paragraph (or
 * heading, or table cell), with the markup open around parts of it (emphasis, strong, strike,
 * quotes, links), images and code spans. Text is collapsed as a browser shows it and escaped for
 * markdown as it joins the run.
 */
import type { DomElement } from "./dom_tree.ts";
import { escapeMarkdown, linkDestination, longestRun } from "./markdown_escape.ts";
import type { UrlResolver } from "./url_resolver.ts";

export type Flavor = "markdown" | "text";

/** Inline markup open around the run being built; `start` indexes `parts`. */
export interface Frame {
  start: number;
  open: string;
  close: string;
  link?: boolean;
  /** Link text when the link has none of its own (an icon with an aria-label). */
  fallback?: string;
}

/** Whitespace a browser collapses (plus no-break space, which pages use for layout). */
const COLLAPSIBLE = /[ \t\n\r\f\u00a0]+/g;

/** Soft hyphens and control characters, which a browser does not show. */
// deno-lint-ignore no-control-regex -- matching control characters is the point
const INVISIBLE = /[\u00ad\x00-\x08\x0b\x0e-\x1f\x7f]/g;

function collapse(text: string): string {
  return text.replace(COLLAPSIBLE, " ").replace(INVISIBLE, "");
}

const PERMALINK = /^(?:#|¶|§|🔗|\\#)$/u;

export abstract class InlineRenderer {
  private parts: string[] = [];
  private readonly frames: Frame[] = [];
  private atSpace = true;
  private pendingText = "";
  private openLinks = 0;
  protected readonly markdown: boolean;
  /** Above zero, blocks flow into one line: inside a heading, or a table cell renderer. */
  protected flat: number;

  constructor(
    protected readonly flavor: Flavor,
    protected readonly urls: UrlResolver,
    flat = false,
  ) {
    this.markdown = flavor === "markdown";
    this.flat = flat ? 1 : 0;
  }

  /** Text of the page, held until the next element: see `settleText`. */
  protected addText(text: string): void {
    this.pendingText += text;
  }

  protected push(text: string): void {
    this.parts.push(text);
    this.atSpace = text.endsWith(" ") || text.endsWith("\n");
  }

  /**
   * Adds the text gathered since the last element. Text nodes are joined first because the
   * parser splits text at entities, and escaping depends on neighbouring characters.
   */
  protected settleText(): void {
    if (!this.pendingText) return;
    let text = collapse(this.pendingText);
    this.pendingText = "";
    if (this.atSpace && text.startsWith(" ")) text = text.slice(1);
    if (text) this.push(this.markdown ? escapeMarkdown(text) : text);
  }

  protected space(): void {
    if (!this.atSpace) this.push(" ");
  }

  protected lineBreak(): void {
    if (this.flat) this.space();
    else this.push("\n");
  }

  /**
   * Opens markup around what follows; false when there is none to open. Markup nested in the
   * same markup (<b><b>) shows no differently; skipping it also bounds the frames a hostile page
   * can stack up.
   */
  protected startFrame(frame: Omit<Frame, "start"> | undefined): boolean {
    if (!frame || this.frames.some((open) => open.open === frame.open)) return false;
    this.frames.push({ ...frame, start: this.parts.length });
    if (frame.link) this.openLinks++;
    return true;
  }

  /** Closes the innermost frame over the run it covers. */
  protected closeFrame(): void {
    const frame = this.frames.pop()!;
    if (frame.link) this.openLinks--;
    this.applyFrame(frame);
  }

  /** Wraps a frame's run in its markup; whitespace at its edges moves outside the markup. */
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
  protected takeInline(): string {
    for (let i = this.frames.length - 1; i >= 0; i--) this.applyFrame(this.frames[i]);
    const text = this.parts.join("");
    this.parts = [];
    this.atSpace = true;
    for (const frame of this.frames) frame.start = 0;
    return text;
  }

  /** The inline run so far on one line (a heading, a table cell), trimmed. */
  protected takeLine(): string {
    return this.takeInline().replace(/ *\n */g, " ").trim();
  }

  protected linkFrame(element: DomElement): Omit<Frame, "start"> | undefined {
    if (!this.markdown || this.openLinks > 0) return undefined;
    const href = element.getAttribute("href")?.trim();
    if (!href || href === "#" || /^javascript:/i.test(href)) return undefined;
    const label = element.getAttribute("aria-label") ?? element.getAttribute("title");
    const fallback = label ? escapeMarkdown(collapse(label).trim()) : undefined;
    return {
      open: "[",
      close: `](${linkDestination(this.urls.resolve(href))})`,
      link: true,
      fallback,
    };
  }

  protected image(element: DomElement): void {
    if (!this.markdown) return;
    if (element.getAttribute("width") === "1" && element.getAttribute("height") === "1") return;
    let src = element.getAttribute("src")?.trim();
    if (!src || /^data:/i.test(src)) {
      src = element.getAttribute("data-src") ?? element.getAttribute("data-original") ??
        element.getAttribute("data-lazy-src") ?? src;
    }
    if (!src || /^data:/i.test(src)) return;
    const alt = escapeMarkdown(collapse(element.getAttribute("alt") ?? "").trim());
    this.push(`![${alt}](${linkDestination(this.urls.resolve(src))})`);
  }

  protected inlineCode(raw: string): void {
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
}

/**
 * How the HTML converter sorts elements: content a reader never sees (dropped, or hidden by the
 * page), blocks that start a line, and inline content (everything else).
 */
import { type DomElement, tagOf } from "./dom_tree.ts";

/** Content a reader never sees, or that is not prose: dropped with everything inside it. */
export const DROPPED_TAGS: ReadonlySet<string> = new Set(
  ("script style noscript template svg canvas iframe frame frameset object embed applet " +
    "video audio map area source track param select option optgroup datalist textarea " +
    "button output progress meter nav head title meta link base rp rt").split(" "),
);

export const BLOCK_TAGS: ReadonlySet<string> = new Set(
  ("address article aside blockquote body caption center colgroup dd details dialog dir " +
    "div dl dt fieldset figcaption figure footer form h1 h2 h3 h4 h5 h6 header hgroup hr " +
    "html legend li main menu ol p pre search section summary table tbody td tfoot th " +
    "thead tr ul").split(" "),
);

/** In plain text these get a blank line around them; other blocks only start a new line. */
export const SPACED_IN_TEXT: ReadonlySet<string> = new Set(
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

/**
 * What the HTML converter reads from a `<pre>`: its text laid out as a browser shows it, and the
 * language it declares, for a fenced code block.
 */
import {
  CDATA_SECTION_NODE,
  type DomElement,
  type DomNode,
  ELEMENT_NODE,
  tagOf,
  TEXT_NODE,
  walkTree,
} from "./dom_tree.ts";
import { BLOCK_TAGS, DROPPED_TAGS, isHidden } from "./html_elements.ts";

const LANGUAGE_CLASS = /^(?:language|lang|highlight-source|highlight|brush)-([\w+#.-]{1,32})$/i;

/** The language a code block declares on the `pre`, its `code`, or a highlighter's wrapper. */
export function languageOf(pre: DomElement): string {
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
export function preformattedText(pre: DomNode): string {
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

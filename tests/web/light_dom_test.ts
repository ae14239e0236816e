/**
 * The light DOM (light_dom.ts) against linkedom, on random markup: the same tree node for node
 * (the node count the budget reads included), and the same markdown and text made from it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";
import { childrenOf, type DomNode } from "../../tools/web/_lib/html_markdown/dom_tree.ts";
import { htmlToMarkdown, htmlToText } from "../../tools/web/_lib/html_markdown/html_markdown.ts";
import { parseLight } from "../../tools/web/_lib/convert/light_dom.ts";

const TAGS = ("div p span a b i em strong code pre ul ol li table tr td th thead tbody h1 h2 br " +
  "hr img input blockquote dl dt dd main article nav aside header footer script style template " +
  "svg title q del kbd label form select option noscript details summary dialog").split(" ");
const ATTRIBUTES = [
  'href="/x?a=1&amp;b=2"',
  'class="a  b a"',
  "hidden",
  'aria-hidden="true"',
  'style="display:none"',
  'src="img.png"',
  'alt="A|b"',
  'role="main"',
  'class="language-js"',
  'colspan="2"',
  'type="checkbox" checked',
  "open",
  'DATA-X="y"',
];
const TEXTS = [
  "hello",
  " world ",
  "a*b_c",
  "&amp;",
  "&lt;tag&gt;",
  "`tick`",
  "\n\n",
  "é ü 😀",
  "&nbsp;",
  "<",
  "x > y",
  "<!-- c -->",
  "</p>",
  "</br>",
  "</div>",
];

/** A deterministic stream of numbers in [0, 1). */
function random(seed: number): () => number {
  return () => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed / 0x7fffffff;
  };
}

function page(next: () => number): string {
  const pick = <T>(list: T[]) => list[Math.floor(next() * list.length)];
  const markup = (depth: number): string => {
    let html = "";
    for (let n = Math.floor(next() * 5); n > 0; n--) {
      if (next() < 0.4 || depth > 5) {
        html += pick(TEXTS);
        continue;
      }
      const tag = pick(TAGS);
      const attributes = Array.from({ length: Math.floor(next() * 3) }, () => pick(ATTRIBUTES));
      html += `<${[tag, ...attributes].join(" ")}>${markup(depth + 1)}` +
        (next() < 0.85 ? `</${tag}>` : "");
    }
    return html;
  };
  const body = Array.from({ length: 2 + Math.floor(next() * 10) }, () => markup(0)).join("\n");
  return next() < 0.7
    ? `<!DOCTYPE html><html><head><title>T</title></head><body>${body}</body></html>`
    : body;
}

/** Every node in document order, as type, name, attributes (elements) or data. */
function shape(root: DomNode): string[] {
  const lines: string[] = [];
  const visit = (node: DomNode, depth: number) => {
    const element = node as DomNode & { getAttribute?(name: string): string | null };
    const data = node.nodeType === 1
      ? ["class", "href", "hidden", "DATA-X", "data-x"].map((name) => element.getAttribute!(name))
      : node.nodeType === 3 || node.nodeType === 8
      ? (node as unknown as { data: string }).data
      : "";
    lines.push(`${depth} ${node.nodeType} ${node.nodeName} ${JSON.stringify(data)}`);
    for (let child = node.firstChild; child; child = child.nextSibling) visit(child, depth + 1);
  };
  // linkedom links a doctype to no sibling: a document's children are read from childNodes.
  for (const child of childrenOf(root)) visit(child, 0);
  return lines;
}

test("the light tree is linkedom's tree, node for node, and converts the same", () => {
  const next = random(17);
  for (let i = 0; i < 300; i++) {
    const html = page(next);
    const parsed = parseLight(html);
    const light = parsed as unknown as DomNode;
    const dom = (parseHTML(html) as unknown as { document: DomNode }).document;
    // linkedom keeps a doctype as a node of its own; the light tree does not.
    const domShape = shape(dom).filter((line) => !/^0 10 /.test(line));
    assert.deepEqual(shape(light), domShape, html);
    assert.equal(parsed.nodeCount, domShape.length, html);
    const url = "https://example.com/a/b";
    assert.equal(htmlToMarkdown(light, { url }), htmlToMarkdown(dom, { url }), html);
    assert.equal(htmlToText(light), htmlToText(dom), html);
  }
});

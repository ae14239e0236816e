/**
 * The node budget (node_budget.ts): a page that would grow into too many nodes is never built
 * into a tree, and comes back as its text with a note; pages under the budget convert as before.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { convertSource } from "../../tools/web/_lib/convert/source.ts";
import { parseLight } from "../../tools/web/_lib/convert/light_dom.ts";
import {
  checkNodeBudget,
  DOM_MAX_NODES,
  LIGHT_MAX_NODES,
  TooManyNodes,
} from "../../tools/web/_lib/convert/node_budget.ts";

const URL = "https://example.com/page";

test("the light tree counts every node, and stops past its budget", () => {
  const document = parseLight("<p>a<b>b</b>&amp;c<!-- note --></p>");
  // p, "a", b, "b", "&", "c", comment.
  assert.equal(document.nodeCount, 7);
  assert.throws(() => parseLight("<br>".repeat(11), 10), TooManyNodes);
  assert.equal(parseLight("<br>".repeat(10), 10).nodeCount, 10);
});

test("counting without a tree agrees exactly with the light tree", () => {
  const pages = [
    "",
    "plain text",
    "a&amp;b&lt;c&#x41;d&nbsp;",
    "</p></br></div>text<",
    "<p>one<p>two<div>three</div></p>",
    "<!DOCTYPE html><html><head><title>t</title><script>if (a < b && c) x()</script></head>" +
    "<body><table><tr><td>1<td>2</table><!-- c --><![CDATA[x]]>&amp;&amp;</body></html>",
    "<ul>" + "<li>item &amp; more</li>".repeat(50) + "</ul>",
    "<textarea><b>not a tag</b>&amp;</textarea><style>a<b{}</style>",
  ];
  for (const html of pages) {
    const nodes = parseLight(html).nodeCount;
    assert.doesNotThrow(() => checkNodeBudget(html, nodes), html);
    if (nodes > 0) assert.throws(() => checkNodeBudget(html, nodes - 1), TooManyNodes, html);
  }
});

test("a page too dense for the light tree comes back as its text, with a note", () => {
  const html = "<!DOCTYPE html><html><head><title>Dense &amp; long</title>" +
    "<script>secret()</script></head><body><h1>Start</h1>" + "<br>".repeat(LIGHT_MAX_NODES) +
    "<p>middle <a href='/x'>link</a></p><div hidden>hidden text</div>" +
    "<span>end</span></body></html>";
  for (const format of ["markdown", "text", "html"] as const) {
    const page = convertSource(html, { url: URL, format, extract: true });
    assert.equal(page.title, "Dense & long");
    assert.equal(page.extracted, false);
    // The html format needs the full DOM, whose budget is smaller.
    const limit = format === "html" ? "150,000" : "300,000";
    assert.ok(
      page.text.startsWith(`Start\n\nmiddle link\nend\n\n[This page has more than ${limit} HTML`),
      page.text.slice(0, 200),
    );
    assert.match(page.text, /plain text only/);
    assert.doesNotMatch(page.text, /secret|hidden text/);
  }
});

test("a page the full DOM would need is held to the DOM's smaller budget", () => {
  // No <html>/<head>/<body>: linkedom rebuilds it, so the light tree cannot serve it.
  const bare = "<p>first</p>" + "<i>x</i>".repeat(DOM_MAX_NODES / 2 + 10);
  const markdown = convertSource(bare, { url: URL, format: "markdown", extract: false });
  assert.match(markdown.text, /^first\nx+\n\n\[This page has more than 150,000 HTML nodes/);
  // Well formed, the same content stays within the light tree's budget and converts.
  const wellFormed = `<html><head></head><body>${bare}</body></html>`;
  const converted = convertSource(wellFormed, { url: URL, format: "markdown", extract: false });
  assert.match(converted.text, /^first\n\n\*x\*\*x\*/);
  assert.doesNotMatch(converted.text, /HTML nodes/);
  // The html format always needs the full DOM.
  const html = convertSource(wellFormed, { url: URL, format: "html", extract: false });
  assert.match(html.text, /\[This page has more than 150,000 HTML nodes/);
});

test("entities alone make nodes: a page of them is held to the budget too", () => {
  const html = "<html><head></head><body><p>" + "&amp;".repeat(LIGHT_MAX_NODES) +
    "</p></body></html>";
  const page = convertSource(html, { url: URL, format: "text", extract: false });
  assert.match(page.text, /^&{1000}/);
  assert.match(page.text, /more than 300,000 HTML nodes/);
});

test("attributes count where the full DOM is needed: a page of few tags and many is held to it", () => {
  // 4,000 elements of 60 attributes each (valued, then bare): 240,000 attributes in 1.4 MB, which
  // linkedom built into 400 MB.
  const valued = Array.from({ length: 60 }, (_, i) => `a${i}=x`).join(" ");
  const bare = Array.from({ length: 60 }, (_, i) => `b${i}`).join(" ");
  for (const attributes of [valued, bare]) {
    const html = "<html><head></head><body><p>first</p>" +
      `<i ${attributes}>t</i>`.repeat(4000) + "</body></html>";
    assert.throws(() => checkNodeBudget(html, DOM_MAX_NODES), TooManyNodes);
    const light = parseLight(html);
    assert.ok(light.nodeCount + light.attributeCount > DOM_MAX_NODES);
    for (const format of ["markdown", "html"] as const) {
      const page = convertSource(html, { url: URL, format, extract: true });
      assert.match(page.text, /^first\nt+\n\n\[This page has more than 150,000 HTML nodes/);
    }
  }
  // Counted alike with and without a tree.
  const small = `<p a=1 b c='3' a>x</p><br/ d>`;
  const counted = parseLight(small);
  const nodes = counted.nodeCount + counted.attributeCount;
  assert.equal(nodes, 8); // p, 4 attributes (a twice), "x", br, d
  assert.doesNotThrow(() => checkNodeBudget(small, nodes));
  assert.throws(() => checkNodeBudget(small, nodes - 1), TooManyNodes);
});

/**
 * A fetched HTML page as fetch_url returns it: its main content and title, and the converter's
 * markdown and text (links, lists, escaping, code, tables, hidden content, deep nesting, junk).
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseHTML } from "linkedom";
import type { DomNode } from "../../../tools/web/_lib/html_markdown/dom_tree.ts";
import { htmlToMarkdown, htmlToText } from "../../../tools/web/_lib/html_markdown/html_markdown.ts";
import { convertHtml } from "../../../tools/web/_lib/convert/main_content.ts";

const URL = "https://example.com/blog/post";

/** The whole page (no extraction) as markdown. */
function md(html: string): string {
  return convertHtml(html, { url: URL, format: "markdown", extract: false }).text;
}

function text(html: string): string {
  return convertHtml(html, { url: URL, format: "text", extract: false }).text;
}

const PARAGRAPHS = [1, 2, 3, 4].map((n) =>
  `<p>Paragraph ${n} of the article explains, at some length, how the widget frobnicates ` +
  `its inputs, why that matters, and what a careful reader should do next.</p>`
).join("\n");

const ARTICLE_PAGE = `<!DOCTYPE html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Frobnicating widgets - Example Blog</title>
  <base href="/docs/">
  <style>body { color: red }</style>
  <script>console.log("tracking")</script>
</head>
<body>
  <header class="site-header">
    <a href="/" class="logo">Example Blog</a>
    <nav><ul><li><a href="/">Home</a></li><li><a href="/about">About us</a></li></ul></nav>
  </header>
  <div class="layout">
    <article>
      <h1>Frobnicating widgets</h1>
      ${PARAGRAPHS}
      <p>See <a href="guide.html">the guide</a> and <a href="#setup">setup</a>.</p>
      <pre><code class="language-python">def frob(x):
    return x * 2
</code></pre>
      <table>
        <thead><tr><th>Widget</th><th>Speed</th></tr></thead>
        <tbody><tr><td>Alpha</td><td>10</td></tr><tr><td>Beta</td><td>20</td></tr></tbody>
      </table>
      <p><img src="img/chart.png" alt="Speed chart"></p>
    </article>
    <aside class="sidebar"><h2>Popular posts</h2><p>Sidebar teaser text</p></aside>
  </div>
  <footer><p>Copyright 2024 Example Blog</p><a href="/privacy">Privacy</a></footer>
  <script>document.write("late script")</script>
</body>
</html>`;

test("an article page comes back without its navigation, sidebar and footer", () => {
  const page = convertHtml(ARTICLE_PAGE, { url: URL, format: "markdown", extract: true });
  assert.equal(page.extracted, true);
  // The page's h1 without the site's name that <title> adds.
  assert.equal(page.title, "Frobnicating widgets");
  const out = page.text;
  assert.match(out, /^# Frobnicating widgets\n/);
  assert.match(out, /Paragraph 1 of the article explains/);
  assert.match(out, /Paragraph 4 of the article explains/);
  for (
    const chrome of ["About us", "Home", "Popular posts", "Sidebar teaser", "Copyright", "Privacy"]
  ) {
    assert.ok(!out.includes(chrome), `${chrome} leaked into:\n${out}`);
  }
  assert.ok(!out.includes("tracking") && !out.includes("late script") && !out.includes("color"));
  assert.ok(
    out.includes("```python\ndef frob(x):\n    return x * 2\n```"),
    `no fenced python block in:\n${out}`,
  );
  assert.ok(
    out.includes("| Widget | Speed |\n| --- | --- |\n| Alpha | 10 |\n| Beta | 20 |"),
    `no pipe table in:\n${out}`,
  );
  assert.ok(out.includes("[the guide](https://example.com/docs/guide.html)"), out);
  assert.ok(out.includes("[setup](https://example.com/docs/#setup)"), out);
  assert.ok(out.includes("![Speed chart](https://example.com/docs/img/chart.png)"), out);
});

test("without extraction the whole page is converted, still without scripts and nav", () => {
  const page = convertHtml(ARTICLE_PAGE, { url: URL, format: "markdown", extract: false });
  assert.equal(page.extracted, false);
  assert.ok(page.text.includes("Sidebar teaser text"));
  assert.ok(page.text.includes("Copyright 2024 Example Blog"));
  assert.ok(!page.text.includes("About us"), "nav is dropped even from the whole page");
  assert.ok(!page.text.includes("tracking"));
});

test("a page without an article falls back to <main>, then to the body without chrome", () => {
  const withMain = convertHtml(
    `<body><nav><a href="/">Home</a></nav><main><p>Main text</p></main><footer>Foot</footer></body>`,
    { url: URL, format: "markdown", extract: true },
  );
  assert.deepEqual(withMain, { text: "Main text", extracted: true });
  const bare = convertHtml(
    `<body><header>Site name</header><div><p>Body text</p><aside>Ads</aside></div>` +
      `<footer>Foot</footer></body>`,
    { url: URL, format: "text", extract: true },
  );
  assert.deepEqual(bare, { text: "Body text", extracted: true });
  const plain = convertHtml("<p>Only this</p>", { url: URL, format: "text", extract: true });
  assert.deepEqual(plain, { text: "Only this", extracted: false });
});

test("links and images resolve against the page URL and <base href>", () => {
  assert.equal(
    md(
      `<p><a href="../other?q=1">up</a> <a href="/root">root</a> <a href="//cdn.example.org/x">cdn</a>
      <a href="mailto:a@example.com">mail</a> <img src="pic.png" alt="pic"></p>`,
    ),
    "[up](https://example.com/other?q=1) [root](https://example.com/root) " +
      "[cdn](https://cdn.example.org/x) [mail](mailto:a@example.com) " +
      "![pic](https://example.com/blog/pic.png)",
  );
  assert.equal(
    md(
      `<html><head><base href="https://static.example.net/v2/"></head>` +
        `<body><a href="a/b.html">b</a></body></html>`,
    ),
    "[b](https://static.example.net/v2/a/b.html)",
  );
  // Script links and bare "#" are not destinations: their text stays, unlinked.
  assert.equal(md(`<a href="javascript:void(0)">menu</a> <a href="#">top</a>`), "menu top");
  // An icon link keeps its label; parentheses in a URL stay balanced or are escaped.
  assert.equal(
    md(`<a href="/x" aria-label="Settings"><span></span></a> <a href="/w/A_(b">odd</a>`),
    "[Settings](https://example.com/x) [odd](https://example.com/w/A_\\(b)",
  );
});

test("htmlToMarkdown works on any element and finds the document's <base>", () => {
  const { document } = parseHTML(
    `<html><head><base href="/base/"></head><body><div id="c"><a href="p">p</a></div></body></html>`,
  ) as unknown as { document: { querySelector(s: string): DomNode } };
  const element = document.querySelector("#c");
  assert.equal(htmlToMarkdown(element, { url: URL }), "[p](https://example.com/base/p)");
  assert.equal(htmlToText(element), "p");
});

test("nested lists keep their markers and indentation", () => {
  const html = `<ul>
    <li>one</li>
    <li>two
      <ol><li>two.one</li><li>two.two<ul><li>deep</li></ul></li></ol>
    </li>
    <li><p>three</p><p>three, second paragraph</p></li>
  </ul>
  <p>after</p>
  <ol start="9"><li>nine</li><li>ten<ul><li>under ten</li></ul></li></ol>`;
  const expected = [
    "- one",
    "- two",
    "  1. two.one",
    "  2. two.two",
    "     - deep",
    "- three",
    "",
    "  three, second paragraph",
    "",
    "after",
    "",
    "9. nine",
    "10. ten",
    "    - under ten",
  ].join("\n");
  // Lists read the same in markdown and in plain text.
  assert.equal(md(html), expected);
  assert.equal(text(html), expected);
});

test("a list nested straight in a list indents under the item before it", () => {
  assert.equal(md("<ul><li>a</li><ul><li>b</li></ul><li>c</li></ul>"), "- a\n  - b\n- c");
});

test("text that would read as markdown is escaped, and only there", () => {
  const out = md(`
    <p># not a heading</p>
    <p>- not an item</p>
    <p>1986. A fine year</p>
    <p>&gt; not a quote</p>
    <p>a *literal* star, 2 * 3, snake_case, _private, [brackets], \`tick\`, a&lt;b, AT&amp;T, &amp;amp;</p>
    <p>===</p>
    <p>C:\\path\\*</p>
    <p>~~not struck~~ ~/home</p>`);
  assert.equal(
    out,
    [
      "\\# not a heading",
      "\\- not an item",
      "1986\\. A fine year",
      "\\> not a quote",
      "a \\*literal\\* star, 2 * 3, snake_case, \\_private, \\[brackets\\], \\`tick\\`, a\\<b, " +
      "AT&T, \\&amp;",
      "\\===",
      "C:\\path\\\\\\*",
      "\\~\\~not struck\\~\\~ ~/home",
    ].join("\n\n"),
  );
});

test("emphasis, strong, strike and inline code", () => {
  assert.equal(
    md(
      "<p>a <em>b</em> <strong> c </strong><b></b> <del>d</del> <code>x = `y`</code> " +
        "<code>``</code> <kbd>Ctrl</kbd></p>",
    ),
    "a *b* **c** ~~d~~ `` x = `y` `` ``` `` ``` `Ctrl`",
  );
  assert.equal(md("<h2><strong>Bold</strong> heading</h2>"), "## Bold heading");
});

test("code blocks fence longer than any backtick run and find the language", () => {
  assert.equal(
    md('<pre class="lang-sh">echo ```</pre>'),
    "````sh\necho ```\n````",
  );
  assert.equal(
    md('<div class="highlight-rust"><pre><span>fn</span> main() {}\n<br>// end</pre></div>'),
    "```rust\nfn main() {}\n\n// end\n```",
  );
  assert.equal(md("<pre>\n  indented\n\n\n  kept</pre>"), "```\n  indented\n\n\n  kept\n```");
  assert.equal(
    md("<ul><li>step<pre><code>run it</code></pre></li></ul>"),
    "- step\n\n  ```\n  run it\n  ```",
  );
});

test("whitespace collapses as a browser would, except inside pre", () => {
  assert.equal(
    md("<div>\n  <p>  lots   of \n\t space&nbsp;here </p>\n\n\n<p>next</p>  </div>"),
    "lots of space here\n\nnext",
  );
  assert.equal(md("<p>a<span> b </span> c<b> d</b>e</p>"), "a b c **d**e");
  assert.equal(md("<p>line one<br>line two<br></p>"), "line one  \nline two");
  assert.equal(md("<p>para one<br><br><br><br>para two</p>"), "para one\n\npara two");
  const many = md("<div></div>".repeat(5) + "<p>x</p>" + "<p> </p>".repeat(5) + "<p>y</p>");
  assert.equal(many, "x\n\ny");
});

test("hidden elements, scripts, forms and embeds are dropped", () => {
  const out = md(`<p>visible</p>
    <p hidden>hidden attribute</p>
    <div aria-hidden="true">aria hidden</div>
    <span style="color: red; display : none !important">inline none</span>
    <div style="visibility:hidden">invisible</div>
    <script>var script = 1</script><style>.style {}</style><noscript>noscript</noscript>
    <template><p>template</p></template><svg><text>svg text</text></svg><canvas>canvas</canvas>
    <iframe src="x">iframe</iframe>
    <form><label>Name</label><input value="input"><select><option>option</option></select>
      <textarea>textarea</textarea><button>button</button></form>
    <nav>navigation</nav>
    <p>end</p>`);
  assert.equal(out, "visible\n\nName\n\nend");
});

test("tables: header from the first row, escaped pipes, flattened cells, colspan", () => {
  const out = md(`<table>
    <caption>Prices</caption>
    <tr><td>Item</td><td>Cost | tax</td><td>Note</td></tr>
    <tr><td>A<br>B</td><td colspan="2">spans <a href="/x">two</a></td></tr>
    <tr><td rowspan="2">tall</td><td>1</td><td><p>p1</p><p>p2</p></td></tr>
    <tr><td>2</td><td><table><tr><td>in</td><td>ner</td></tr></table></td></tr>
    <tr><td></td><td></td><td></td></tr>
  </table>`);
  assert.equal(
    out,
    [
      "Prices",
      "",
      "| Item | Cost \\| tax | Note |",
      "| --- | --- | --- |",
      "| A B | spans [two](https://example.com/x) |  |",
      "| tall | 1 | p1 p2 |",
      "|  | 2 | in ner |",
    ].join("\n"),
  );
  assert.equal(
    text("<table><tr><th>a</th><th>b</th></tr><tr><td>1</td><td>2</td></tr></table>"),
    "a | b\n1 | 2",
  );
});

test("a single-column or presentation table is layout, not data", () => {
  assert.equal(
    md("<table><tr><td><h2>Title</h2><p>Body</p></td></tr><tr><td>More</td></tr></table>"),
    "## Title\n\nBody\n\nMore",
  );
  assert.equal(
    md('<table role="presentation"><tr><td>left</td><td>right</td></tr></table>'),
    "left\n\nright",
  );
});

test("blockquotes, rules, headings and definition lists", () => {
  assert.equal(
    md(
      "<blockquote><p>one</p><blockquote><p>two</p></blockquote><p>three</p></blockquote>" +
        "<hr><h3>Section #</h3><dl><dt>Term</dt><dd>Meaning</dd><dt>Other</dt><dd>More</dd></dl>",
    ),
    [
      "> one",
      ">",
      "> > two",
      ">",
      "> three",
      "",
      "---",
      "",
      "### Section \\#",
      "",
      "**Term**",
      ": Meaning",
      "",
      "**Other**",
      ": More",
    ].join("\n"),
  );
});

test("the title is not repeated when the first heading already says it", () => {
  const page = (title: string, body: string) =>
    convertHtml(`<html><head><title>${title}</title></head><body>${body}</body></html>`, {
      url: URL,
      format: "markdown",
      extract: false,
    }).text;
  assert.equal(page("Intro | Site", "<h1>Intro</h1><p>x</p>"), "# Intro\n\nx");
  assert.equal(
    page("Intro", "<pre># Intro</pre><h2>Other</h2>"),
    "# Intro\n\n```\n# Intro\n```\n\n## Other",
  );
  assert.equal(page("A [draft]", "<p>x</p>"), "# A \\[draft\\]\n\nx");
});

test("text format is readable plain text without markup", () => {
  const out = convertHtml(ARTICLE_PAGE, { url: URL, format: "text", extract: true });
  assert.equal(out.extracted, true);
  assert.ok(out.text.includes("See the guide and setup."), out.text);
  assert.ok(out.text.includes("def frob(x):\n    return x * 2"), out.text);
  assert.ok(out.text.includes("Widget | Speed\nAlpha | 10\nBeta | 20"), out.text);
  assert.ok(!/[*#`[\]]|\]\(|```/.test(out.text.replace(/x \* 2/, "")), out.text);
  assert.equal(
    text(
      "<h1>Head</h1><div>line one</div><div>line two</div><blockquote>quoted</blockquote>" +
        "<p>a <b>bold</b> <a href='/x'>link</a></p>",
    ),
    "Head\n\nline one\nline two\n\n  quoted\n\na bold link",
  );
});

test("html format returns the extracted HTML without scripts, styles or handlers", () => {
  const page = convertHtml(
    ARTICLE_PAGE.replace("<h1>", `<h1 onclick="evil()" style="color:red">`),
    { url: URL, format: "html", extract: true },
  );
  assert.equal(page.extracted, true);
  assert.ok(page.text.includes("Paragraph 1 of the article"), page.text);
  assert.ok(page.text.includes('href="https://example.com/docs/guide.html"'), page.text);
  assert.ok(page.text.includes('class="language-python"'), page.text);
  for (
    const unwanted of ["<script", "<style", "onclick", "style=", "Sidebar teaser", "Copyright"]
  ) {
    assert.ok(!page.text.includes(unwanted), `${unwanted} in:\n${page.text}`);
  }
  const whole = convertHtml(ARTICLE_PAGE, { url: URL, format: "html", extract: false });
  assert.equal(whole.extracted, false);
  assert.match(whole.text, /^<!DOCTYPE html>\s*<html lang="en">\s*<head>/);
  assert.ok(whole.text.includes("Copyright 2024") && !whole.text.includes("<script"));
});

test("10,000-deep nesting converts without overflowing the stack", () => {
  const depth = 10_000;
  const divs = "<div>".repeat(depth) + "<p>deep <a href='z'>link</a></p>" + "</div>".repeat(depth);
  for (const extract of [true, false]) {
    const page = convertHtml(`<html><head><title>Deep</title></head><body>${divs}</body></html>`, {
      url: URL,
      format: "markdown",
      extract,
    });
    assert.equal(page.text, "# Deep\n\ndeep [link](https://example.com/blog/z)");
  }
  const lists = md("<ul><li>x".repeat(depth));
  const lines = lists.split("\n");
  assert.equal(lines.length, depth);
  assert.ok(lines.every((line) => line.trim() === "- x" && line.length <= 2 * 40 + 3));
  assert.equal(md("<blockquote>".repeat(depth) + "q").replace(/[> \n]/g, ""), "q");
  assert.equal(md("<b><i>".repeat(depth) + "x"), "***x***");
  // Nested tables flatten into the outer table's cells.
  const tables = text(
    "<span>".repeat(depth) + "s" + "<table><tr><td>a</td><td>".repeat(depth) + "t",
  );
  assert.ok(tables === `s\n\na | ${"a ".repeat(depth - 1)}t`, tables.slice(0, 100));
});

test("empty, whitespace, fragment and garbage input never throw", () => {
  for (const format of ["markdown", "text", "html"] as const) {
    for (const html of ["", "   \n\t", "<", "<<<>>>", "</p></div></html>", "<!-- never closed"]) {
      const page = convertHtml(html, { url: URL, format, extract: true });
      assert.equal(typeof page.text, "string");
      assert.equal(page.extracted, false);
    }
  }
  assert.deepEqual(
    convertHtml("", { url: URL, format: "markdown", extract: true }),
    { text: "", extracted: false },
  );
  assert.equal(md("just <b>text</b>\u0000\u0007 here"), "just **text** here");
  assert.equal(md("<p>open<table><tr><td>x"), "open\n\nx");
  assert.equal(
    md("<!doctype html><title>No body</title><h2>Heading</h2><p>para</p>"),
    "# No body\n\n## Heading\n\npara",
  );
  assert.equal(md('<p>bad url <a href="http://[::1">x</a></p>'), "bad url [x](http://[::1)");
  const binary = String.fromCharCode(...Array.from({ length: 4096 }, (_, i) => (i * 7919) % 256));
  assert.equal(typeof md(binary), "string");
  const noUrl = convertHtml('<a href="rel">r</a>', {
    url: "not a url",
    format: "markdown",
    extract: false,
  });
  assert.equal(noUrl.text, "[r](rel)");
});

test("a 2 MB page converts completely", () => {
  const section = (n: number) =>
    `<section><h2>Section ${n}</h2><p>Text of section ${n}, with <a href="/s/${n}">a link</a> ` +
    `and <code>code</code>, long enough to look like an article paragraph.</p>` +
    `<ul><li>first ${n}</li><li>second ${n}</li></ul>` +
    `<table><tr><th>k</th><th>v</th></tr><tr><td>${n}</td><td>${n * 2}</td></tr></table></section>`;
  const sections = Array.from({ length: 7000 }, (_, i) => section(i)).join("\n");
  const html = `<html><head><title>Big</title></head><body><nav>menu</nav>` +
    `<article>${sections}</article><footer>foot</footer></body></html>`;
  assert.ok(html.length > 2_000_000);
  const page = convertHtml(html, { url: URL, format: "markdown", extract: true });
  assert.equal(page.extracted, true);
  assert.ok(page.text.includes("## Section 6999\n\nText of section 6999"));
  assert.ok(page.text.includes("| 6999 | 13998 |"));
  assert.ok(!page.text.includes("menu") && !page.text.includes("foot"));
});

test("past Readability's limit a page still loses its chrome, and resolves links as before", () => {
  const items = Array.from({ length: 12_000 }, (_, i) => `<li>item ${i}</li>`).join("");
  // A <base> inside a <template> is inert: links resolve against the page's own.
  const html = `<!DOCTYPE html><html><head><title>Big list | Site</title>` +
    `<template><base href="https://elsewhere.example/"></template><base href="/docs/"></head>` +
    `<body><header><a href="/">Site</a><nav><a href="/a">A</a></nav></header>` +
    `<main><h1>Big list</h1><p>See <a href="guide.html">the guide</a>.</p>` +
    `<pre class="lang-py"><code>x = 1</code></pre><ul>${items}</ul></main>` +
    `<aside>Sidebar</aside><footer>Footer</footer></body></html>`;
  for (const format of ["markdown", "text"] as const) {
    const page = convertHtml(html, { url: URL, format, extract: true });
    assert.equal(page.extracted, true);
    assert.equal(page.title, "Big list");
    assert.ok(!/Sidebar|Footer|\bA\b/.test(page.text), page.text.slice(0, 200));
    assert.ok(page.text.includes("item 11999"));
    if (format === "markdown") {
      assert.ok(
        page.text.startsWith("# Big list\n\nSee [the guide](https://example.com/docs/guide.html)."),
      );
      assert.ok(page.text.includes("```py\nx = 1\n```"));
    }
  }
});

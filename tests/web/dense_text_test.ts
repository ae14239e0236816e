/** The text of a page too dense for a tree (dense_text.ts), read as it is parsed. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { denseText } from "../../tools/web/_lib/convert/dense_text.ts";

test("what a reader sees: each block on its own lines, <br> a line break, blanks collapsed", () => {
  const { title, text } = denseText(
    "<html><head><title>\n A  title </title><style>p{}</style></head><body>" +
      "<h1>Head</h1><p>one   two\nthree <b>bold</b>&amp;more</p>" + "<br>".repeat(1000) +
      "<ul><li>a</li><li>b</li></ul>x<br>y</body></html>",
  );
  assert.equal(title, "A title");
  assert.equal(text, "Head\none two three bold&more\n\na\nb\nx\ny");
});

test("scripts, forms and hidden elements are left out, with all inside them", () => {
  const { text } = denseText(
    "<p>shown</p><script>a()</script><div hidden><p>h1</p></div>" +
      '<span aria-hidden="true">h2<b>h3</b></span><p style="display: none">h4</p>' +
      "<dialog>h5</dialog><dialog open>open dialog</dialog><select><option>h6</select>" +
      "<nav>menu</nav><p>after</p>",
  );
  assert.equal(text, "shown\nopen dialog\nafter");
});

test("the first title with text; an unclosed title is cut", () => {
  assert.equal(denseText("<title> </title><title>Second</title>").title, "Second");
  assert.equal(denseText("<p>no title</p>").title, undefined);
  const { title } = denseText("<title>" + "word ".repeat(10_000));
  assert.ok(title !== undefined && title.length <= 1000, `${title?.length}`);
});

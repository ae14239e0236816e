import assert from "node:assert/strict";
import { test } from "node:test";
import { convertSource, MAX_CONVERTED_HTML_CHARS } from "../../tools/web/_lib/convert/source.ts";

test("a page cut at the conversion limit is not cut inside a surrogate pair", () => {
  // Emoji (two UTF-16 units each) after three characters: the limit falls between two halves.
  const html = "<p>" + "\u{1F600}".repeat(MAX_CONVERTED_HTML_CHARS / 2) + "</p>";
  assert.equal(html.charCodeAt(MAX_CONVERTED_HTML_CHARS - 1), 0xd83d);
  const page = convertSource(html, { url: "http://example.test/", format: "text", extract: false });
  assert.match(page.text, /Only the first/);
  assert.ok(!/[\ud800-\udbff](?![\udc00-\udfff])/.test(page.text), "a lone high surrogate");
});

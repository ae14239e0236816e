/** Names shown safe: control characters, line separators and bidi overrides escaped. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { shownName } from "../../tools/_lib/text/shown_name.ts";

test("a plain name, a backslash and non-ASCII text come back as they are", () => {
  for (const name of ["src/a.ts", "C:\\work\\a.ts", "résumé 日本.md", "emoji 🎉.txt"]) {
    assert.equal(shownName(name), name);
  }
});

test("newlines, tabs, ESC, DEL, C1, U+2028 and bidi overrides are escaped", () => {
  assert.equal(shownName("a\nb\rc\td"), "a\\nb\\rc\\td");
  assert.equal(shownName("\x1b[31mred\x7f\x85"), "\\x1b[31mred\\x7f\\x85");
  assert.equal(shownName("x\u2028y\u202ez\u2066"), "x\\u2028y\\u202ez\\u2066");
  assert.equal(shownName("\0"), "\\x00");
});

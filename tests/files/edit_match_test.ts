import assert from "node:assert/strict";
import { test } from "node:test";
import {
  explainMissing,
  fitReplacement,
  lineOf,
  looseMatches,
  occurrences,
  replaceAt,
} from "../../tools/files/_lib/edit_match.ts";

test("occurrences are non-overlapping and replaced literally", () => {
  assert.deepEqual(occurrences("aaaa", "aa"), [0, 2]);
  assert.deepEqual(occurrences("abc", "x"), []);
  const text = "price: 10\nprice: 20\n";
  assert.equal(
    replaceAt(text, occurrences(text, "price"), 5, "$& $1 $$"),
    "$& $1 $$: 10\n$& $1 $$: 20\n",
  );
});

test("lineOf counts lines from 1", () => {
  const text = "a\nb\nc";
  assert.deepEqual([0, 2, 4].map((at) => lineOf(text, at)), [1, 2, 3]);
});

test("a near miss on whitespace names the lines and shows them exactly", () => {
  const text = "function f() {\n\treturn 1;\n}\n";
  const why = explainMissing(text, "function f() {\n    return 1;\n}");
  assert.match(why, /matches lines 1-3 except for whitespace/);
  assert.match(why, / {5}2\t\treturn 1;/);
});

test("otherwise the most similar lines are offered with their numbers", () => {
  const text = ["import x from 'x';", "", "const total = price * quantity;", "console.log(total);"]
    .join("\n");
  const why = explainMissing(text, "const totl = price * quantity;");
  assert.match(why, /closest places/);
  assert.match(why, /lines 3-3, 9\d% similar/);
  assert.match(why, / {5}3\tconst total = price \* quantity;/);
  assert.match(explainMissing(text, "zzzz qqqq"), /No line of the file looks like/);
});

/** Applies `needle` -> `replacement` where it matches once with whitespace ignored. */
function looseEdit(text: string, needle: string, replacement: string): string {
  const places = looseMatches(text, needle);
  assert.equal(places.length, 1, JSON.stringify(places));
  const [place] = places;
  return text.slice(0, place.start) + fitReplacement(text, place, needle, replacement) +
    text.slice(place.end);
}

test("spaces for tabs: the replacement takes the file's tabs, deeper lines one tab per level", () => {
  const text = "function f() {\n\tif (x) {\n\t\treturn 1;\n\t}\n}\n";
  const out = looseEdit(
    text,
    "  if (x) {\n    return 1;\n  }",
    "  if (x) {\n    log(x);\n    return 2;\n  }\n  return 0;",
  );
  assert.equal(
    out,
    "function f() {\n\tif (x) {\n\t\tlog(x);\n\t\treturn 2;\n\t}\n\treturn 0;\n}\n",
  );
});

test("an old_string without indentation fits lines indented deeper; CRLF lines stay CRLF", () => {
  const text = "a:\r\n    b:  1\r\n    c: 2\r\nd: 3\n";
  const out = looseEdit(text, "b: 1\nc: 2", "b: 10\nc: 20\n  e: 30");
  assert.equal(out, "a:\r\n    b: 10\r\n    c: 20\r\n      e: 30\r\nd: 3\n");
});

test("runs of spaces inside a line and a mid-line start; several places are all reported", () => {
  assert.equal(looseEdit("x = foo(a,   b) + 1\n", "foo(a, b)", "bar(a)"), "x = bar(a) + 1\n");
  assert.equal(looseMatches("  a  b\n\ta b\n", "a b").length, 2);
  assert.deepEqual(looseMatches("abc\n", "   \n"), []);
});

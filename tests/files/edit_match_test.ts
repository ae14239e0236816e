import assert from "node:assert/strict";
import { test } from "node:test";
import {
  explainMissing,
  lineOf,
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
  assert.match(why, / {5}3\tconst total = price \* quantity;/);
  assert.match(explainMissing(text, "zzzz qqqq"), /No line of the file looks like/);
});

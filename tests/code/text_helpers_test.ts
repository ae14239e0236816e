/** The pure helpers of the code family: name-path matching, re-indentation, the indent unit. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { matchesName, namePattern } from "../../tools/code/_lib/name_path.ts";
import { indentUnit, reindent } from "../../tools/code/_lib/symbol_splice.ts";
import { languageOf } from "../../tools/code/_lib/parse/mod.ts";

test("a name path matches at its end, from the top with a leading slash, or by part", () => {
  const exact = namePattern("Shape/area", false);
  assert.equal(matchesName("geo/Shape/area", exact), true);
  assert.equal(matchesName("geo/Shape/areas", exact), false);
  assert.equal(matchesName("area", exact), false);
  assert.equal(matchesName("geo/Shape/area", namePattern("/Shape/area", false)), false);
  assert.equal(matchesName("Shape/area", namePattern("/Shape/area", false)), true);
  const part = namePattern("Shape/ARE", true);
  assert.equal(matchesName("geo/Shape/area", part), true);
  assert.equal(matchesName("geo/Other/area", part), false);
});

test("reindent moves the common indentation to the target and drops blank edges", () => {
  assert.equal(reindent("\n    a\n      b\n\n    c\n\n", "  ", true), "  a\n    b\n\n  c");
  assert.equal(reindent("def f():\n    return 1", "    ", false), "def f():\n        return 1");
  assert.equal(reindent("a\r\nb", "\t", true), "\ta\n\tb");
});

test("the indent unit is a tab, or the smallest step of spaces (4 when none)", () => {
  assert.equal(indentUnit("a\n\tb\n"), "\t");
  assert.equal(indentUnit("a\n  b\n    c\n"), "  ");
  assert.equal(indentUnit("a\nb\n"), "    ");
});

test("languages are known by extension, on either kind of separator", () => {
  assert.equal(languageOf("src/a.TS"), "typescript");
  assert.equal(languageOf("src/a.tsx"), "tsx");
  assert.equal(languageOf("lib/x.hpp"), "cpp");
  assert.equal(languageOf("C:\\src.d\\main"), undefined);
  assert.equal(languageOf("C:\\src\\main.rs"), "rust");
  assert.equal(languageOf("README.md"), undefined);
});

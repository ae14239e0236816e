/** Which patterns make rg decode files first: those some part of which may match U+FFFD. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { mayMatchReplacement } from "../../tools/search/_lib/grep/pattern_decoding.ts";

test("patterns that may match U+FFFD need decoding; the rest match raw bytes alike", () => {
  const decoded = [
    "caf. latte",
    "a[^x]b",
    "\\W",
    "\\S+",
    "\\D",
    "\\p{L}",
    "\\P{L}",
    "\\p{So}",
    "\\uFFFD",
    "\\u{fffd}",
    "\uFFFD",
    "[\uFFFD]",
    "[\\u0100-\\uFFFF]",
    "[\\x00-\\u{10FFFF}]",
    "[a\\uFFF0-\\uFFFE]",
    "[\\n-\\uFFFF]",
    "(?:a|.)",
  ];
  for (const pattern of decoded) assert.equal(mayMatchReplacement(pattern), true, pattern);
  const raw = [
    "needle|Needle",
    "\\bfoo\\b",
    "\\w+Handler\\(token",
    "^export (async )?function \\w+",
    "[a-z0-9_-]+",
    "[-a]",
    "x[a-]",
    "\\s\\d",
    "café",
    "[éè]",
    "[\\u0100-\\uFFFC]",
    "[\\uFFFE-\\uFFFF]",
    "\\u00e9|\\x41",
    "😀",
    "\\uD83D\\uDE00",
    "a\\nb",
    "(?<name>x)\\.\\[\\]",
    "a{2,3}$",
    "[\\b\\t]",
  ];
  for (const pattern of raw) assert.equal(mayMatchReplacement(pattern), false, pattern);
});

/** The patterns the built-in search refuses because they can backtrack exponentially. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { backtrackingRisk } from "../../tools/search/_lib/grep/backtracking.ts";

test("a repeated group holding a quantifier or ambiguous alternatives is refused", () => {
  const refused: [string, RegExp][] = [
    ["(a+)+b", /repeats a group that itself holds a quantifier/],
    ["(a*)*", /holds a quantifier/],
    ["(\\w+\\s?)*$", /holds a quantifier/],
    ["((ab)?c)+", /holds a quantifier/],
    ["(?:a{2})*", /holds a quantifier/],
    ["(a|a)*b", /alternatives \(\|\) could match the same text/],
    ["(ab|a)+", /could match the same text/],
    ["(a|ab){3}", /could match the same text/],
    ["(?<x>.|a)+", /could match the same text/],
    ["(a|)+", /could match the same text/],
    ["([ab]|c)+", /could match the same text/],
    ["((a|b)c)*", /could match the same text/],
  ];
  for (const [pattern, why] of refused) {
    const risk = backtrackingRisk(pattern, false);
    assert.ok(risk, pattern);
    assert.match(risk, why, pattern);
  }
});

test("everything else is accepted: single quantifiers, classes, literal alternatives", () => {
  const accepted = [
    "a+b+",
    "\\w+\\s*=\\s*\\d+",
    "(foo|bar)+",
    "(get|set)Value",
    "(x|y){0,1}",
    "(a|b)?",
    "(a\\.|b)*",
    "[(a+)]+",
    "\\(a+\\)+",
    "(ab)+",
    "(?:[a-z]\\d)*",
    "(A|a)+",
  ];
  for (const pattern of accepted) {
    assert.equal(backtrackingRisk(pattern, false), undefined, pattern);
  }
});

test("with case_insensitive, alternatives that differ only in case are the same text", () => {
  assert.match(backtrackingRisk("(A|a)+", true) ?? "", /could match the same text/);
  assert.match(backtrackingRisk("(s|\u017f)+", true) ?? "", /could match the same text/);
  assert.equal(backtrackingRisk("(foo|bar)+", true), undefined);
});

/** grep's pattern language: what is refused, and how patterns are spelled for rg and for JavaScript. */
import assert from "node:assert/strict";
import { test } from "node:test";
import { ToolError } from "../../mcp/tool/mod.ts";
import { compilePattern } from "../../tools/search/_lib/grep/pattern.ts";

const lineMode = { caseInsensitive: false, multiline: false };
const rust = (pattern: string, multiline = false) =>
  compilePattern(pattern, { caseInsensitive: false, multiline }).rust;

test("escapes whose meaning differs are spelled out for rg to mean what JavaScript means", () => {
  const space = "[\\s\\x{FEFF}&&[^\\x{85}]]";
  const cases: [string, string][] = [
    ["\\d+", "[0-9]+"],
    ["\\D", "[^0-9]"],
    ["\\w+", "[0-9A-Za-z_]+"],
    ["[\\w-]", "[0-9A-Za-z_-]"],
    ["[^\\d.]", "[^0-9.]"],
    ["[a\\W]", "[a[^0-9A-Za-z_]]"],
    ["\\s", space],
    ["\\S", "[^\\s\\x{FEFF}&&[^\\x{85}]]"],
    ["[\\s,]", `[${space},]`],
    ["\\bfoo\\B", "(?-u:\\b)foo(?-u:\\B)"],
    ["[\\b]", "[\\x08]"],
    ["\\u00e9\\u{1F600}", "\\x{00e9}\\x{1F600}"],
    ["\\uD83D\\uDE00", "\\x{1f600}"],
    ["\\cI\\0", "\\x{9}\\x00"],
    ["\\x41\\u{1F600}", "\\x41\\x{1F600}"],
    ["\\p{Lu}\\P{L}", "\\p{Lu}\\P{L}"],
    ["a\\/b\\.c[\\-]", "a/b\\.c[\\-]"],
    ["(?<year>\\d{4})", "(?P<year>[0-9]{4})"],
    ["[[]", "[\\[]"],
    ["[a&&b~~]", "[a\\&\\&b\\~\\~]"],
    ["^a.b$", "^a.b$"],
  ];
  for (const [js, expected] of cases) assert.equal(rust(js), expected, js);
});

test("JavaScript's own spelling keeps ^ $ . to line breaks, never at \\r or U+2028", () => {
  const { line, text } = compilePattern("^a.c$", lineMode);
  assert.equal(line.test("abc"), true);
  assert.equal(line.test("a\u2028c"), true);
  assert.equal(line.test("x\nabc"), false);
  const found = (re: RegExp, s: string) => {
    re.lastIndex = 0;
    return re.test(s);
  };
  assert.equal(found(text, "x\nabc\ny"), true);
  assert.equal(found(text, "x\rabc"), false);
  assert.equal(found(text, "abc\r\nx"), true);
  const multi = compilePattern("a.b", { caseInsensitive: false, multiline: true }).text;
  assert.equal(found(multi, "a\nb"), true);
  assert.equal(
    found(compilePattern("A", { caseInsensitive: true, multiline: false }).line, "a"),
    true,
  );
});

test("features rg's engine lacks are refused with the reason", () => {
  const refused: [string, RegExp][] = [
    ["a(?=b)", /lookahead or lookbehind/],
    ["(?<!a)b", /lookahead or lookbehind/],
    ["(a)\\1", /backreference/],
    ["(?<x>a)\\k<x>", /backreference/],
    ["[[:alpha:]]", /POSIX class/],
    ["[]a]", /empty class/],
    ["[^]", /empty class/],
    ["[a--b]", /write \\- for a literal hyphen/],
  ];
  for (const [pattern, message] of refused) {
    assert.throws(() => compilePattern(pattern, lineMode), (error: unknown) => {
      assert.ok(error instanceof ToolError, pattern);
      assert.match(error.message, message, pattern);
      return true;
    });
  }
});

test("a line break needs multiline; an invalid pattern says what is wrong", () => {
  assert.throws(() => compilePattern("a\\nb", lineMode), /set multiline to true/);
  assert.throws(() => compilePattern("a\nb", lineMode), /set multiline to true/);
  assert.equal(rust("a\\nb", true), "a\\nb");
  assert.throws(
    () => compilePattern("foo(", lineMode),
    /pattern "foo\(" is not a valid regular expression: .*Unterminated group/,
  );
  assert.throws(() => compilePattern("\\A", lineMode), /is not a valid regular expression/);
});

test("outside multiline mode no pattern matches a \\r inside a line (as rg --crlf), and naming \\r is refused", () => {
  const parts = [
    "a.b",
    "a\\sb",
    "a[^x]b",
    "a\\Wb",
    "a\\Db",
    "a[\\s]b",
    "a\\P{L}b",
    "a[\\0-\\x1f]b",
  ];
  for (const pattern of parts) {
    const { line } = compilePattern(pattern, lineMode);
    assert.equal(line.test("a\rb"), false, pattern);
    assert.equal(line.test("a\tb"), true, pattern);
  }
  // A \r is still a non-word character to \b, as it is to rg.
  assert.equal(compilePattern("a\\b", lineMode).line.test("a\rb"), true);
  for (const pattern of ["a\\r", "a\r", "[\\r]", "\\x0d", "\\u000D", "\\u{d}", "\\cM"]) {
    assert.throws(
      () => compilePattern(pattern, lineMode),
      /matches a carriage return \(\\r\), which grep matches only with multiline set/,
      pattern,
    );
  }
  const multiline = { caseInsensitive: false, multiline: true };
  for (const pattern of ["a\\rb", "a.b", "a\\sb"]) {
    const { text } = compilePattern(pattern, multiline);
    text.lastIndex = 0;
    assert.equal(text.test("a\rb"), true, pattern);
  }
});

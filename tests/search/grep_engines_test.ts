/**
 * grep's two searches side by side on the awkward cases: a \r inside a line, invalid UTF-8, U+2028,
 * UTF-16, late NUL bytes, neighbouring multiline matches, nested repositories, .rgignore over
 * .gitignore, case in ignore rules. Both must report the same files, lines and flags.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { IgnoreRules } from "../../tools/_lib/walk/gitignore.ts";
import { BuiltinEngine } from "../../tools/search/_lib/grep/builtin/builtin_engine.ts";
import type { FileMatches, OutputMode } from "../../tools/search/_lib/grep/report.ts";
import { mayMatchReplacement } from "../../tools/search/_lib/grep/pattern_decoding.ts";
import { RipgrepEngine } from "../../tools/search/_lib/grep/ripgrep/ripgrep_engine.ts";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { grepQuery } from "./grep_query.ts";

const rg = findRipgrep();

const utf16 = (text: string) => {
  const out = new Uint8Array(2 + text.length * 2);
  out.set([0xff, 0xfe]);
  for (let i = 0; i < text.length; i++) out[2 + 2 * i] = text.charCodeAt(i);
  return out;
};
const latin1 = (text: string) => Uint8Array.from(text, (c) => c.charCodeAt(0));

export const AWKWARD_FILES: Record<string, string | Uint8Array> = {
  ".gitignore": "*.log\nSecret.md\n",
  ".rgignore": "!important.log\n",
  "cr.txt": "a\rb one\nline two\r\nthree\r\nx\ry\n",
  "invalid.txt": latin1("caf\xe9 latte\nreal \xef\xbf\xbd mark\nbad \xff\xfe end\n"),
  "separators.txt": "before\u2028needle after\u2029x\nnext needle\n",
  "multi.txt": "one\ntwo\nthree\nfour\nfive\n\nsix\n",
  "utf16.txt": utf16("needle in utf-16\nsecond\n"),
  // For rg matching raw bytes (a pattern that cannot match U+FFFD) or decoded ones: invalid UTF-8
  // after a UTF-8 BOM, UTF-16 big-endian with a lone surrogate, and a match far into a line
  // after invalid bytes (where the line is shown cut around its match's column).
  "bom8.txt": latin1("\xef\xbb\xbfword caf\xe9 word\n\xff word\nplain\n"),
  "utf16be.txt": Uint8Array.from([
    0xfe,
    0xff,
    0,
    0x77,
    0,
    0x6f,
    0,
    0x72,
    0,
    0x64,
    0xdc,
    0,
    0,
    0x20,
    0,
    0x78,
    0,
    0x0a,
  ]),
  "long_invalid.txt": latin1(
    "\xe2\x82".repeat(400) + " marker " + "\xff".repeat(400) + " marker\n",
  ),
  // rg checks only the first 64 KB for a NUL byte when it matches across lines.
  "late_nul.txt": "needle\n".repeat(20_000) + "\0\n",
  "early_nul.txt": "needle\n".repeat(20) + "\0\n",
  // ...and then the lines it reports, context included.
  "context_nul.txt": "x\n".repeat(40_000) + "pin\na\0b\ntail\n",
  "crlf.txt": "a\r\nb\r\n\r\nc\r\n",
  "empty_lines.txt": "x\n\ny\n\n\nz",
  "secret.md": "needle in a file whose name differs from the rule in case\n",
  "outer.log": "needle outer log\n",
  "sub/.gitignore": "important.log\n",
  "sub/important.log": "needle important\n",
  "nested/.git/HEAD": "ref: refs/heads/main\n",
  "nested/.gitignore": "*.tmp\n",
  "nested/inner.log": "needle in a nested repository\n",
  "nested/skip.tmp": "needle tmp\n",
};

export function awkwardTree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-engines-")));
  for (const [path, content] of Object.entries(AWKWARD_FILES)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

interface Case {
  pattern: string;
  multiline?: boolean;
  mode?: OutputMode;
  caseInsensitive?: boolean;
  after?: number;
}

async function run(root: string, engine: "rg" | "builtin", c: Case) {
  const multiline = c.multiline ?? false;
  const caseInsensitive = c.caseInsensitive ?? false;
  const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
  // Held as grep holds it: on Linux rg's files are then read back through descriptors.
  const within = (await sandbox.directory(root)).dir;
  const search = grepQuery(root, c.pattern, {
    label: ".",
    multiline,
    caseInsensitive,
    mode: c.mode ?? "content",
    after: c.after ?? 0,
    rulesAbove: await IgnoreRules.above(sandbox, root),
    deadline: Date.now() + 20_000,
    within,
    roots: {
      contains: (real) => sandbox.contains(real),
      open: (real) => sandbox.openForReading(real),
      display: (path) => sandbox.display(path),
    },
  });
  const searcher = engine === "rg"
    ? new RipgrepEngine(rg!, () => assert.fail("no ignore file here is one rg cannot read"))
    : new BuiltinEngine();
  const found: string[] = [];
  const add = (file: FileMatches) => {
    const rel = file.path.slice(root.length + 1);
    // files_with_matches needs no count: the built-in search stops at a file's first match.
    found.push(search.mode === "files_with_matches" ? rel : `${rel} (${file.matchedLines})`);
    for (const line of file.lines) {
      found.push(`  ${line.number}${line.match ? ":" : "-"}${JSON.stringify(line.text)}`);
    }
  };
  const { stopped, unreadable } = await searcher.search(search, { add, full: false });
  await within.close();
  return { found, stopped, unreadable };
}

export const AWKWARD_CASES: Case[] = [
  { pattern: "needle", mode: "files_with_matches" },
  { pattern: "needle", mode: "count" },
  { pattern: "a.b|x.y" },
  { pattern: "a\\sb|a[^x]b|a\\Wb" },
  { pattern: "\\bb one" },
  { pattern: "two$" },
  { pattern: "caf. latte" },
  { pattern: "\\uFFFD" },
  { pattern: "bad .. end" },
  { pattern: "needle after" },
  { pattern: "before.needle" },
  { pattern: "after\\sx" },
  { pattern: "UTF-16", caseInsensitive: true },
  // Matched on raw bytes by rg (no part can match U+FFFD) ...
  { pattern: "^word" },
  { pattern: "\\bword\\b" },
  { pattern: "word$", mode: "count" },
  { pattern: "marker", mode: "files_with_matches" },
  { pattern: "marker" },
  { pattern: "\\smarker\\s" },
  { pattern: "[a-z]+ end|latte|mark$" },
  { pattern: "WORD", caseInsensitive: true },
  { pattern: "word\\nplain", multiline: true },
  { pattern: "word\\s+\\w", multiline: true },
  // ... and decoded first.
  { pattern: "caf. word" },
  { pattern: "[^a] word" },
  { pattern: "\\S marker" },
  { pattern: "word.x" },
  { pattern: "\\W word", multiline: true },
  { pattern: "one\\ntwo|three\\nfour", multiline: true },
  { pattern: "e\\n", multiline: true },
  { pattern: "o\\n?", multiline: true },
  { pattern: "(?:one|two)\\n", multiline: true },
  { pattern: "e$", multiline: true },
  { pattern: "\\n\\n", multiline: true },
  { pattern: "o\\nt|e\\nf", multiline: true, mode: "count" },
  { pattern: "b one\\nline", multiline: true },
  { pattern: "a\\rb", multiline: true },
  { pattern: "two\\r?\\nthree", multiline: true },
  { pattern: "f.*?x", multiline: true },
  { pattern: "^$\\n", multiline: true },
  { pattern: "\\n$", multiline: true },
  { pattern: "$\\n\\s", multiline: true },
  { pattern: "[^x]\\r", multiline: true },
  { pattern: "^\\n?$", multiline: true },
  { pattern: "\\n?", multiline: true, mode: "count" },
  { pattern: "e\\n", multiline: true, mode: "count" },
  { pattern: "pin\\n", multiline: true },
  { pattern: "pin\\n", multiline: true, after: 1 },
];

test("rg and the built-in search agree on every awkward case", {
  skip: !rg && "rg is not installed",
}, async () => {
  const root = awkwardTree();
  for (const c of AWKWARD_CASES) {
    const [a, b] = [await run(root, "rg", c), await run(root, "builtin", c)];
    assert.deepEqual(b, a, JSON.stringify(c));
  }
});

test("the built-in search on the awkward cases: what both engines must find", async () => {
  const root = awkwardTree();
  const files = (await run(root, "builtin", { pattern: "needle", mode: "files_with_matches" }))
    .found;
  assert.deepEqual(files, [
    "nested/inner.log",
    "secret.md",
    "separators.txt",
    "sub/important.log",
    "utf16.txt",
  ]);
  const cr = await run(root, "builtin", { pattern: "a.b|x.y" });
  assert.deepEqual(cr.found, [], "a \\r inside a line is never matched");
  const invalid = await run(root, "builtin", { pattern: "caf. latte" });
  assert.deepEqual(invalid.found, ["invalid.txt (1)", '  1:"caf\uFFFD latte"']);
  const real = await run(root, "builtin", { pattern: "\\uFFFD" });
  assert.deepEqual(real.found, [
    "bom8.txt (2)",
    '  1:"word caf\uFFFD word"',
    '  2:"\uFFFD word"',
    "invalid.txt (3)",
    '  1:"caf\uFFFD latte"',
    '  2:"real \uFFFD mark"',
    '  3:"bad \uFFFD\uFFFD end"',
    "long_invalid.txt (1)",
    `  1:${
      JSON.stringify(`${"\uFFFD".repeat(400)} marker ${"\uFFFD".repeat(92)} […315 characters]`)
    }`,
    "utf16be.txt (1)",
    '  1:"word\uFFFD x"',
  ]);
  const late = await run(root, "builtin", { pattern: "pin\\n", multiline: true });
  assert.deepEqual(late.found, ["context_nul.txt (1)", '  40001:"pin"']);
  const withNul = await run(root, "builtin", { pattern: "pin\\n", multiline: true, after: 1 });
  assert.deepEqual(withNul.found, [], "a NUL in a context line makes the file binary");
  const neighbours = await run(root, "builtin", { pattern: "^[ot]\\w*e\\n", multiline: true });
  assert.deepEqual(neighbours.found, [
    "multi.txt (2)",
    '  1:"one"',
    '  3:"three"',
  ]);
});

test("rg on raw bytes agrees with the built-in search on invalid UTF-8, for generated patterns", {
  skip: !rg && "rg is not installed",
}, async () => {
  const root = awkwardTree();
  // Patterns no part of which can match U+FFFD, so rg skips decoding for them.
  const atoms = ["a", "e", "r", "d", "\\w", "\\s", "\\d", "[a-f]", "\\b", "é", " ", "o"];
  const quantifiers = ["", "", "+", "*", "?", "{2}"];
  let seed = 7;
  const next = (n: number) => {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    return seed % n;
  };
  for (let i = 0; i < 40; i++) {
    const parts = Array.from({ length: 1 + next(4) }, () => {
      const atom = atoms[next(atoms.length)];
      return atom === "\\b" ? atom : atom + quantifiers[next(quantifiers.length)];
    });
    const pattern = (next(4) === 0 ? "^" : "") + parts.join("") + (next(4) === 0 ? "$" : "");
    assert.equal(mayMatchReplacement(pattern), false, pattern);
    const c: Case = {
      pattern,
      caseInsensitive: next(3) === 0,
      mode: next(2) ? "count" : "content",
    };
    const [a, b] = [await run(root, "rg", c), await run(root, "builtin", c)];
    assert.deepEqual(b, a, JSON.stringify(c));
  }
});

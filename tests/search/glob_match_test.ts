/** globMatcher answers exactly as picomatch's own matcher does, on awkward patterns and paths. */
import assert from "node:assert/strict";
import { test } from "node:test";
import picomatch from "picomatch";
import { globMatcher } from "../../tools/search/_lib/glob_match.ts";

/** A path's last segment, as the walk hands it over beside the path. */
const nameOf = (path: string) => path.slice(path.lastIndexOf("/") + 1);

const PATTERNS = [
  "**/*.ts",
  "*.ts",
  "**/*ts",
  "*.test.ts",
  "**/*.d.ts",
  "**/*-b.md",
  "**/*_y.test.ts",
  "**/*.",
  "*a",
  "**/*.TS",
  "src/**/*.test.ts",
  "src/**/*.{js,jsx}",
  "**",
  "*",
  "a/b.txt",
  "[ab]*.md",
  "**/.env*",
  "?.js",
  "**/node_modules/**",
  "a/**/b/**/c",
  "!(*.md)",
  "+(a|b).txt",
  "*.{ts,md",
  "dir with space/*.txt",
  "**/[[]draft]*",
  "{a,b/**/c}.ts",
];

const PATHS = [
  "a.ts",
  ".ts",
  ".hidden.ts",
  "src/a.ts",
  "src/x/y/z.test.ts",
  "src/x.jsx",
  "a/b.txt",
  "a/x/b/y/c",
  "a/b/c",
  "b.md",
  "ab.md",
  "x/.env.local",
  ".env",
  "a.js",
  "node_modules/p/i.js",
  "x/node_modules/q",
  "README.md",
  "a.txt",
  "b.txt",
  "c.txt",
  "*.{ts,md",
  "dir with space/f.txt",
  "d/[draft]notes",
  "a.ts/b",
  "b/x/c.ts",
  "é/ü.ts",
  "a\\b.ts",
];

test("globMatcher agrees with picomatch(pattern, { dot: true }) on every pair", () => {
  for (const pattern of PATTERNS) {
    const theirs = picomatch(pattern, { dot: true });
    const ours = globMatcher(pattern);
    for (const path of [...PATHS, pattern]) {
      assert.equal(
        ours(path, nameOf(path)),
        theirs(path),
        `${JSON.stringify(pattern)} on ${JSON.stringify(path)}`,
      );
    }
  }
});

/** Paths a walk could make from these names, up to three deep. */
function walkPaths(): string[] {
  const names = [
    "a",
    ".a",
    "a.ts",
    ".ts",
    "ts",
    "a-b.md",
    "x_y.test.ts",
    "é.ts",
    "b.tsx",
    "a.",
    "A.TS",
    "c.d.ts",
  ];
  const paths = [...names];
  for (const first of names) {
    for (const second of names) {
      paths.push(`${first}/${second}`);
      for (const third of names.slice(0, 6)) paths.push(`${first}/${second}/${third}`);
    }
  }
  return paths;
}

test("globMatcher agrees with picomatch on every path a walk could make from awkward names", () => {
  const paths = walkPaths();
  for (const pattern of PATTERNS) {
    const theirs = picomatch(pattern, { dot: true });
    const ours = globMatcher(pattern);
    const differ = paths.filter((path) => ours(path, nameOf(path)) !== theirs(path));
    assert.deepEqual(differ, [], JSON.stringify(pattern));
  }
});

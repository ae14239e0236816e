/**
 * glob, grep and list_dir through the compiled binary, in a temporary root with a .gitignore,
 * node_modules, .git, binary files and symlinks: main paths, errors, caps, sandbox escapes, and
 * grep giving the same answers with rg and with its own search.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, symlinkSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { modern, PRODUCT_BINARY, RawClient, ROOT } from "../helpers/raw_client.ts";
import { posixOnlyTest } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const test = posixOnlyTest(
  "the fixture links to /etc, makes FIFOs, links /dev/zero and compares with rg",
);

const rgMissing = findRipgrep() === undefined;
/** Whether the binary under test finds an rg beside itself (a release's does). */
const rgBesideBinary = existsSync(join(dirname(PRODUCT_BINARY), "rg"));

const e2e = e2eFixture();

/** Starts the binary allowed only `root`, with `env` set (or, when undefined, unset) for it. */
function start(root: string, env: Record<string, string | undefined> = {}): RawClient {
  const saved = Object.fromEntries(Object.keys(env).map((key) => [key, process.env[key]]));
  const apply = (values: Record<string, string | undefined>) => {
    for (const [key, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  };
  apply(env);
  try {
    const c = e2e.server({ args: ["--root", root] });
    return c;
  } finally {
    apply(saved);
  }
}

/** The listing part of a result: everything before the bracketed notes. */
const body = (text: string) => text.replace(/\n*(\[[^\n]*\]\n?)+$/, "");
const lines = (text: string) => body(text).split("\n").filter(Boolean);

/** A PNG's signature and the start of its IHDR chunk (whose length brings NUL bytes). */
const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44, 0x52];

/**
 * A root (top/app) with ignored and binary files, symlinks out of it, and a sibling sharing
 * its prefix (top/app2) that holds a match of its own. edge/ holds the awkward cases for
 * comparing rg with the built-in search (they say "pin", not "needle").
 */
function fixture() {
  const top = e2e.scratch("search");
  const root = join(top, "app");
  const sibling = `${root}2`;
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\nbuild/\n/secret.txt\n!keep.log\nPINNED.md\n",
    "README.md": "# Demo\nThe needle is here.\n",
    "secret.txt": "needle (ignored)\n",
    "app.log": "needle in a log\n",
    "keep.log": "needle kept\n",
    "build/out.js": "needle built\n",
    "node_modules/pkg/index.js": "needle dep\n",
    ".git/config": "needle git\n",
    ".github/ci.yml": "run: needle\n",
    "src/main.ts": "import { util } from './util.ts';\n\nexport function main() {\n" +
      "  const needle = util(1);\n  return needle;\n}\n// Needle in caps\n",
    "src/util.ts": "export function util(n: number) {\n  return n + 1;\n}\n",
    "src/deep/nested/leaf.ts": "export const needle = 'leaf';\n",
    "src/.gitignore": "generated/\n",
    "src/generated/gen.ts": "export const needle = 'generated';\n",
    "data/image.png": new Uint8Array([...PNG, ...new TextEncoder().encode("needle")]),
    "data/blob.bin": "needle\0binary\n",
    "docs/crlf.txt": "needle one\r\nline two\r\n",
    "docs/multi.txt": "begin\nfoo\nbar\nend\n",
    "docs/unicode.txt": "café needle\nnaïve\tNEEDLE\n",
    "edge/separators.txt": "left\u2028pin right\u2029x\n",
    "edge/latin1.txt": Uint8Array.from("caf\xe9 pin\n", (c) => c.charCodeAt(0)),
    "edge/cr.txt": "a\rb pin\nline two\r\n",
    "edge/blank.txt": "x\n\ny\n\n\nz",
    "edge/crlf_blank.txt": "a\r\nb\r\n\r\nc\r\n",
    "edge/backtrack.txt": `${"a".repeat(40)}!ab\n`,
    "edge/late_nul.bin": `${"pin\n".repeat(5_000)}\0\n`,
    "edge/nested/.git/HEAD": "ref: refs/heads/main\n",
    "edge/nested/pin.log": "pin in a nested repository, where the outer *.log rule stops\n",
    "edge/pinned.md": "pin: the rule PINNED.md differs in case, so this file is not ignored\n",
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  mkdirSync(sibling);
  writeFileSync(join(sibling, "secret.txt"), "needle next door\n");
  symlinkSync("/etc", join(root, "etc-link"));
  symlinkSync(join(root, "src"), join(root, "src-link"));
  symlinkSync(sibling, join(root, "sibling-link"));
  const day = 86_400;
  const now = Date.now() / 1000;
  utimesSync(join(root, "src/main.ts"), now, now);
  utimesSync(join(root, "src/util.ts"), now - day, now - day);
  utimesSync(join(root, "src/deep/nested/leaf.ts"), now - 2 * day, now - 2 * day);
  return { top, root, sibling };
}

async function refused(c: RawClient, name: string, args: Record<string, unknown>) {
  const { result, text } = await callTool(c, name, args);
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${text}`);
  assert.match(text, /outside the allowed roots/, `${name} ${JSON.stringify(args)}`);
}

test("glob finds files newest first, skips ignored ones unless asked, and hints at **/", async () => {
  const { root } = fixture();
  const c = start(root);
  const ts = await callTool(c, "glob", { pattern: "**/*.ts" });
  assert.deepEqual(lines(ts.text), ["src/main.ts", "src/util.ts", "src/deep/nested/leaf.ts"]);
  assert.deepEqual(ts.data, { paths: lines(ts.text), total: 3, stoppedEarly: null });
  assert.match(ts.text, /\[3 files under \. match "\*\*\/\*\.ts", newest first\]$/);
  const js = await callTool(c, "glob", { pattern: "**/*.js" });
  assert.equal(js.data.total, 0);
  const all = await callTool(c, "glob", { pattern: "**/*.{js,ts}", include_ignored: true });
  assert.deepEqual((all.data.paths as string[]).toSorted(), [
    "build/out.js",
    "node_modules/pkg/index.js",
    "src/deep/nested/leaf.ts",
    "src/generated/gen.ts",
    "src/main.ts",
    "src/util.ts",
  ]);
  const top = await callTool(c, "glob", { pattern: "*.ts" });
  assert.match(
    top.text,
    /no files under \. match "\*\.ts"; to match at any depth use "\*\*\/\*\.ts"/,
  );
  const inSrc = await callTool(c, "glob", { pattern: "*.ts", path: "src" });
  assert.deepEqual(lines(inSrc.text), ["src/main.ts", "src/util.ts"]);
  const dotfiles = await callTool(c, "glob", { pattern: "**/*.yml" });
  assert.deepEqual(lines(dotfiles.text), [".github/ci.yml"]);
});

test("glob lists symlinks but never follows them, and refuses paths out of the root", async () => {
  const { top, root } = fixture();
  const c = start(root);
  const everything = await callTool(c, "glob", { pattern: "**" });
  const paths = everything.data.paths as string[];
  assert.ok(paths.includes("etc-link") && paths.includes("src-link"), paths.join(" "));
  assert.deepEqual(paths.filter((p) => /^(etc|src|sibling)-link\//.test(p)), []);
  await refused(c, "glob", { pattern: "*", path: "../app2" });
  await refused(c, "glob", { pattern: "*", path: join(top, "app2") });
  await refused(c, "glob", { pattern: "*", path: "etc-link" });
  const upward = await callTool(c, "glob", { pattern: "../app2/*" });
  assert.equal(upward.result.isError, true);
  assert.match(upward.text, /must be relative to path, without "\.\."/);
  const file = await callTool(c, "glob", { pattern: "*", path: "README.md" });
  assert.equal(file.result.isError, true);
  assert.match(file.text, /"README.md" is not a directory/);
});

test("list_dir shows a tree: directories first, sizes, links, ignored directories closed", async () => {
  const { root } = fixture();
  const c = start(root);
  const tree = await callTool(c, "list_dir", {});
  const shown = lines(tree.text);
  assert.equal(shown[0], "./");
  for (
    const expected of [
      "  .git/  (not listed)",
      "  build/  (gitignored, not listed)",
      "  node_modules/  (not listed)",
      "  src/",
      "    deep/",
      "    main.ts  123 bytes",
      "  app.log  16 bytes  (gitignored)",
      "  etc-link -> /etc",
      `  sibling-link -> ${root}2`,
    ]
  ) assert.ok(shown.includes(expected), `${expected}\n${tree.text}`);
  assert.ok(shown.indexOf("  src/") < shown.indexOf("  README.md  27 bytes"));
  assert.ok(!shown.some((line) => line.startsWith("      ")), "depth 2 by default");
  const entries = tree.data.entries as { path: string; type: string }[];
  assert.deepEqual(entries.find((e) => e.path === "src/main.ts"), {
    path: "src/main.ts",
    type: "file",
    size: 123,
  });
  assert.equal(tree.data.complete, true);
  const shallow = await callTool(c, "list_dir", { path: "src", depth: 1 });
  assert.deepEqual(lines(shallow.text), [
    "src/",
    "  deep/",
    "  generated/  (gitignored, not listed)",
    "  .gitignore  11 bytes",
    "  main.ts  123 bytes",
    "  util.ts  52 bytes",
  ]);
  const opened = await callTool(c, "list_dir", { path: "node_modules", include_ignored: true });
  assert.deepEqual(lines(opened.text), ["node_modules/", "  pkg/", "    index.js  11 bytes"]);
});

test("list_dir caps each directory and says how much it left out; errors are clear", async () => {
  const { top, root } = fixture();
  mkdirSync(join(root, "many"));
  for (let i = 0; i < 150; i++) {
    writeFileSync(join(root, "many", `f${String(i).padStart(3, "0")}`), "");
  }
  const c = start(root);
  const many = await callTool(c, "list_dir", { path: "many" });
  assert.equal(lines(many.text).length, 1 + 100 + 1);
  assert.match(many.text, /\n {2}\.\.\. and 50 more\n/);
  assert.match(
    many.text,
    /\[not listed: 50 more entries \(at most 100 per directory\)\. List a subdirectory/,
  );
  assert.equal(many.data.complete, false);
  const file = await callTool(c, "list_dir", { path: "README.md" });
  assert.equal(file.result.isError, true);
  assert.match(file.text, /is a file, not a directory/);
  const missing = await callTool(c, "list_dir", { path: "nope" });
  assert.match(missing.text, /"nope" does not exist/);
  await refused(c, "list_dir", { path: "../app2" });
  await refused(c, "list_dir", { path: join(top, "app2") });
  await refused(c, "list_dir", { path: "etc-link" });
  await refused(c, "list_dir", { path: "sibling-link" });
});

test("list_dir and glob stop at 1,000 entries and say what they left out", async () => {
  const { root } = fixture();
  for (let d = 0; d < 12; d++) {
    mkdirSync(join(root, "big", `d${String(d).padStart(2, "0")}`), { recursive: true });
    for (let f = 0; f < 100; f++) {
      writeFileSync(join(root, "big", `d${String(d).padStart(2, "0")}`, `f${f}`), "");
    }
  }
  const c = start(root);
  const tree = await callTool(c, "list_dir", { path: "big" });
  assert.equal((tree.data.entries as unknown[]).length, 1_000);
  assert.equal(tree.data.complete, false);
  assert.match(
    tree.text,
    /\n {2}d10\/ {2}\(not listed: limit reached\)\n {2}d11\/ {2}\(not listed: limit reached\)\n/,
  );
  assert.match(tree.text, /\n {4}\.\.\. and 12 more\n/);
  assert.match(
    tree.text,
    /\[not listed: 12 more entries \(at most 100 per directory\); directories past the first 1,000 entries\. List a subdirectory or use a smaller depth\]$/,
  );
  const found = await callTool(c, "glob", { pattern: "big/**" });
  assert.equal((found.data.paths as string[]).length, 1_000);
  assert.equal(found.data.total, 1_200);
  assert.match(
    found.text,
    /\[200 more not shown \(at most 1,000 paths or 30,000 characters\): use a narrower pattern or path\]$/,
  );
});

test("grep lists matching files by path, honouring .gitignore and skipping binary files", async () => {
  const { root } = fixture();
  const c = start(root);
  const found = await callTool(c, "grep", { pattern: "needle" });
  assert.deepEqual(lines(found.text), [
    ".github/ci.yml",
    "README.md",
    "docs/crlf.txt",
    "docs/unicode.txt",
    "keep.log",
    "src/deep/nested/leaf.ts",
    "src/main.ts",
  ]);
  assert.deepEqual(found.data, {
    mode: "files_with_matches",
    files: 7,
    lines: null,
    shown: 7,
    omitted: 0,
    stoppedEarly: null,
  });
  const binary = await callTool(c, "grep", { pattern: "needle", path: "data/image.png" });
  assert.equal(binary.result.isError, true);
  assert.match(binary.text, /data\/image\.png is a binary file \(PNG image\)/);
  const none = await callTool(c, "grep", { pattern: "needle", path: "data" });
  assert.equal(none.text, "[no matches under data]");
  const named = await callTool(c, "grep", { pattern: "needle", path: "secret.txt" });
  assert.deepEqual(lines(named.text), ["secret.txt"], "a file named on purpose is searched");
});

test("grep content and count modes, context, case, glob and multiline", async () => {
  const { root } = fixture();
  const c = start(root);
  const context = await callTool(c, "grep", {
    pattern: "const needle",
    path: "src",
    output_mode: "content",
    before: 1,
    after: 1,
  });
  assert.deepEqual(lines(context.text), [
    "src/deep/nested/leaf.ts:1:export const needle = 'leaf';",
    "--",
    "src/main.ts-3-export function main() {",
    "src/main.ts:4:  const needle = util(1);",
    "src/main.ts-5-  return needle;",
  ]);
  const counted = await callTool(c, "grep", {
    pattern: "needle",
    case_insensitive: true,
    output_mode: "count",
    glob: "*.ts",
  });
  assert.deepEqual(lines(counted.text), ["src/deep/nested/leaf.ts:1", "src/main.ts:3"]);
  assert.equal(counted.data.lines, 4);
  const spanning = await callTool(c, "grep", {
    pattern: "foo\\nbar",
    multiline: true,
    output_mode: "content",
  });
  assert.deepEqual(lines(spanning.text), ["docs/multi.txt:2:foo", "docs/multi.txt:3:bar"]);
  const crlf = await callTool(c, "grep", { pattern: "one$", output_mode: "content" });
  assert.deepEqual(lines(crlf.text), ["docs/crlf.txt:1:needle one"]);
  const limited = await callTool(c, "grep", {
    pattern: "e",
    output_mode: "content",
    head_limit: 3,
  });
  assert.equal(lines(limited.text).length, 3);
  assert.match(limited.text, /more lines not shown \(head_limit reached, 3 shown\)/);
});

test("grep output stops near 30,000 characters and says how to narrow the search", async () => {
  const { root } = fixture();
  const big = Array.from({ length: 5_000 }, (_, i) => `needle number ${i}`).join("\n");
  writeFileSync(join(root, "big.txt"), big);
  writeFileSync(join(root, "minified.js"), `${"x".repeat(50_000)}needle${"y".repeat(50_000)}`);
  const c = start(root);
  const capped = await callTool(c, "grep", { pattern: "needle", output_mode: "content" });
  assert.ok(body(capped.text).length <= 30_000, `${body(capped.text).length}`);
  assert.match(
    capped.text,
    /\[\d[\d,]* more lines not shown \(output limit reached, [\d,]+ shown\); narrow the search with path, glob or a more specific pattern, or use output_mode "files_with_matches" or "count"\]/,
  );
  const minified = await callTool(c, "grep", {
    pattern: "needle",
    path: "minified.js",
    output_mode: "content",
  });
  assert.match(
    minified.text,
    /^minified\.js:1:\[…49,900 characters\] x{100}needley{394} \[…49,606 characters\]/,
  );
});

test("grep errors: bad patterns, missing paths, and every way out of the root", async () => {
  const { top, root } = fixture();
  const c = start(root);
  const invalid = await callTool(c, "grep", { pattern: "needle(" });
  assert.equal(invalid.result.isError, true);
  assert.match(invalid.text, /pattern "needle\(" is not a valid regular expression/);
  const lookbehind = await callTool(c, "grep", { pattern: "(?<=const )needle" });
  assert.equal(lookbehind.result.isError, true);
  assert.match(lookbehind.text, /lookahead or lookbehind, which rg's engine does not have/);
  const missing = await callTool(c, "grep", { pattern: "x", path: "nope" });
  assert.match(missing.text, /"nope" does not exist/);
  await refused(c, "grep", { pattern: "needle", path: "../app2" });
  await refused(c, "grep", { pattern: "needle", path: join(top, "app2") });
  await refused(c, "grep", { pattern: "root", path: "etc-link" });
  const noLeak = await callTool(c, "grep", { pattern: "root|needle next door" });
  assert.ok(!/etc-link|sibling-link|passwd/.test(noLeak.text), noLeak.text);
});

const NEEDLES = [
  ".github/ci.yml",
  "README.md",
  "docs/crlf.txt",
  "docs/unicode.txt",
  "keep.log",
  "src/deep/nested/leaf.ts",
  "src/main.ts",
];

/** Each case and what both searches must answer: the paths in the output, or an error. */
const COMPARED: [Record<string, unknown>, string[] | RegExp][] = [
  [{ pattern: "needle" }, NEEDLES],
  [{ pattern: "needle", output_mode: "content", before: 2, after: 1 }, NEEDLES],
  [{ pattern: "NEEDLE", case_insensitive: true, output_mode: "count" }, NEEDLES],
  [{ pattern: "\\bneedle\\b", output_mode: "content" }, NEEDLES],
  [
    { pattern: "^\\s*(export|import)\\b", output_mode: "content", glob: "src/**/*.ts" },
    ["src/deep/nested/leaf.ts", "src/main.ts", "src/util.ts"],
  ],
  [{ pattern: "needle", glob: "src/*.ts" }, ["src/main.ts"]],
  [{ pattern: "needle", glob: "!src/**" }, NEEDLES.filter((p) => !p.startsWith("src/"))],
  [{ pattern: "needle", glob: "!*.ts" }, NEEDLES.filter((p) => !p.endsWith(".ts"))],
  [{ pattern: "one$|two$", output_mode: "content" }, ["docs/crlf.txt", "edge/cr.txt"]],
  [{ pattern: "caf\\u00e9|na\\u00efve\\s", output_mode: "content" }, ["docs/unicode.txt"]],
  [
    { pattern: "foo\\nbar\\n", multiline: true, output_mode: "content", after: 1 },
    ["docs/multi.txt"],
  ],
  [{ pattern: "begin.*end", multiline: true, output_mode: "count" }, ["docs/multi.txt"]],
  [
    { pattern: "[aeiou]{2}", output_mode: "content", head_limit: 4 },
    [".github/ci.yml", ".gitignore", "README.md"],
  ],
  [{ pattern: "needle", path: "src", output_mode: "content" }, NEEDLES.slice(-2)],
  [{ pattern: "needle", path: "docs/crlf.txt", output_mode: "content" }, ["docs/crlf.txt"]],
  [{ pattern: "return needle;$", path: "src-link", output_mode: "content" }, ["src/main.ts"]],
  [{ pattern: "needle(" }, /is not a valid regular expression/],
  // U+2028 and U+2029 inside a line, which a readline split would cut.
  [{ pattern: "pin right", output_mode: "content" }, ["edge/separators.txt"]],
  // Invalid UTF-8 is matched as U+FFFD by both.
  [{ pattern: "caf. pin", output_mode: "content" }, ["edge/latin1.txt"]],
  // A \r inside a line is matched by nothing; a \r in the pattern is refused alike.
  [{ pattern: "a.b pin|a\\sb|a[^x]b" }, []],
  [{ pattern: "b\\r" }, /matches a carriage return/],
  // A NUL byte past the first 8 KB of a file named in path: refused, match or not.
  [{ pattern: "pin", path: "edge/late_nul.bin" }, /late_nul\.bin is a binary file \(text with NUL/],
  [{ pattern: "nothing", path: "edge/late_nul.bin" }, /late_nul\.bin is a binary file \(text with/],
  // A nested repository stops the outer *.log rule; rules match case-sensitively.
  [
    { pattern: "pin", output_mode: "count" },
    [
      "edge/cr.txt",
      "edge/latin1.txt",
      "edge/nested/pin.log",
      "edge/pinned.md",
      "edge/separators.txt",
    ],
  ],
  // Multiline matches of neighbouring lines and of CRLF line ends.
  [
    { pattern: "^$\\n", multiline: true, output_mode: "content", path: "edge" },
    ["edge/blank.txt", "edge/crlf_blank.txt"],
  ],
  [
    { pattern: "\\n$", multiline: true, output_mode: "content", path: "edge/crlf_blank.txt" },
    ["edge/crlf_blank.txt"],
  ],
  [
    { pattern: "$\\n\\s", multiline: true, output_mode: "content", path: "edge" },
    ["edge/blank.txt", "edge/crlf_blank.txt"],
  ],
  [
    { pattern: "\\n?", multiline: true, output_mode: "count", path: "edge/blank.txt" },
    ["edge/blank.txt"],
  ],
];

/** One answer, as compared between the two searches. */
async function answer(c: RawClient, args: Record<string, unknown>) {
  const { result, text, data } = await callTool(c, "grep", args);
  return { isError: result.isError ?? false, text, data };
}

/** The paths an answer names, in order, once each. */
function pathsIn(text: string, mode = "files_with_matches"): string[] {
  const paths = lines(text).filter((line) => line !== "--").map((line) =>
    mode === "content"
      ? /^(.+?)[:-]\d+[:-]/.exec(line)![1]
      : mode === "count"
      ? line.replace(/:\d+$/, "")
      : line
  );
  return [...new Set(paths)];
}

test("grep gives the same answers with rg and with its own search", {
  skip: rgMissing && "rg is not installed",
}, async () => {
  const { root } = fixture();
  const withRg = start(root, { TOOLHOST_GREP: "rg" });
  const builtin = start(root, { TOOLHOST_GREP: "builtin" });
  for (const [args, expected] of COMPARED) {
    const [a, b] = [await answer(withRg, args), await answer(builtin, args)];
    assert.deepEqual(a, b, JSON.stringify(args));
    if (expected instanceof RegExp) {
      assert.equal(a.isError, true, JSON.stringify(args));
      assert.match(a.text, expected, JSON.stringify(args));
    } else {
      assert.equal(a.isError, false, `${JSON.stringify(args)}: ${a.text}`);
      const mode = (args.output_mode as string | undefined) ?? "files_with_matches";
      assert.deepEqual(pathsIn(a.text, mode), expected, JSON.stringify(args));
    }
  }
  const separators = await answer(withRg, { pattern: "pin right", output_mode: "content" });
  assert.equal(lines(separators.text)[0], "edge/separators.txt:1:left\u2028pin right\u2029x");
  const latin1 = await answer(withRg, { pattern: "caf. pin", output_mode: "content" });
  assert.equal(lines(latin1.text)[0], "edge/latin1.txt:1:caf\uFFFD pin");
  // And over this repository's own sources: real code, nested .gitignore files, many files.
  const repoRg = start(ROOT, { TOOLHOST_GREP: "rg" });
  const repoBuiltin = start(ROOT, { TOOLHOST_GREP: "builtin" });
  const onRepo: Record<string, unknown>[] = [
    { pattern: "defineTool\\(", output_mode: "count" },
    { pattern: "^export (async )?function \\w+", output_mode: "content", path: "tools" },
    {
      pattern: "signal",
      case_insensitive: true,
      glob: "*.ts",
      path: "mcp",
      output_mode: "content",
      after: 2,
    },
    { pattern: "\\}\\);\\n\\ntest\\(", multiline: true, path: "tests", output_mode: "count" },
    { pattern: "version", path: "node_modules/ignore", output_mode: "content" },
  ];
  for (const args of onRepo) {
    const [a, b] = [await answer(repoRg, args), await answer(repoBuiltin, args)];
    assert.deepEqual(a, b, JSON.stringify(args));
    assert.equal(a.isError, false, a.text);
  }
});

test("without any rg grep uses its own search; TOOLHOST_GREP=rg then says rg is missing", async () => {
  const { root } = fixture();
  const auto = start(root, { PATH: "/nonexistent", TOOLHOST_GREP: undefined });
  const builtin = start(root, { TOOLHOST_GREP: "builtin" });
  for (const [args] of COMPARED.slice(0, 4)) {
    assert.deepEqual(await answer(auto, args), await answer(builtin, args), JSON.stringify(args));
  }
  const forced = start(root, { PATH: "/nonexistent", TOOLHOST_GREP: "rg" });
  const failed = await callTool(forced, "grep", { pattern: "needle" });
  // A release's binary has its own rg beside it, which is used then.
  if (rgBesideBinary) return assert.equal(failed.result.isError, undefined, failed.text);
  assert.equal(failed.result.isError, true);
  assert.match(
    failed.text,
    /TOOLHOST_GREP=rg is set but there is no rg on PATH or beside toolhost/,
  );
});

test("glob, grep and list_dir are read-only and closed-world", async () => {
  const c = start(fixture().root);
  const list = await c.request("tools/list", modern());
  const tools = list.result?.tools as { name: string; annotations: Record<string, boolean> }[];
  for (const name of ["glob", "grep", "list_dir"]) {
    const { readOnlyHint, destructiveHint, openWorldHint } = tools.find((t) => t.name === name)!
      .annotations;
    assert.deepEqual({ readOnlyHint, destructiveHint, openWorldHint }, {
      readOnlyHint: true,
      destructiveHint: false,
      openWorldHint: false,
    }, name);
  }
});

test("glob returns only regular files and links; a nested repository and case count in rules", async () => {
  const { root } = fixture();
  execFileSync("mkfifo", [join(root, "edge/pipe")]);
  const c = start(root);
  const edge = await callTool(c, "glob", { pattern: "edge/*" });
  const paths = edge.data.paths as string[];
  assert.ok(paths.includes("edge/cr.txt") && !paths.includes("edge/pipe"), paths.join(" "));
  const logs = await callTool(c, "glob", { pattern: "**/*.log" });
  assert.deepEqual((logs.data.paths as string[]).toSorted(), ["edge/nested/pin.log", "keep.log"]);
  const md = await callTool(c, "glob", { pattern: "**/*.md" });
  assert.ok((md.data.paths as string[]).includes("edge/pinned.md"), md.text);
  const listed = await callTool(c, "list_dir", { path: "edge" });
  const entries = listed.data.entries as { path: string; type: string }[];
  assert.equal(entries.find((e) => e.path === "edge/pipe")?.type, "other");
  assert.equal(entries.find((e) => e.path === "edge/nested")?.type, "directory");
});

test("list_dir caps its structured entries as its text: long deep paths cannot swell the reply", async () => {
  const root = e2e.scratch("deep");
  let dir = root;
  for (let d = 0; d < 9; d++) {
    dir = join(dir, String.fromCharCode(97 + d).repeat(200));
    mkdirSync(dir);
  }
  for (let f = 0; f < 100; f++) {
    writeFileSync(join(dir, `${String(f).padStart(3, "0")}${"f".repeat(197)}`), "");
  }
  const c = start(root);
  const tree = await callTool(c, "list_dir", { depth: 10 });
  const size = JSON.stringify(tree.data).length;
  assert.ok(size <= 61_000, `structuredContent is ${size} characters`);
  assert.equal(tree.data.complete, false);
  assert.match(
    tree.text,
    /lines past 60,000 characters of structured entries\. List a subdirectory/,
  );
  const entries = tree.data.entries as unknown[];
  const shown = lines(tree.text).slice(1).filter((line) => !line.trim().startsWith("..."));
  assert.equal(entries.length, shown.length, "the text and the entries stop at the same line");
});

test("ignore files that are FIFOs, devices, links out of the roots or over 1 MB are skipped, with a note", async () => {
  const top = e2e.scratch("ignores");
  const root = join(top, "app");
  for (
    const [path, content] of Object.entries({
      "big/d.txt": "pin",
      "fifo/a.txt": "pin",
      "inside/f.txt": "pin",
      "inside/g.txt": "pin",
      "outside/c.txt": "pin",
      "zero/b.txt": "pin",
      "rules.txt": "f.txt\n",
    })
  ) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  execFileSync("mkfifo", [join(root, "fifo/.gitignore")]);
  symlinkSync("/dev/zero", join(root, "zero/.gitignore"));
  writeFileSync(join(top, "rules"), "c.txt\n");
  symlinkSync(join(top, "rules"), join(root, "outside/.gitignore"));
  symlinkSync(join(root, "rules.txt"), join(root, "inside/.gitignore"));
  mkdirSync(join(root, "linked"));
  execFileSync("mkfifo", [join(root, "pipe")]);
  symlinkSync(join(root, "pipe"), join(root, "linked/.gitignore"));
  writeFileSync(join(root, "big/.gitignore"), `d.txt\n${"#".repeat(2 * 1024 * 1024)}\n`);
  const c = start(root, { TOOLHOST_GREP: "builtin" });
  const note = new RegExp(
    "\\[ignore files not read, so their rules were not applied: " +
      "big/\\.gitignore is 2\\.0 MB, over the 1\\.0 MB limit for ignore files; " +
      "fifo/\\.gitignore is a FIFO \\(named pipe\\), not a regular file; " +
      "linked/\\.gitignore is a FIFO \\(named pipe\\), not a regular file; " +
      `outside/\\.gitignore is a symbolic link to ${top}/rules, outside the allowed roots; ` +
      "zero/\\.gitignore is a symbolic link to /dev/zero, outside the allowed roots\\]",
  );
  const globbed = await callTool(c, "glob", { pattern: "**/*.txt" }, { timeoutMs: 10_000 });
  assert.deepEqual((globbed.data.paths as string[]).toSorted(), [
    "big/d.txt",
    "fifo/a.txt",
    "inside/g.txt",
    "outside/c.txt",
    "rules.txt",
    "zero/b.txt",
  ]);
  assert.match(globbed.text, note);
  const listed = await callTool(c, "list_dir", { depth: 3 }, { timeoutMs: 10_000 });
  assert.match(listed.text, note);
  assert.match(listed.text, /f\.txt {2}3 bytes {2}\(gitignored\)/);
  const grepped = await callTool(c, "grep", { pattern: "pin" }, { timeoutMs: 10_000 });
  assert.deepEqual(lines(grepped.text), [
    "big/d.txt",
    "fifo/a.txt",
    "inside/g.txt",
    "outside/c.txt",
    "zero/b.txt",
  ]);
  assert.match(grepped.text, note);
  if (rgMissing) return;
  // rg would wait on the FIFOs until the time limit (and read /dev/zero for ever): with rg
  // installed, grep answers as promptly, and as the built-in search does.
  const withRg = start(root, { TOOLHOST_GREP: "rg" });
  for (const mode of ["files_with_matches", "count"]) {
    const started = Date.now();
    const found = await callTool(withRg, "grep", { pattern: "pin", output_mode: mode }, {
      timeoutMs: 10_000,
    });
    // Waiting on the FIFOs would last until the call's 10 s limit: 8 s tells the two apart.
    assert.ok(Date.now() - started < 8_000, `grep took ${Date.now() - started} ms`);
    assert.equal(found.result.isError, undefined, found.text);
    const expected = ["big/d.txt", "fifo/a.txt", "inside/g.txt", "outside/c.txt", "zero/b.txt"];
    assert.deepEqual(
      lines(found.text),
      mode === "count" ? expected.map((p) => `${p}:1`) : expected,
    );
    assert.match(found.text, note);
  }
  // A pattern only rg may run is refused with the reason rg was not used.
  const slow = await callTool(withRg, "grep", { pattern: "(a+)+$" }, { timeoutMs: 10_000 });
  assert.equal(slow.result.isError, true);
  assert.match(
    slow.text,
    /used instead of rg here, as rg would hang on or misread the ignore file big\/\.gitignore, which is 2\.0 MB/,
  );
  // Below a directory without odd ignore files, rg runs as usual.
  const plain = await callTool(withRg, "grep", { pattern: "(p+)+in", path: "inside" }, {
    timeoutMs: 10_000,
  });
  assert.deepEqual(lines(plain.text), ["inside/g.txt"]);
});

test("without rg, grep refuses patterns that can backtrack for ever; rg runs them, in one file too", async () => {
  const { root } = fixture();
  const builtin = start(root, { TOOLHOST_GREP: "builtin" });
  for (const pattern of ["(a|a)*!ab", "(a+)+!ab"]) {
    for (const path of ["edge", "edge/backtrack.txt"]) {
      const refused = await callTool(builtin, "grep", { pattern, path });
      assert.equal(refused.result.isError, true, `${pattern} in ${path}`);
      assert.match(
        refused.text,
        /repeats a group .*, which can take grep's built-in search \(used when there is no rg\) exponential time\. .*or install ripgrep/,
      );
    }
  }
  const simple = await callTool(builtin, "grep", {
    pattern: "(!a|b)+",
    path: "edge/backtrack.txt",
  });
  assert.equal(simple.result.isError, undefined, simple.text);
  if (rgMissing) return;
  const withRg = start(root);
  const expected = [`edge/backtrack.txt:1:${"a".repeat(40)}!ab`];
  for (const path of ["edge", "edge/backtrack.txt"]) {
    const found = await callTool(withRg, "grep", {
      pattern: "(a|a)*!ab",
      path,
      output_mode: "content",
    });
    assert.deepEqual(lines(found.text), expected, path);
  }
});

/** A directory holding a fake `rg` that prints `stdout` and exits with `code`. */
function fakeRipgrep(stdout: string, code: number, stderr = ""): string {
  const dir = e2e.scratch("fake-rg");
  const script =
    `#!/bin/sh\ncat <<'EOF'\n${stdout}EOF\nprintf '%s' '${stderr}' >&2\nexit ${code}\n`;
  writeFileSync(join(dir, "rg"), script);
  chmodSync(join(dir, "rg"), 0o755);
  return dir;
}

test("an rg that crashes gives an error, not a complete-looking answer", async () => {
  const { root } = fixture();
  const path = (dir: string) => `${dir}:${process.env.PATH}`;
  const begin = '{"type":"begin","data":{"path":{"text":"./README.md"}}}\n';
  const crashed = start(root, {
    PATH: path(fakeRipgrep(begin, 101, "thread main panicked")),
    TOOLHOST_GREP: undefined,
  });
  const failed = await callTool(crashed, "grep", { pattern: "needle" });
  assert.equal(failed.result.isError, true, failed.text);
  assert.match(
    failed.text,
    /^rg failed with exit code 101: thread main panicked\. Its results would be incomplete/,
  );
  const match =
    '{"type":"match","data":{"path":{"text":"./README.md"},"lines":{"text":"The needle is here.\\n"},' +
    '"line_number":2,"absolute_offset":7,"submatches":[{"match":{"text":"needle"},"start":4,"end":10}]}}\n';
  const end =
    '{"type":"end","data":{"path":{"text":"./README.md"},"binary_offset":null,"stats":{}}}\n';
  const quiet = start(root, {
    PATH: path(fakeRipgrep(begin + match + end, 2)),
    TOOLHOST_GREP: undefined,
  });
  const partial = await callTool(quiet, "grep", { pattern: "needle" });
  assert.equal(partial.result.isError, undefined, partial.text);
  assert.deepEqual(lines(partial.text), ["README.md"]);
  assert.match(
    partial.text,
    /\[some files could not be read: the results may miss matches in them\]/,
  );
});

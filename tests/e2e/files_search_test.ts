/**
 * glob, grep and list_dir through the compiled binary, in a temporary root with a .gitignore,
 * node_modules, .git, binary files and symlinks: main paths, errors, caps, sandbox escapes, and
 * grep giving the same answers with rg and with its own search.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  realpathSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { afterEach, test } from "node:test";
import { findRipgrep } from "../../tools/_lib/grep_ripgrep.ts";
import { modern, PRODUCT_BINARY, RawClient, ROOT } from "../helpers/raw_client.ts";

type ToolResult = {
  content: { type: string; text: string }[];
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
};

const rgMissing = findRipgrep() === undefined;

let clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
  clients = [];
});

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
    const c = new RawClient(PRODUCT_BINARY, ["--root", root]);
    clients.push(c);
    return c;
  } finally {
    apply(saved);
  }
}

async function call(c: RawClient, name: string, args: Record<string, unknown>) {
  const reply = await c.request("tools/call", modern({ name, arguments: args }), 30_000);
  assert.ok(reply.result, `tools/call ${name} failed: ${JSON.stringify(reply.error)}`);
  const result = reply.result as unknown as ToolResult;
  return { result, text: result.content[0].text, data: result.structuredContent ?? {} };
}

/** The listing part of a result: everything before the bracketed notes. */
const body = (text: string) => text.replace(/\n*(\[[^\n]*\]\n?)+$/, "");
const lines = (text: string) => body(text).split("\n").filter(Boolean);

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

/**
 * A root (top/app) with ignored and binary files, symlinks out of it, and a sibling sharing
 * its prefix (top/app2) that holds a match of its own.
 */
function fixture() {
  const top = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-search-")));
  const root = join(top, "app");
  const sibling = `${root}2`;
  const files: Record<string, string | Uint8Array> = {
    ".gitignore": "*.log\nbuild/\n/secret.txt\n!keep.log\n",
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
  const { result, text } = await call(c, name, args);
  assert.equal(result.isError, true, `${name} ${JSON.stringify(args)}: ${text}`);
  assert.match(text, /outside the allowed roots/, `${name} ${JSON.stringify(args)}`);
}

test("glob finds files newest first, skips ignored ones unless asked, and hints at **/", async () => {
  const { root } = fixture();
  const c = start(root);
  const ts = await call(c, "glob", { pattern: "**/*.ts" });
  assert.deepEqual(lines(ts.text), ["src/main.ts", "src/util.ts", "src/deep/nested/leaf.ts"]);
  assert.deepEqual(ts.data, { paths: lines(ts.text), total: 3, stoppedEarly: null });
  assert.match(ts.text, /\[3 files under \. match "\*\*\/\*\.ts", newest first\]$/);
  const js = await call(c, "glob", { pattern: "**/*.js" });
  assert.equal(js.data.total, 0);
  const all = await call(c, "glob", { pattern: "**/*.{js,ts}", include_ignored: true });
  assert.deepEqual((all.data.paths as string[]).toSorted(), [
    "build/out.js",
    "node_modules/pkg/index.js",
    "src/deep/nested/leaf.ts",
    "src/generated/gen.ts",
    "src/main.ts",
    "src/util.ts",
  ]);
  const top = await call(c, "glob", { pattern: "*.ts" });
  assert.match(
    top.text,
    /no files under \. match "\*\.ts"; to match at any depth use "\*\*\/\*\.ts"/,
  );
  const inSrc = await call(c, "glob", { pattern: "*.ts", path: "src" });
  assert.deepEqual(lines(inSrc.text), ["src/main.ts", "src/util.ts"]);
  const dotfiles = await call(c, "glob", { pattern: "**/*.yml" });
  assert.deepEqual(lines(dotfiles.text), [".github/ci.yml"]);
});

test("glob lists symlinks but never follows them, and refuses paths out of the root", async () => {
  const { top, root } = fixture();
  const c = start(root);
  const everything = await call(c, "glob", { pattern: "**" });
  const paths = everything.data.paths as string[];
  assert.ok(paths.includes("etc-link") && paths.includes("src-link"), paths.join(" "));
  assert.deepEqual(paths.filter((p) => /^(etc|src|sibling)-link\//.test(p)), []);
  await refused(c, "glob", { pattern: "*", path: "../app2" });
  await refused(c, "glob", { pattern: "*", path: join(top, "app2") });
  await refused(c, "glob", { pattern: "*", path: "etc-link" });
  const upward = await call(c, "glob", { pattern: "../app2/*" });
  assert.equal(upward.result.isError, true);
  assert.match(upward.text, /must be relative to path, without "\.\."/);
  const file = await call(c, "glob", { pattern: "*", path: "README.md" });
  assert.equal(file.result.isError, true);
  assert.match(file.text, /"README.md" is not a directory/);
});

test("list_dir shows a tree: directories first, sizes, links, ignored directories closed", async () => {
  const { root } = fixture();
  const c = start(root);
  const tree = await call(c, "list_dir", {});
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
  const shallow = await call(c, "list_dir", { path: "src", depth: 1 });
  assert.deepEqual(lines(shallow.text), [
    "src/",
    "  deep/",
    "  generated/  (gitignored, not listed)",
    "  .gitignore  11 bytes",
    "  main.ts  123 bytes",
    "  util.ts  52 bytes",
  ]);
  const opened = await call(c, "list_dir", { path: "node_modules", include_ignored: true });
  assert.deepEqual(lines(opened.text), ["node_modules/", "  pkg/", "    index.js  11 bytes"]);
});

test("list_dir caps each directory and says how much it left out; errors are clear", async () => {
  const { top, root } = fixture();
  mkdirSync(join(root, "many"));
  for (let i = 0; i < 150; i++) {
    writeFileSync(join(root, "many", `f${String(i).padStart(3, "0")}`), "");
  }
  const c = start(root);
  const many = await call(c, "list_dir", { path: "many" });
  assert.equal(lines(many.text).length, 1 + 100 + 1);
  assert.match(many.text, /\n {2}\.\.\. and 50 more\n/);
  assert.match(
    many.text,
    /\[not listed: 50 more entries \(at most 100 per directory\)\. List a subdirectory/,
  );
  assert.equal(many.data.complete, false);
  const file = await call(c, "list_dir", { path: "README.md" });
  assert.equal(file.result.isError, true);
  assert.match(file.text, /is a file, not a directory/);
  const missing = await call(c, "list_dir", { path: "nope" });
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
  const tree = await call(c, "list_dir", { path: "big" });
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
  const found = await call(c, "glob", { pattern: "big/**" });
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
  const found = await call(c, "grep", { pattern: "needle" });
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
  const binary = await call(c, "grep", { pattern: "needle", path: "data/image.png" });
  assert.equal(binary.result.isError, true);
  assert.match(binary.text, /data\/image\.png is a binary file \(PNG image\)/);
  const none = await call(c, "grep", { pattern: "needle", path: "data" });
  assert.equal(none.text, "[no matches under data]");
  const named = await call(c, "grep", { pattern: "needle", path: "secret.txt" });
  assert.deepEqual(lines(named.text), ["secret.txt"], "a file named on purpose is searched");
});

test("grep content and count modes, context, case, glob and multiline", async () => {
  const { root } = fixture();
  const c = start(root);
  const context = await call(c, "grep", {
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
  const counted = await call(c, "grep", {
    pattern: "needle",
    case_insensitive: true,
    output_mode: "count",
    glob: "*.ts",
  });
  assert.deepEqual(lines(counted.text), ["src/deep/nested/leaf.ts:1", "src/main.ts:3"]);
  assert.equal(counted.data.lines, 4);
  const spanning = await call(c, "grep", {
    pattern: "foo\\nbar",
    multiline: true,
    output_mode: "content",
  });
  assert.deepEqual(lines(spanning.text), ["docs/multi.txt:2:foo", "docs/multi.txt:3:bar"]);
  const crlf = await call(c, "grep", { pattern: "one$", output_mode: "content" });
  assert.deepEqual(lines(crlf.text), ["docs/crlf.txt:1:needle one"]);
  const limited = await call(c, "grep", { pattern: "e", output_mode: "content", head_limit: 3 });
  assert.equal(lines(limited.text).length, 3);
  assert.match(limited.text, /more lines not shown \(head_limit reached, 3 shown\)/);
});

test("grep output stops near 30,000 characters and says how to narrow the search", async () => {
  const { root } = fixture();
  const big = Array.from({ length: 5_000 }, (_, i) => `needle number ${i}`).join("\n");
  writeFileSync(join(root, "big.txt"), big);
  writeFileSync(join(root, "minified.js"), `${"x".repeat(50_000)}needle${"y".repeat(50_000)}`);
  const c = start(root);
  const capped = await call(c, "grep", { pattern: "needle", output_mode: "content" });
  assert.ok(body(capped.text).length <= 30_000, `${body(capped.text).length}`);
  assert.match(
    capped.text,
    /\[\d[\d,]* more lines not shown \(output limit reached, [\d,]+ shown\); narrow the search with path, glob or a more specific pattern, or use output_mode "files_with_matches" or "count"\]/,
  );
  const minified = await call(c, "grep", {
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
  const invalid = await call(c, "grep", { pattern: "needle(" });
  assert.equal(invalid.result.isError, true);
  assert.match(invalid.text, /pattern "needle\(" is not a valid regular expression/);
  const lookbehind = await call(c, "grep", { pattern: "(?<=const )needle" });
  assert.equal(lookbehind.result.isError, true);
  assert.match(lookbehind.text, /lookahead or lookbehind, which rg's engine does not have/);
  const missing = await call(c, "grep", { pattern: "x", path: "nope" });
  assert.match(missing.text, /"nope" does not exist/);
  await refused(c, "grep", { pattern: "needle", path: "../app2" });
  await refused(c, "grep", { pattern: "needle", path: join(top, "app2") });
  await refused(c, "grep", { pattern: "root", path: "etc-link" });
  const noLeak = await call(c, "grep", { pattern: "root|needle next door" });
  assert.ok(!/etc-link|sibling-link|passwd/.test(noLeak.text), noLeak.text);
});

const COMPARED: Record<string, unknown>[] = [
  { pattern: "needle" },
  { pattern: "needle", output_mode: "content", before: 2, after: 1 },
  { pattern: "NEEDLE", case_insensitive: true, output_mode: "count" },
  { pattern: "\\bneedle\\b", output_mode: "content" },
  { pattern: "^\\s*(export|import)\\b", output_mode: "content", glob: "src/**/*.ts" },
  { pattern: "needle", glob: "!*.ts" },
  { pattern: "one$|two$", output_mode: "content" },
  { pattern: "caf\\u00e9|na\\u00efve\\s", output_mode: "content" },
  { pattern: "foo\\nbar\\n", multiline: true, output_mode: "content", after: 1 },
  { pattern: "begin.*end", multiline: true, output_mode: "count" },
  { pattern: "[aeiou]{2}", output_mode: "content", head_limit: 4 },
  { pattern: "needle", path: "src", output_mode: "content" },
  { pattern: "needle", path: "docs/crlf.txt", output_mode: "content" },
  { pattern: "return needle;$", path: "src-link", output_mode: "content" },
  { pattern: "needle(" },
];

/** One answer, as compared between the two searches. */
async function answer(c: RawClient, args: Record<string, unknown>) {
  const { result, text, data } = await call(c, "grep", args);
  return { isError: result.isError ?? false, text, data };
}

test("grep gives the same answers with rg and with its own search", {
  skip: rgMissing && "rg is not installed",
}, async () => {
  const { root } = fixture();
  const withRg = start(root, { TOOLHOST_GREP: "rg" });
  const builtin = start(root, { TOOLHOST_GREP: "builtin" });
  for (const args of COMPARED) {
    const [a, b] = [await answer(withRg, args), await answer(builtin, args)];
    assert.deepEqual(a, b, JSON.stringify(args));
    assert.notEqual(a.text, "", JSON.stringify(args));
  }
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

test("without rg on PATH grep uses its own search; TOOLHOST_GREP=rg then says rg is missing", async () => {
  const { root } = fixture();
  const auto = start(root, { PATH: "/nonexistent", TOOLHOST_GREP: undefined });
  const builtin = start(root, { TOOLHOST_GREP: "builtin" });
  for (const args of COMPARED.slice(0, 4)) {
    assert.deepEqual(await answer(auto, args), await answer(builtin, args), JSON.stringify(args));
  }
  const forced = start(root, { PATH: "/nonexistent", TOOLHOST_GREP: "rg" });
  const failed = await call(forced, "grep", { pattern: "needle" });
  assert.equal(failed.result.isError, true);
  assert.match(failed.text, /TOOLHOST_GREP=rg is set but rg is not on PATH/);
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

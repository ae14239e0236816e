/**
 * symbols in-process: find by name path across a tree (paged, with bodies), the map's order and
 * budget, .gitignore and symbolic-link loops, and the files it refuses to parse, each with a
 * sentence.
 */
import assert from "node:assert/strict";
import { mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import symbols from "../../tools/code/symbols.ts";
import { stopParseWorkers } from "../../tools/code/_lib/parse/mod.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { SAMPLES } from "../helpers/code_samples.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { scratchStateDir } from "../helpers/state_dir.ts";

scratchStateDir();
after(() => stopParseWorkers());

interface Row {
  path: string;
  line: number;
  kind: string;
  namePath: string;
  body?: string;
  refs?: number;
}

function project(): string {
  const root = scratchDir("toolhost-symbols-");
  mkdirSync(join(root, "src"));
  for (const sample of SAMPLES) writeFileSync(join(root, "src", sample.file), sample.text);
  return root;
}

test("find matches the end of name paths in every language, and /A/b only from the top", async () => {
  const root = project();
  const { data, text } = await callInRoots(symbols, [root], {
    operation: "find",
    name: "Shape/area",
  });
  assert.deepEqual((data.symbols as Row[]).map((r) => `${r.path}:${r.line} ${r.namePath}`), [
    "src/shape.hpp:7 geo/Shape/area",
  ]);
  assert.match(
    text,
    /^\[1 definition match "Shape\/area"\]\nsrc\/shape\.hpp:7-9 method geo\/Shape\/area \| double area\(\) const \{/,
  );
  const anchored = await callInRoots(symbols, [root], { operation: "find", name: "/Shape/area" });
  assert.equal(anchored.data.total, 0);
  const top = await callInRoots(symbols, [root], { operation: "find", name: "/geo/Shape/area" });
  assert.equal(top.data.total, 1);
});

test("find with substring matches part of the last name in any case, with bodies", async () => {
  const root = project();
  const { data } = await callInRoots(symbols, [root], {
    operation: "find",
    name: "TOSTR",
    substring: true,
    include_body: true,
  });
  const rows = data.symbols as Row[];
  assert.equal(rows.length, 1);
  assert.equal(rows[0].namePath, "Greeter/toString");
  assert.equal(rows[0].body, '    public String toString() {\n        return "hi";\n    }');
});

test("find pages with a cursor and says how many there are", async () => {
  const root = scratchDir("toolhost-symbols-");
  const many = Array.from({ length: 250 }, (_, i) => `def item_${i}():\n    pass\n`).join("\n");
  writeFileSync(join(root, "many.py"), many);
  const first = await callInRoots(symbols, [root], {
    operation: "find",
    name: "item",
    substring: true,
  });
  assert.equal(first.data.total, 250);
  assert.equal((first.data.symbols as Row[]).length, 100);
  assert.equal(first.data.cursor, "100");
  assert.match(first.text, /\[150 more: pass cursor "100"\]$/);
  const last = await callInRoots(symbols, [root], {
    operation: "find",
    name: "item",
    substring: true,
    cursor: "200",
  });
  assert.equal((last.data.symbols as Row[])[0].namePath, "item_200");
  assert.equal(last.data.cursor, undefined);
});

test("map puts the most used definitions first and stays within max_chars", async () => {
  const root = scratchDir("toolhost-symbols-");
  writeFileSync(join(root, "core.ts"), "export class Engine {}\nexport function rarely() {}\n");
  for (let i = 0; i < 5; i++) {
    writeFileSync(
      join(root, `use${i}.ts`),
      `import { Engine } from "./core.ts";\nexport const e${i} = new Engine();\n`,
    );
  }
  const { data, text } = await callInRoots(symbols, [root], { operation: "map", max_chars: 300 });
  const rows = data.symbols as Row[];
  assert.equal(rows[0].namePath, "Engine");
  assert.equal(rows[0].refs, 5);
  assert.ok(text.length <= 300 + 200, text);
  assert.equal(data.total, 7);
});

test(
  "map and find skip what .gitignore names and survive a symbolic-link loop",
  posixOnly("a symbolic link to a directory needs a privilege on Windows"),
  async () => {
    const root = scratchDir("toolhost-symbols-");
    writeFileSync(join(root, ".gitignore"), "build/\n");
    mkdirSync(join(root, "build"));
    writeFileSync(join(root, "build", "gen.py"), "def generated():\n    pass\n");
    writeFileSync(join(root, "main.py"), "def main():\n    pass\n");
    symlinkSync(root, join(root, "loop"));
    const { data } = await callInRoots(symbols, [root], { operation: "map" });
    assert.deepEqual((data.symbols as Row[]).map((r) => r.path), ["main.py"]);
    const found = await callInRoots(symbols, [root], { operation: "find", name: "generated" });
    assert.equal(found.data.total, 0);
  },
);

test("outline refuses a binary file, a file too large to parse, and a directory, saying why", async () => {
  const root = scratchDir("toolhost-symbols-");
  writeFileSync(join(root, "blob.py"), new Uint8Array([0x7f, 0x45, 0x4c, 0x46, 0, 1, 2, 0, 0]));
  writeFileSync(join(root, "huge.min.js"), "var a=[" + "1,".repeat(1_200_000) + "0];");
  const binary = await callInRoots(symbols, [root], { operation: "outline", path: "blob.py" });
  assert.equal(binary.result.isError, true);
  assert.equal(binary.text, "blob.py is a binary file, not python source");
  const huge = await callInRoots(symbols, [root], { operation: "outline", path: "huge.min.js" });
  assert.equal(huge.result.isError, true);
  assert.match(huge.text, /huge\.min\.js is 2\.3 MiB, over the 1\.0 MiB limit for parsing/);
  const dir = await callInRoots(symbols, [root], { operation: "outline", path: "." });
  assert.match(dir.text, /is a directory; outline takes a file \(use operation "map"/);
  const map = await callInRoots(symbols, [root], { operation: "map" });
  assert.match(map.text, /\[2 files not parsed, e\.g\. /);
});

test("code nested past 1,000 levels is refused before parsing; 500 levels are outlined", async () => {
  const root = scratchDir("toolhost-symbols-");
  const depth = 100_000;
  writeFileSync(
    join(root, "deep.py"),
    `x = ${"[".repeat(depth)}${"]".repeat(depth)}\n\ndef after():\n    pass\n`,
  );
  writeFileSync(
    join(root, "deep.ts"),
    `${"namespace n { ".repeat(500)}function inner() {}${" }".repeat(500)}\n`,
  );
  const py = await callInRoots(symbols, [root], { operation: "outline", path: "deep.py" });
  assert.equal(py.result.isError, true);
  assert.equal(py.text, "deep.py: its brackets nest more than 1000 levels deep");
  const ts = await callInRoots(symbols, [root], { operation: "outline", path: "deep.ts" });
  assert.equal(ts.result.isError, undefined, ts.text);
  assert.equal(ts.data.total, 501);
  const inner = await callInRoots(symbols, [root], { operation: "find", name: "inner" });
  assert.equal((inner.data.symbols as Row[])[0].namePath, `${"n/".repeat(500)}inner`);
});

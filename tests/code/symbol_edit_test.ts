/**
 * symbol_edit in-process on one small file per tier-1 language: decorators, annotations,
 * attributes and doc comments kept, indentation and blank-line spacing as the file has them, a
 * result that does not parse refused with nothing written.
 */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import symbolEdit from "../../tools/code/symbol_edit.ts";
import symbols from "../../tools/code/symbols.ts";
import { stopParseWorkers } from "../../tools/code/_lib/parse/mod.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";
import { SAMPLES } from "../helpers/code_samples.ts";

after(() => stopParseWorkers());

function setUp(file: string, text: string): { root: string; path: string } {
  const root = scratchDir("toolhost-code-");
  const path = join(root, file);
  writeFileSync(path, text);
  return { root, path };
}

for (const sample of SAMPLES) {
  test(`${sample.file}: replace_definition keeps the doc comment and decorations`, async () => {
    const { root, path } = setUp(sample.file, sample.text);
    for (const kept of sample.kept) assert.ok(sample.text.includes(kept), kept);
    const { result, text } = await callInRoots(symbolEdit, [root], {
      path: sample.file,
      operation: "replace_definition",
      name_path: sample.member,
      text: sample.definition,
    });
    assert.equal(result.isError, undefined, text);
    assert.equal(readFileSync(path, "utf8"), sample.afterDefinition);
  });

  test(`${sample.file}: replace_body re-indents the new body into place`, async () => {
    const { root, path } = setUp(sample.file, sample.text);
    const { result, text } = await callInRoots(symbolEdit, [root], {
      path: sample.file,
      operation: "replace_body",
      name_path: sample.member,
      text: sample.body,
    });
    assert.equal(result.isError, undefined, text);
    const now = readFileSync(path, "utf8");
    assert.ok(now.includes(sample.bodyLine), now);
    for (const kept of sample.kept) assert.ok(now.includes(kept), now);
  });

  test(`${sample.file}: insert_after keeps the file's blank lines between definitions`, async () => {
    const { root, path } = setUp(sample.file, sample.text);
    const { result, text } = await callInRoots(symbolEdit, [root], {
      path: sample.file,
      operation: "insert_after",
      name_path: sample.member,
      text: sample.insert,
    });
    assert.equal(result.isError, undefined, text);
    const now = readFileSync(path, "utf8");
    assert.ok(now.includes(sample.joined), now);
  });

  test(`${sample.file}: an edit that does not parse is refused and nothing is written`, async () => {
    const { root, path } = setUp(sample.file, sample.text);
    const { result, text } = await callInRoots(symbolEdit, [root], {
      path: sample.file,
      operation: "replace_body",
      name_path: sample.member,
      text: sample.broken,
    });
    assert.equal(result.isError, true);
    assert.match(
      text,
      /would leave a syntax error in .* at line \d+, column \d+.*nothing was written/s,
    );
    assert.equal(readFileSync(path, "utf8"), sample.text);
  });

  test(`${sample.file}: outline lists the definitions with their name paths`, async () => {
    const { root } = setUp(sample.file, sample.text);
    const { result, data } = await callInRoots(symbols, [root], {
      operation: "outline",
      path: sample.file,
    });
    assert.equal(result.isError, undefined);
    const got = (data.symbols as { kind: string; namePath: string }[]).map((s) =>
      `${s.kind} ${s.namePath}`
    );
    for (const entry of sample.outline) assert.ok(got.includes(entry), `${entry} in ${got}`);
  });
}

test("insert_before puts the new definition above the doc comment and decorators", async () => {
  const sample = SAMPLES.find((s) => s.file === "service.py")!;
  const { root, path } = setUp(sample.file, sample.text);
  const { result, text } = await callInRoots(symbolEdit, [root], {
    path: sample.file,
    operation: "insert_before",
    name_path: "Service/size",
    text: "def first(self):\n    return 0",
  });
  assert.equal(result.isError, undefined, text);
  const now = readFileSync(path, "utf8");
  const expected = '"""A service."""\n\n    def first(self):\n        return 0\n\n' +
    "    # Cached size.\n    @functools.cache";
  assert.ok(now.includes(expected), now);
});

test("replace_definition with its own decorators replaces the old ones", async () => {
  const sample = SAMPLES.find((s) => s.file === "service.py")!;
  const { root, path } = setUp(sample.file, sample.text);
  await callInRoots(symbolEdit, [root], {
    path: sample.file,
    operation: "replace_definition",
    name_path: "Service/size",
    text: "@property\ndef size(self):\n    return 1",
  });
  const now = readFileSync(path, "utf8");
  const expected = "    # Cached size.\n    @property\n    def size(self):\n        return 1\n";
  assert.ok(now.includes(expected), now);
  assert.doesNotMatch(now, /functools\.cache/);
});

test("a CRLF file stays CRLF and a name path that matches nothing lists similar ones", async () => {
  const { root, path } = setUp(
    "crlf.py",
    "def one():\r\n    return 1\r\n\r\n\r\ndef two():\r\n    return 2\r\n",
  );
  const { result } = await callInRoots(symbolEdit, [root], {
    path: "crlf.py",
    operation: "replace_body",
    name_path: "two",
    text: "return 22",
  });
  assert.equal(result.isError, undefined);
  assert.equal(
    readFileSync(path, "utf8"),
    "def one():\r\n    return 1\r\n\r\n\r\ndef two():\r\n    return 22\r\n",
  );
  const missing = await callInRoots(symbolEdit, [root], {
    path: "crlf.py",
    operation: "replace_body",
    name_path: "tw",
    text: "return 3",
  });
  assert.equal(missing.result.isError, true);
  assert.match(missing.text, /no definition "tw" in crlf\.py; similar there:\n5 function two/);
});

test("a name path defined twice asks for a line, and the line picks one", async () => {
  const { root, path } = setUp(
    "twice.ts",
    "function f() {\n  return 1;\n}\n\nfunction f() {\n  return 2;\n}\n",
  );
  const both = await callInRoots(symbolEdit, [root], {
    path: "twice.ts",
    operation: "replace_body",
    name_path: "f",
    text: "return 3;",
  });
  assert.equal(both.result.isError, true);
  assert.match(both.text, /2 definitions match "f".*\n1 function f\n5 function f/s);
  await callInRoots(symbolEdit, [root], {
    path: "twice.ts",
    operation: "replace_body",
    name_path: "f",
    line: 5,
    text: "return 3;",
  });
  assert.equal(
    readFileSync(path, "utf8"),
    "function f() {\n  return 1;\n}\n\nfunction f() {\n  return 3;\n}\n",
  );
});

test("a file that already has a syntax error elsewhere can still be edited, but not made worse", async () => {
  const text = "def good():\n    return 1\n\n\ndef bad(:\n    pass\n";
  const { root, path } = setUp("broken.py", text);
  const fine = await callInRoots(symbolEdit, [root], {
    path: "broken.py",
    operation: "replace_body",
    name_path: "good",
    text: "return 2",
  });
  assert.equal(fine.result.isError, undefined, fine.text);
  assert.ok(readFileSync(path, "utf8").startsWith("def good():\n    return 2\n"));
  const worse = await callInRoots(symbolEdit, [root], {
    path: "broken.py",
    operation: "replace_body",
    name_path: "good",
    text: "return (2",
  });
  assert.equal(worse.result.isError, true);
  assert.ok(readFileSync(path, "utf8").startsWith("def good():\n    return 2\n"));
});

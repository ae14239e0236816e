/**
 * The language-server client's pure parts: the framing (split messages, bounds), positions past
 * the end, a WorkspaceEdit's text edits (order, overlap, file operations refused), name paths,
 * and which new errors an edit introduced.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { test } from "node:test";
import {
  applyEdits,
  compareErrors,
  editsByUri,
  frame,
  FrameReader,
  lineOf,
  positionIn,
  resolveNamePath,
} from "../../tools/code/_lib/lsp/mod.ts";

test("framing: messages split anywhere and several in one chunk come out whole", () => {
  const bytes = Buffer.concat([frame({ id: 1, result: "é😀" }), frame({ id: 2, result: null })]);
  for (let cut = 1; cut < bytes.length; cut++) {
    const reader = new FrameReader();
    const got = [...reader.push(bytes.subarray(0, cut)), ...reader.push(bytes.subarray(cut))];
    assert.deepEqual(got, [{ id: 1, result: "é😀" }, { id: 2, result: null }], `cut at ${cut}`);
  }
});

test("framing: a header without end, an announced size over the limit, and non-JSON are refused", () => {
  assert.throws(() => new FrameReader().push(Buffer.alloc(9000, 65)), /header longer than 8192/);
  assert.throws(
    () => new FrameReader(1000).push(Buffer.from("Content-Length: 5000\r\n\r\n")),
    /5000 bytes, over the 1000-byte limit/,
  );
  assert.throws(
    () => new FrameReader().push(Buffer.from("X: 1\r\n\r\n")),
    /without Content-Length/,
  );
  assert.throws(
    () => new FrameReader().push(Buffer.from("Content-Length: 3\r\n\r\nabc")),
    /not JSON/,
  );
});

test("positions: 1-based line and column, past the end refused with the file's size", () => {
  assert.deepEqual(positionIn("ab\ncd\n", 2, 3, "f"), { line: 1, character: 2 });
  assert.throws(() => positionIn("ab\ncd\n", 3, 1, "f"), /line 3 is past the end of f \(2 lines\)/);
  assert.throws(
    () => positionIn("ab\r\ncd", 1, 4, "f"),
    /column 4 is past the end of line 1 .*2 characters/,
  );
});

test("positions: a line is found as splitting the text finds it, and none past the last", () => {
  for (const text of ["", "\n", "ab", "ab\n", "ab\ncd", "ab\r\ncd\r\n", "\n\nx\n\n", "é😀\nz"]) {
    const lines = text.split("\n");
    if (text.endsWith("\n")) lines.pop();
    for (let line = 1; line <= lines.length + 2; line++) {
      assert.equal(lineOf(text, line), lines[line - 1], `${JSON.stringify(text)} line ${line}`);
    }
  }
  assert.throws(() => positionIn("", 2, 1, "f"), /line 2 is past the end of f \(1 lines\)/);
  assert.throws(() => positionIn("a\n\n", 3, 1, "f"), /\(2 lines\); give a line in 1\.\.2/);
});

test("workspace edits: applied from the end, overlaps and file operations refused", () => {
  const at = (line: number, a: number, b: number) => ({
    start: { line, character: a },
    end: { line, character: b },
  });
  const text = "let a = a + a;\nuse(a);\n";
  const edits = [at(0, 4, 5), at(0, 12, 13), at(0, 8, 9), at(1, 4, 5)].map((range) => ({
    range,
    newText: "total",
  }));
  assert.equal(applyEdits(text, edits, "f"), "let total = total + total;\nuse(total);\n");
  assert.throws(
    () =>
      applyEdits(text, [{ range: at(0, 4, 9), newText: "x" }, {
        range: at(0, 8, 13),
        newText: "y",
      }], "f"),
    /overlap; nothing was changed/,
  );
  const both = editsByUri({
    documentChanges: [{ textDocument: { uri: "file:///a", version: 1 }, edits: edits.slice(0, 1) }],
  });
  assert.deepEqual([...both.keys()], ["file:///a"]);
  assert.throws(
    () =>
      editsByUri({
        documentChanges: [{ kind: "rename", oldUri: "file:///a", newUri: "file:///b" }],
      }),
    /would rename a file/,
  );
});

test("name paths: exact, by their end, ambiguous and missing ones say what there is", () => {
  const sym = (name: string, line: number, children: unknown[] = []) => ({
    name,
    selectionRange: { start: { line, character: 2 } },
    children,
  });
  const symbols = [
    sym("Shop", 0, [sym("price", 1), sym("name", 4)]),
    sym("Cart", 8, [sym("price", 9)]),
  ];
  assert.deepEqual(resolveNamePath(symbols, "Shop/price", "f"), { line: 1, character: 2 });
  assert.deepEqual(resolveNamePath(symbols, "name", "f"), { line: 4, character: 2 });
  assert.throws(
    () => resolveNamePath(symbols, "price", "f"),
    /2 symbols in f match "price": Shop\/price \(line 2\), Cart\/price \(line 10\)/,
  );
  assert.throws(
    () => resolveNamePath(symbols, "Nope", "f"),
    /no symbol "Nope" in f; its symbols include Shop/,
  );
});

test("new errors: compared by what they say, as a multiset; warnings do not count", () => {
  const d = (message: string, line: number, severity = 1) => ({
    message,
    severity,
    range: { start: { line, character: 0 }, end: { line, character: 1 } },
  });
  const before = [d("x is unused", 3, 2), d("bad type", 5)];
  const after = [d("bad type", 9), d("bad type", 12), d("another", 1, 2)];
  const { introduced, fixed } = compareErrors(before, after);
  assert.deepEqual(introduced.map((e) => e.range.start.line), [12]);
  assert.equal(fixed, 0);
  assert.deepEqual(compareErrors(after, before), { introduced: [], fixed: 1 });
});

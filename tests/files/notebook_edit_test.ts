import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { editNotebook, sourceLines } from "../../tools/files/_lib/notebook_cells.ts";
import notebookEdit from "../../tools/files/notebook_edit.ts";
import readFile from "../../tools/files/read_file.ts";
import { callInRoots, scratchDir } from "../helpers/file_tools.ts";

/** A notebook as Jupyter writes it: sorted keys, one-space indent, a final newline. */
function notebook(cells: Record<string, unknown>[], minor = 5): string {
  return JSON.stringify(
    {
      cells,
      metadata: {
        kernelspec: { display_name: "Python 3", language: "python", name: "python3" },
        language_info: { name: "python", version: "3.12.1" },
      },
      nbformat: 4,
      nbformat_minor: minor,
    },
    null,
    1,
  ) + "\n";
}

const code = (id: string, source: string[], count: number | null = 1) => ({
  cell_type: "code",
  execution_count: count,
  id,
  metadata: { tags: ["keep"] },
  outputs: count === null ? [] : [{ name: "stdout", output_type: "stream", text: ["out\n"] }],
  source,
});
const markdown = (id: string, source: string[]) => ({
  cell_type: "markdown",
  id,
  metadata: {},
  source,
});

const SAMPLE = notebook([
  markdown("intro", ["# Title\n", "Some text"]),
  code("load", ["import json\n", "x = 1\n", "print(x)"]),
  code("plot", ["print('é')"], 2),
]);

test("sourceLines keeps each line's newline and no empty last line", () => {
  assert.deepEqual(sourceLines("a\nb\n"), ["a\n", "b\n"]);
  assert.deepEqual(sourceLines("a\n\nb"), ["a\n", "\n", "b"]);
  assert.deepEqual(sourceLines(""), []);
});

test("old_string -> new_string within a code cell clears its outputs; the rest is kept", () => {
  const result = editNotebook(SAMPLE, "n.ipynb", {
    action: "replace",
    cell: "load",
    old_string: "x = 1",
    new_string: "x = 2\ny = 3",
  });
  assert.equal(result.number, 2);
  assert.equal(result.id, "load");
  assert.equal(result.clearedOutputs, true);
  const before = JSON.parse(SAMPLE);
  const after = JSON.parse(result.text);
  assert.deepEqual(after.cells[1], {
    cell_type: "code",
    execution_count: null,
    id: "load",
    metadata: { tags: ["keep"] },
    outputs: [],
    source: ["import json\n", "x = 2\n", "y = 3\n", "print(x)"],
  });
  assert.deepEqual(after.cells[0], before.cells[0]);
  assert.deepEqual(after.cells[2], before.cells[2]);
  assert.deepEqual(after.metadata, before.metadata);
  // Written as it was read: the same text but for that cell.
  const expected = JSON.parse(SAMPLE);
  expected.cells[1] = after.cells[1];
  assert.equal(result.text, JSON.stringify(expected, null, 1) + "\n");
});

test("a cell is found by number too, and a string of digits that is no id is a number", () => {
  const byNumber = editNotebook(SAMPLE, "n.ipynb", { action: "replace", cell: 1, source: "# New" });
  assert.deepEqual(JSON.parse(byNumber.text).cells[0].source, ["# New"]);
  assert.equal(byNumber.clearedOutputs, false);
  const byDigits = editNotebook(SAMPLE, "n.ipynb", { action: "delete", cell: "3" });
  assert.deepEqual(JSON.parse(byDigits.text).cells.map((c: { id: string }) => c.id), [
    "intro",
    "load",
  ]);
  assert.equal(byDigits.id, "plot");
});

test("errors name the cells there are, and nothing is returned to write", () => {
  assert.throws(
    () => editNotebook(SAMPLE, "n.ipynb", { action: "replace", cell: "nope", source: "x" }),
    /no cell has id "nope": the notebook has cells 1-3; ids: 1=intro, 2=load, 3=plot/,
  );
  assert.throws(
    () => editNotebook(SAMPLE, "n.ipynb", { action: "delete", cell: 7 }),
    /there is no cell 7: the notebook has cells 1-3/,
  );
  assert.throws(
    () =>
      editNotebook(SAMPLE, "n.ipynb", {
        action: "replace",
        cell: 2,
        old_string: "absent",
        new_string: "y",
      }),
    /old_string was not found in cell 2 \(id load\)/,
  );
  assert.throws(
    () =>
      editNotebook(notebook([code("a", ["x\n", "x"])]), "n.ipynb", {
        action: "replace",
        cell: "a",
        old_string: "x",
        new_string: "y",
      }),
    /appears 2 times in cell 1/,
  );
  assert.throws(
    () => editNotebook('{"nbformat": 3, "cells": []}', "n.ipynb", { action: "delete", cell: 1 }),
    /nbformat 3; notebook_edit edits nbformat 4 only/,
  );
  assert.throws(
    () => editNotebook("{ not json", "n.ipynb", { action: "delete", cell: 1 }),
    /is not valid JSON/,
  );
});

test("insert before/after a cell, or at the end; ids only where the notebook has them", () => {
  const after = editNotebook(SAMPLE, "n.ipynb", {
    action: "insert",
    cell: "intro",
    source: "a = 1\n",
  });
  const cells = JSON.parse(after.text).cells;
  assert.equal(after.number, 2);
  assert.deepEqual(Object.keys(cells[1]), [
    "cell_type",
    "execution_count",
    "id",
    "metadata",
    "outputs",
    "source",
  ]);
  assert.match(cells[1].id, /^[0-9a-f]{8}$/);
  assert.equal(after.id, cells[1].id);
  assert.deepEqual(cells[1].source, ["a = 1\n"]);

  const before = editNotebook(SAMPLE, "n.ipynb", {
    action: "insert",
    cell: 1,
    position: "before",
    cell_type: "markdown",
    source: "Preface",
  });
  assert.deepEqual(JSON.parse(before.text).cells[0].cell_type, "markdown");
  assert.equal(before.number, 1);

  const old = notebook([{
    cell_type: "code",
    execution_count: null,
    metadata: {},
    outputs: [],
    source: [],
  }], 4);
  const end = editNotebook(old, "n.ipynb", { action: "insert", source: "b" });
  const endCells = JSON.parse(end.text).cells;
  assert.equal(endCells.length, 2);
  assert.equal("id" in endCells[1], false);
  assert.equal(end.number, 2);
});

test("changing a cell's type gives it the fields of that type", () => {
  const result = editNotebook(SAMPLE, "n.ipynb", {
    action: "replace",
    cell: "plot",
    cell_type: "markdown",
  });
  const cell = JSON.parse(result.text).cells[2];
  assert.deepEqual(cell, {
    cell_type: "markdown",
    id: "plot",
    metadata: { tags: ["keep"] },
    source: ["print('é')"],
  });
  assert.equal(result.clearedOutputs, true);
});

test("the notebook's own layout is kept: indent, CRLF, no final newline, ASCII escapes", () => {
  const compact = JSON.stringify(JSON.parse(SAMPLE));
  const edited = editNotebook(compact, "n.ipynb", { action: "delete", cell: 1 });
  assert.equal(edited.text.includes("\n"), false);
  const crlf = SAMPLE.replaceAll("\n", "\r\n");
  const crlfEdited = editNotebook(crlf, "n.ipynb", { action: "delete", cell: 1 }).text;
  assert.equal(/(^|[^\r])\n/.test(crlfEdited), false);
  assert.ok(crlfEdited.endsWith("}\r\n"));
  const ascii = JSON.stringify(JSON.parse(SAMPLE), null, 2).replace("é", "\\u00e9");
  const asciiEdited = editNotebook(ascii, "n.ipynb", { action: "delete", cell: 1 }).text;
  assert.match(asciiEdited, /print\('\\u00e9'\)/);
  assert.match(asciiEdited, /\n {2}"cells"/);
});

test("through the tool: the file changes, read_file shows it, and a bad cell writes nothing", async () => {
  const root = scratchDir("toolhost-notebook-");
  const path = join(root, "n.ipynb");
  writeFileSync(path, SAMPLE);
  const edited = await callInRoots(notebookEdit, [root], {
    path: "n.ipynb",
    cell: "load",
    old_string: "print(x)",
    new_string: "print(x * 2)",
  });
  assert.equal(edited.result.isError, undefined, edited.text);
  assert.match(
    edited.text,
    /^Replaced the source of cell 2 \(id load\) of n\.ipynb; it has 3 cells\. The cell's outputs and execution count were cleared\./,
  );
  assert.deepEqual(edited.data, {
    path: "n.ipynb",
    action: "replace",
    cell: 2,
    id: "load",
    cells: 3,
    clearedOutputs: true,
  });
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).cells[1].source.at(-1), "print(x * 2)");
  const read = await callInRoots(readFile, [root], { path: "n.ipynb" });
  assert.match(
    read.text,
    /--- cell 2 of 3: code, id load ---\n```python\nimport json\nx = 1\nprint\(x \* 2\)\n```/,
  );

  const wrong = await callInRoots(notebookEdit, [root], {
    path: "n.ipynb",
    cell: 9,
    action: "delete",
  });
  assert.equal(wrong.result.isError, true);
  assert.match(
    wrong.text,
    /there is no cell 9: the notebook has cells 1-3; ids: 1=intro, 2=load, 3=plot/,
  );
  assert.deepEqual(JSON.parse(readFileSync(path, "utf8")).cells.length, 3);
});

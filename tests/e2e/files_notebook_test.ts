/** notebook_edit through the compiled binary, as raw JSON lines, on a notebook the test makes. */
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { type Message, RawClient } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

/** A notebook as Jupyter writes it: one-space indent, sorted keys, a final newline. */
const NOTEBOOK = JSON.stringify(
  {
    cells: [
      { cell_type: "markdown", id: "title", metadata: {}, source: ["# Sales\n", "By month"] },
      {
        cell_type: "code",
        execution_count: 3,
        id: "sum",
        metadata: { scrolled: true },
        outputs: [{ name: "stdout", output_type: "stream", text: ["42\n"] }],
        source: ["total = sum(sales)\n", "print(total)"],
      },
    ],
    metadata: { kernelspec: { display_name: "Python 3", language: "python", name: "python3" } },
    nbformat: 4,
    nbformat_minor: 5,
  },
  null,
  1,
) + "\n";

let nextId = 1;
/** The calls belong to the session `initialize` opened. */
const LEGACY = { legacy: true };

/** One request as a raw line; its reply. */
async function raw(c: RawClient, method: string, params: Record<string, unknown>) {
  const id = nextId++;
  c.sendLine(
    `{"jsonrpc":"2.0","id":${id},"method":${JSON.stringify(method)},"params":${
      JSON.stringify(params)
    }}`,
  );
  return await c.responseTo(id);
}

async function session(args: string[], env: Record<string, string> = {}): Promise<RawClient> {
  const client = e2e.server({ args, env });
  const init: Message = await raw(client, "initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "e2e", version: "1" },
  });
  assert.equal((init.result as { protocolVersion: string }).protocolVersion, "2025-11-25");
  client.sendLine('{"jsonrpc":"2.0","method":"notifications/initialized"}');
  return client;
}

async function toolNames(c: RawClient) {
  const reply = await raw(c, "tools/list", {});
  return (reply.result!.tools as { name: string; annotations?: Record<string, boolean> }[]);
}

test("notebook_edit changes one cell, inserts and deletes; read_file shows the notebook after", async () => {
  const root = e2e.scratch("nb");
  const path = join(root, "sales.ipynb");
  writeFileSync(path, NOTEBOOK);
  const c = await session(["--root", root]);

  const listed = (await toolNames(c)).find((t) => t.name === "notebook_edit");
  assert.ok(listed, "notebook_edit is offered");
  assert.equal(listed.annotations?.destructiveHint, true);
  assert.equal(listed.annotations?.readOnlyHint, false);

  const edited = await callTool(c, "notebook_edit", {
    path: "sales.ipynb",
    cell: "sum",
    old_string: "print(total)",
    new_string: "print(f'{total:,}')",
  }, LEGACY);
  assert.equal(edited.isError, false, edited.text);
  assert.match(
    edited.text,
    /^Replaced the source of cell 2 \(id sum\) of sales\.ipynb; it has 2 cells\. The cell's outputs and execution count were cleared\./,
  );
  const after = JSON.parse(readFileSync(path, "utf8"));
  const before = JSON.parse(NOTEBOOK);
  assert.deepEqual(after.cells[1], {
    ...before.cells[1],
    execution_count: null,
    outputs: [],
    source: ["total = sum(sales)\n", "print(f'{total:,}')"],
  });
  assert.deepEqual(after.cells[0], before.cells[0]);
  assert.deepEqual(after.metadata, before.metadata);
  assert.equal(after.nbformat_minor, 5);
  // Jupyter's own layout: one space of indent, a final newline.
  assert.equal(readFileSync(path, "utf8"), JSON.stringify(after, null, 1) + "\n");

  const inserted = await callTool(c, "notebook_edit", {
    path: "sales.ipynb",
    action: "insert",
    cell: 1,
    cell_type: "markdown",
    source: "Numbers in euros.",
  }, LEGACY);
  assert.equal(inserted.isError, false, inserted.text);
  assert.equal(inserted.data?.cell, 2);
  assert.match(String(inserted.data?.id), /^[0-9a-f]{8}$/);

  const deleted = await callTool(c, "notebook_edit", {
    path: "sales.ipynb",
    action: "delete",
    cell: "title",
  }, LEGACY);
  assert.equal(deleted.isError, false, deleted.text);
  assert.deepEqual(deleted.data, {
    path: "sales.ipynb",
    action: "delete",
    cell: 1,
    id: "title",
    cells: 2,
    clearedOutputs: false,
  });

  const wrong = await callTool(c, "notebook_edit", {
    path: "sales.ipynb",
    cell: "nope",
    source: "x",
  }, LEGACY);
  assert.equal(wrong.isError, true);
  assert.match(
    wrong.text,
    new RegExp(
      `no cell has id "nope": the notebook has cells 1-2; ids: 1=${inserted.data?.id}, 2=sum`,
    ),
  );

  const read = await callTool(c, "read_file", { path: "sales.ipynb" }, LEGACY);
  assert.equal(read.isError, false, read.text);
  assert.match(
    read.text,
    new RegExp(`--- cell 1 of 2: markdown, id ${inserted.data?.id} ---\nNumbers in euros\\.`),
  );
  assert.match(
    read.text,
    /--- cell 2 of 2: code, id sum ---\n```python\ntotal = sum\(sales\)\nprint\(f'\{total:,\}'\)\n```/,
  );
  assert.doesNotMatch(read.text, /output \(stdout\)/);
});

test("--read-only does not offer notebook_edit; plan mode refuses it", async () => {
  const root = e2e.scratch("nb");
  writeFileSync(join(root, "a.ipynb"), NOTEBOOK);
  const readOnly = await session(["--root", root, "--read-only"]);
  assert.equal((await toolNames(readOnly)).some((t) => t.name === "notebook_edit"), false);
  await readOnly.close();
  assert.deepEqual(readOnly.strayLines, []);

  const state = e2e.scratch("nb-state");
  const c = await session(["--root", root], { TOOLHOST_STATE_DIR: state });
  const entered = await callTool(
    c,
    "plan_mode",
    { action: "enter", goal: "Tidy the notebook" },
    LEGACY,
  );
  assert.equal(entered.isError, false, entered.text);
  const refused = await callTool(
    c,
    "notebook_edit",
    { path: "a.ipynb", cell: 1, source: "# New" },
    LEGACY,
  );
  assert.equal(refused.isError, true);
  assert.match(refused.text, /^notebook_edit was refused: plan mode is on/);
  assert.equal(readFileSync(join(root, "a.ipynb"), "utf8"), NOTEBOOK);
});

test("a notebook nested a million levels deep is refused with a reason before it is parsed, and left as it was", async () => {
  const dir = e2e.scratch("nb-deep");
  const path = join(dir, "deep.ipynb");
  const depth = 1_000_000;
  const text = `{"nbformat":4,"nbformat_minor":5,"metadata":${'{"a":'.repeat(depth)}1${
    "}".repeat(depth)
  },"cells":[{"cell_type":"code","id":"c","source":["x"],"metadata":{},"outputs":[]}]}`;
  writeFileSync(path, text);
  const c = await session(["--root", dir]);
  // Before: "Maximum call stack size exceeded", after seconds of parsing on the main thread.
  const edit = await callTool(c, "notebook_edit", { path, cell: "c", source: "y" }, LEGACY);
  assert.equal(edit.isError, true);
  assert.match(
    edit.text,
    /cannot be edited: it nests deeper than 1000 levels.*nothing was changed/,
  );
  assert.equal(readFileSync(path, "utf8"), text);
  // The server goes on answering.
  assert.deepEqual((await raw(c, "ping", {})).result, {});
});

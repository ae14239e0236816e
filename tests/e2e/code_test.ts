/**
 * The code family's tier 1 through the compiled binary: outline, find and map in every tier-1
 * language over raw JSON lines and through the official SDK client (whose output-schema check
 * sees structuredContent), symbol edits on decorated code and their undo, a syntax error
 * refused with nothing written, and hostile files answered with a sentence while a ping is
 * answered during a long parse.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, test } from "node:test";
import { Client } from "@modelcontextprotocol/sdk/client";
// @ts-types="@modelcontextprotocol/sdk/client/stdio"
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { isolatedEnv, modern, PRODUCT_BINARY, RawClient } from "../helpers/raw_client.ts";
import { SAMPLES } from "../helpers/code_samples.ts";
import { callTool } from "../helpers/tool_calls.ts";

const clients: RawClient[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) {
    await c.close();
    assert.deepEqual(c.strayLines, []);
  }
});

const scratch = (name: string) => realpathSync(mkdtempSync(join(tmpdir(), `toolhost-${name}-`)));

function project(): string {
  const root = scratch("code");
  mkdirSync(join(root, "src"));
  for (const sample of SAMPLES) writeFileSync(join(root, "src", sample.file), sample.text);
  return root;
}

function start(root: string) {
  const c = new RawClient(PRODUCT_BINARY, ["--root", root], root, {
    TOOLHOST_STATE_DIR: scratch("code-state"),
  });
  clients.push(c);
  return c;
}

test("outline and find answer in every tier-1 language; the map covers them all", async () => {
  const root = project();
  const c = start(root);
  for (const sample of SAMPLES) {
    const outline = await callTool(c, "symbols", {
      operation: "outline",
      path: `src/${sample.file}`,
    });
    assert.equal(outline.isError, false, outline.text);
    for (const entry of sample.outline) {
      const [kind, namePath] = entry.split(" ");
      assert.match(
        outline.text,
        new RegExp(`:\\d+(-\\d+)? ${kind} ${namePath.replaceAll("/", "\\/")}`),
      );
    }
    const found = await callTool(c, "symbols", { operation: "find", name: sample.member });
    assert.ok(
      (found.data.symbols as { path: string }[]).some((s) => s.path === `src/${sample.file}`),
      found.text,
    );
  }
  const map = await callTool(c, "symbols", { operation: "map", max_chars: 20_000 });
  assert.equal(map.data.files, SAMPLES.length);
  for (const sample of SAMPLES) assert.match(map.text, new RegExp(`src/${sample.file}:`));
});

test("symbol edits on decorated code are written, journaled and undone", async () => {
  const root = project();
  const c = start(root);
  for (const sample of SAMPLES) {
    const edited = await callTool(c, "symbol_edit", {
      path: `src/${sample.file}`,
      operation: "replace_definition",
      name_path: sample.member,
      text: sample.definition,
    });
    assert.equal(edited.isError, false, edited.text);
    assert.equal(readFileSync(join(root, "src", sample.file), "utf8"), sample.afterDefinition);
  }
  const undone = await callTool(c, "undo", {});
  assert.equal(undone.isError, false, undone.text);
  const last = SAMPLES.at(-1)!;
  assert.equal(readFileSync(join(root, "src", last.file), "utf8"), last.text);
  assert.match((await callTool(c, "history", {})).text, /symbol_edit/);
});

test("an edit that would not parse is refused with its place, and nothing is written", async () => {
  const root = project();
  const c = start(root);
  const sample = SAMPLES.find((s) => s.file === "Greeter.java")!;
  const refused = await callTool(c, "symbol_edit", {
    path: "src/Greeter.java",
    operation: "replace_body",
    name_path: "Greeter/toString",
    text: "return (;",
  });
  assert.equal(refused.isError, true);
  assert.match(
    refused.text,
    /syntax error in src\/Greeter\.java at line 10, column \d+ \(java parser\); nothing was written/,
  );
  assert.equal(readFileSync(join(root, "src", "Greeter.java"), "utf8"), sample.text);
});

test("hostile files get a sentence each, and a ping is answered while files are parsed", async () => {
  const root = scratch("code-hostile");
  writeFileSync(join(root, "blob.rs"), new Uint8Array(4096).map((_, i) => (i * 7) % 256));
  // 900 KiB of minified JavaScript, under the 1 MiB limit (each takes tree-sitter a while), and
  // 50 MB of it on one line.
  const chunk = "[1,2,{b:function(){return 3}}],".repeat(28 * 1024);
  writeFileSync(join(root, "huge.min.js"), `var a=${chunk.repeat(57)}0;`);
  writeFileSync(join(root, "deep.py"), `x = ${"(".repeat(100_000)}${")".repeat(100_000)}\n`);
  mkdirSync(join(root, "bundles"));
  for (let i = 0; i < 3; i++) {
    writeFileSync(join(root, "bundles", `b${i}.js`), `var a${i}=${chunk.repeat(1)}0;`);
  }
  const c = start(root);
  const binary = await callTool(c, "symbols", { operation: "outline", path: "blob.rs" });
  assert.deepEqual([binary.isError, binary.text], [
    true,
    "blob.rs is a binary file, not rust source",
  ]);
  const deep = await callTool(c, "symbols", { operation: "outline", path: "deep.py" });
  assert.deepEqual([deep.isError, deep.text], [
    true,
    "deep.py: its brackets nest more than 1000 levels deep",
  ]);
  const huge = await callTool(c, "symbols", { operation: "outline", path: "huge.min.js" });
  assert.equal(huge.isError, true);
  assert.match(huge.text, /huge\.min\.js is 4\d\.\d MiB, over the 1\.0 MiB limit for parsing/);
  const mapping = c.request(
    "tools/call",
    modern({ name: "symbols", arguments: { operation: "map", path: "bundles" } }),
    120_000,
  );
  const ping = c.request("ping", modern(), 60_000);
  const first = await Promise.race([mapping.then(() => "map"), ping.then(() => "ping")]);
  assert.equal(first, "ping");
  const map = await mapping;
  assert.ok(map.result, JSON.stringify(map.error));
});

test("the official SDK client gets outline results that match the output schema", async () => {
  const root = project();
  const client = new Client({ name: "code-e2e", version: "1.0.0" });
  const transport = new StdioClientTransport({
    command: PRODUCT_BINARY,
    args: ["--root", root],
    cwd: root,
    env: { ...isolatedEnv(), TOOLHOST_STATE_DIR: scratch("code-state") },
    stderr: "pipe",
  });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    const edit = tools.find((t) => t.name === "symbol_edit");
    assert.equal(edit?.annotations?.destructiveHint, true);
    assert.equal(tools.find((t) => t.name === "symbols")?.annotations?.readOnlyHint, true);
    // The SDK checks structuredContent against the tool's output schema.
    const result = await client.callTool({
      name: "symbols",
      arguments: { operation: "outline", path: "src/point.rs" },
    });
    const rows = (result.structuredContent as { symbols: { namePath: string }[] }).symbols;
    assert.deepEqual(rows.map((r) => r.namePath), ["Point", "Point", "Point/x", "Point/y"]);
    const found = await client.callTool({
      name: "symbols",
      arguments: { operation: "find", name: "index", include_body: true },
    });
    assert.match(JSON.stringify(found.structuredContent), /return 1;/);
  } finally {
    await client.close();
  }
});

test("a map cancelled while it parses sends no reply, and the next call is answered", async () => {
  const root = scratch("code-cancel");
  const chunk = "[1,2,{b:function(){return 3}}],".repeat(28 * 1024);
  for (let i = 0; i < 3; i++) writeFileSync(join(root, `b${i}.js`), `var a${i}=${chunk}0;`);
  writeFileSync(join(root, "small.py"), "def small():\n    pass\n");
  const c = start(root);
  c.send({
    jsonrpc: "2.0",
    id: "map",
    method: "tools/call",
    params: modern({ name: "symbols", arguments: { operation: "map" } }),
  });
  c.notify("notifications/cancelled", { requestId: "map", reason: "test" });
  const outline = await callTool(c, "symbols", { operation: "outline", path: "small.py" });
  assert.equal(outline.isError, false, outline.text);
  assert.match(outline.text, /small\.py:1-2 function small/);
  assert.equal(c.messages.filter((m) => m.id === "map").length, 0);
});

test("--read-only offers symbols but not symbol_edit", async () => {
  const root = project();
  const c = new RawClient(PRODUCT_BINARY, ["--root", root, "--read-only"], root, {
    TOOLHOST_STATE_DIR: scratch("code-state"),
  });
  clients.push(c);
  const list = await c.request("tools/list", modern(), 30_000);
  const names = (list.result?.tools as { name: string }[]).map((t) => t.name);
  assert.ok(names.includes("symbols"));
  assert.ok(!names.includes("symbol_edit"));
});

const RESPONSE_PY = `class Response:
    @property
    def ok(self) -> bool:
        """Whether the status is below 400."""
        return self.status < 400

    def text(self) -> str:
        """The body, decoded."""
        return self.body.decode()
`;

test("Python: a symbol edit keeps the docstring unless the new text has one (issue 34, 6)", async () => {
  const root = scratch("code-doc");
  writeFileSync(join(root, "r.py"), RESPONSE_PY);
  const c = start(root);
  const replaced = await callTool(c, "symbol_edit", {
    path: "r.py",
    operation: "replace_definition",
    name_path: "Response/ok",
    text: "def ok(self) -> bool:\n    return 200 <= self.status < 400",
  });
  assert.equal(replaced.isError, false, replaced.text);
  assert.match(
    readFileSync(join(root, "r.py"), "utf8"),
    / {4}@property\n {4}def ok\(self\) -> bool:\n {8}"""Whether the status is below 400\."""\n {8}return 200 <= self\.status < 400\n/,
  );
  const body = await callTool(c, "symbol_edit", {
    path: "r.py",
    operation: "replace_body",
    name_path: "Response/text",
    text: "return self.body.decode('utf-8')",
  });
  assert.equal(body.isError, false, body.text);
  assert.match(
    readFileSync(join(root, "r.py"), "utf8"),
    /def text\(self\) -> str:\n {8}"""The body, decoded\."""\n {8}return self\.body\.decode\('utf-8'\)\n/,
  );
  // Text with a docstring of its own replaces the old one.
  const own = await callTool(c, "symbol_edit", {
    path: "r.py",
    operation: "replace_definition",
    name_path: "Response/text",
    text:
      'def text(self) -> str:\n    """The body as UTF-8."""\n    return self.body.decode("utf-8")',
  });
  assert.equal(own.isError, false, own.text);
  const now = readFileSync(join(root, "r.py"), "utf8");
  assert.match(now, /"""The body as UTF-8\."""/);
  assert.doesNotMatch(now, /The body, decoded/);
});

test("Python: a one-line new definition keeps the docstring; an f-string is no docstring (issue 34, 6)", async () => {
  const root = scratch("code-doc-line");
  writeFileSync(
    join(root, "r.py"),
    'class Response:\n    def two(self) -> int:\n        """Two.\n\n        More lines.\n        """\n' +
      '        return 2\n\n    def three(self) -> int:\n        f"""Not a docstring {self}."""\n' +
      "        return 3\n",
  );
  const c = start(root);
  const oneLine = await callTool(c, "symbol_edit", {
    path: "r.py",
    operation: "replace_definition",
    name_path: "Response/two",
    text: "def two(self) -> int: return 22",
  });
  assert.equal(oneLine.isError, false, oneLine.text);
  // The body leaves the colon's line for the docstring to stand above it.
  assert.match(
    readFileSync(join(root, "r.py"), "utf8"),
    / {4}def two\(self\) -> int:\n {8}"""Two\.\n\n {8}More lines\.\n {8}"""\n {8}return 22\n/,
  );
  // Python does not take an f-string for a docstring: it is code, replaced with the rest.
  const fString = await callTool(c, "symbol_edit", {
    path: "r.py",
    operation: "replace_definition",
    name_path: "Response/three",
    text: "def three(self) -> int:\n    return 33",
  });
  assert.equal(fString.isError, false, fString.text);
  assert.match(
    readFileSync(join(root, "r.py"), "utf8"),
    / {4}def three\(self\) -> int:\n {8}return 33\n$/,
  );
});

test("a function's local definitions are found and edited by their name path (issue 34, 6)", async () => {
  const root = scratch("code-local");
  const source = `export function CalculationHistory(items: number[]) {
  const renderCalculations = () => {
    return items.map((n) => n * 2);
  };
  function total(): number {
    return items.length;
  }
  const plain = 3;
  return { rows: renderCalculations(), total: total() + plain, get: () => 1 };
}
`;
  writeFileSync(join(root, "history.ts"), source);
  const c = start(root);
  const found = await callTool(c, "symbols", {
    operation: "find",
    name: "CalculationHistory/renderCalculations",
  });
  assert.equal(found.isError, false, found.text);
  assert.match(found.text, /history\.ts:2-4 function CalculationHistory\/renderCalculations/);
  const outline = await callTool(c, "symbols", { operation: "outline", path: "history.ts" });
  assert.match(outline.text, /function CalculationHistory\/total/);
  // A plain local value and an object literal's members are no definitions of their own.
  assert.doesNotMatch(outline.text, /plain|\/get/);
  const edited = await callTool(c, "symbol_edit", {
    path: "history.ts",
    operation: "replace_body",
    name_path: "CalculationHistory/renderCalculations",
    text: "return items.map((n) => n * 3);",
  });
  assert.equal(edited.isError, false, edited.text);
  assert.match(
    readFileSync(join(root, "history.ts"), "utf8"),
    /return items\.map\(\(n\) => n \* 3\);/,
  );
  // The map is of the project's definitions, not of every function's insides.
  const map = await callTool(c, "symbols", { operation: "map" });
  assert.doesNotMatch(map.text, /renderCalculations/);
});

/**
 * code_nav, rename_symbol and the diagnostics after edits through the compiled binary, with the
 * real language servers this repository pins (typescript-language-server + typescript, pyright,
 * deno) on small projects made here; clangd where the machine has it.
 */
import assert from "node:assert/strict";
import { readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { call, ok, PATIENT, project, startOn } from "../helpers/code_servers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { findProgram } from "../../tools/code/_lib/lsp/mod.ts";

const POSIX = posixOnly("the servers are found through a POSIX PATH");
const e2e = e2eFixture();

function start(root: string, args: string[] = []) {
  const c = startOn(e2e, root, args, PATIENT);
  return c;
}

const A_TS = "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n";
const B_TS =
  'import { greet } from "./a";\nconst x: string = greet("b");\nconsole.log(greet(x));\n';

test("TypeScript: definition, references, a position past the end, hover", POSIX, async () => {
  const root = project("ts-nav", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
  symlinkSync(".", join(root, "loop")); // a symlink loop in the project
  const c = start(root);
  const refs = await ok(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
  assert.match(refs.text, /^typescript-language-server: 4 results/);
  assert.match(refs.text, /b\.ts \(3\): 1:10, 2:19, 3:13/);
  assert.match(refs.text, /a\.ts \(1\): 1:17/);
  assert.equal(refs.structured?.count, 4);
  const def = await ok(c, "code_nav", {
    operation: "definition",
    path: "b.ts",
    line: 2,
    column: 19,
  });
  assert.match(def.text, /^typescript-language-server: 1 result\na\.ts:1:17$/);
  const past = await call(c, "code_nav", { operation: "definition", path: "b.ts", line: 99 });
  assert.equal(past.isError, true);
  assert.match(past.text, /line 99 is past the end of b\.ts \(3 lines\)/);
  const hover = await ok(c, "code_nav", { operation: "hover", path: "b.ts", line: 2, column: 19 });
  assert.match(hover.text, /greet\(name: string\): string/);
});

test(
  "TypeScript: a file changed by bash between two queries is seen by the second",
  POSIX,
  async () => {
    const root = project("ts-bash", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
    const c = start(root);
    const first = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.equal(first.structured?.count, 4);
    await ok(c, "bash", { command: `printf 'greet("again");\\n' >> b.ts` });
    const second = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.equal(second.structured?.count, 5, second.text);
    assert.match(second.text, /b\.ts \(4\): 1:10, 2:19, 3:13, 4:1/);
  },
);

test(
  "TypeScript: files a bash command creates and removes are seen by the next query at once",
  POSIX,
  async () => {
    const root = project("ts-bash-new", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
    const c = start(root);
    const first = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.equal(first.structured?.count, 4, first.text);
    // The journal saw the command write c.ts and remove b.ts; the server is told before the
    // result is sent (tsserver's own watchers look a moment later, or not at all for a new file).
    await ok(c, "bash", {
      command: `printf 'import { greet } from "./a";\ngreet("c");\n' > c.ts && rm b.ts`,
    });
    const second = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.match(second.text, /c\.ts \(2\): 1:10, 2:1/, second.text);
    assert.doesNotMatch(second.text, /b\.ts/, second.text);
    assert.equal(second.structured?.count, 3, second.text);
  },
);

test("TypeScript: rename across files, then one undo reverts every file", POSIX, async () => {
  const root = project("ts-rename", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
  const c = start(root);
  const renamed = await ok(c, "rename_symbol", {
    path: "a.ts",
    symbol: "greet",
    new_name: "salute",
  });
  assert.match(
    renamed.text,
    /renamed to salute: 4 edits in 2 files\n(a\.ts \(1\)\nb\.ts \(3\)|b\.ts \(3\)\na\.ts \(1\))/,
  );
  assert.equal(readFileSync(join(root, "a.ts"), "utf8"), A_TS.replace("greet", "salute"));
  assert.equal(readFileSync(join(root, "b.ts"), "utf8"), B_TS.replaceAll("greet", "salute"));
  const undone = await ok(c, "undo", {});
  assert.match(undone.text, /Undid 1 call \(rename_symbol/);
  assert.equal(readFileSync(join(root, "a.ts"), "utf8"), A_TS);
  assert.equal(readFileSync(join(root, "b.ts"), "utf8"), B_TS);
  // The server saw the undo: the old name is found again.
  const refs = await ok(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
  assert.equal(refs.structured?.count, 4);
  // Nothing to rename at a comment: an error, not "0 files changed".
  await ok(c, "write_file", { path: "c.ts", content: "// nothing here\nexport {};\n" });
  const none = await call(c, "rename_symbol", { path: "c.ts", line: 1, column: 4, new_name: "x" });
  assert.equal(none.isError, true);
  assert.match(none.text, /nothing was changed/);
});

test(
  "TypeScript: an edit that introduces a type error says so, one that fixes it too",
  POSIX,
  async () => {
    const root = project("ts-diag", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
    const c = start(root);
    await ok(c, "code_nav", { operation: "diagnostics", path: "b.ts" }); // starts the server
    const broke = await ok(c, "edit_file", {
      path: "b.ts",
      edits: [{ old_string: 'greet("b")', new_string: "greet(1)" }],
    });
    assert.match(
      broke.text,
      /diagnostics \(typescript-language-server\): this edit introduced 1 error\nb\.ts:2:25 error \[2345\] Argument of type 'number'/,
    );
    const fixed = await ok(c, "edit_file", {
      path: "b.ts",
      edits: [{ old_string: "greet(1)", new_string: 'greet("b")' }],
    });
    assert.match(fixed.text, /diagnostics \(typescript-language-server\): no new errors; 1 fixed/);
    const listed = await ok(c, "code_nav", { operation: "diagnostics", path: "b.ts" });
    assert.match(listed.text, /0 results/);
  },
);

test("with code.diagnostics_after_edit off, edits get no diagnostics", POSIX, async () => {
  const root = project("ts-nodiag", { "tsconfig.json": "{}", "a.ts": A_TS, "b.ts": B_TS });
  const c = startOn(e2e, root, [], { TOOLHOST_CODE_DIAGNOSTICS: "0" });
  await ok(c, "code_nav", { operation: "diagnostics", path: "b.ts" });
  const broke = await ok(c, "edit_file", {
    path: "b.ts",
    edits: [{ old_string: 'greet("b")', new_string: "greet(1)" }],
  });
  assert.doesNotMatch(broke.text, /diagnostics/);
});

test(
  "Python (pyright): definition by name path, and a new error after an edit",
  POSIX,
  async () => {
    const root = project("py", {
      "pyproject.toml": "[project]\nname = 'p'\n",
      "m.py": "class Shop:\n    def price(self) -> int:\n        return 3\n",
      "use.py": "from m import Shop\n\nn: int = Shop().price()\n",
    });
    const c = start(root);
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "m.py",
      symbol: "Shop/price",
    });
    assert.match(refs.text, /^pyright: 2 results/);
    assert.match(refs.text, /use\.py \(1\): 3:17/);
    const def = await ok(c, "code_nav", {
      operation: "definition",
      path: "use.py",
      line: 3,
      column: 17,
    });
    assert.match(def.text, /m\.py:2:9/);
    const broke = await ok(c, "edit_file", {
      path: "use.py",
      edits: [{ old_string: "n: int", new_string: "n: str" }],
    });
    assert.match(
      broke.text,
      /diagnostics \(pyright\): this edit introduced 1 error\nuse\.py:3:10 error/,
    );
  },
);

test("Deno project (deno.json, no tsconfig): deno lsp answers references", POSIX, async () => {
  const root = project("deno", {
    "deno.json": "{}",
    "a.ts": A_TS,
    "b.ts": B_TS.replace('"./a"', '"./a.ts"'),
  });
  const c = start(root);
  const refs = await ok(c, "code_nav", { operation: "references", path: "a.ts", symbol: "greet" });
  assert.match(refs.text, /^deno lsp: 4 results/);
});

test("C (clangd): definition across files", {
  skip: POSIX.skip ??
    (findProgram("clangd", "/", "/")
      ? false
      : "clangd is not installed (.ci/run installs it with apt)"),
}, async () => {
  const root = project("c", {
    "compile_flags.txt": "-xc\n",
    "lib.h": "int twice(int x);\n",
    "lib.c": '#include "lib.h"\nint twice(int x) { return 2 * x; }\n',
    "main.c": '#include "lib.h"\nint main(void) { return twice(2); }\n',
  });
  const c = start(root);
  const def = await ok(c, "code_nav", {
    operation: "definition",
    path: "main.c",
    line: 2,
    column: 25,
  });
  assert.match(def.text, /^clangd: 1 result\nlib\.h:1:5/);
});

test(
  "a language without its server installed: said plainly, with how to install it",
  POSIX,
  async () => {
    const root = project("go", { "go.mod": "module x\n", "main.go": "package main\n" });
    // The system directories only: gopls, when this machine has it, lives elsewhere.
    const c = startOn(e2e, root, [], { PATH: "/usr/local/bin:/usr/bin:/bin" });
    const first = await call(c, "code_nav", { operation: "definition", path: "main.go", line: 1 });
    assert.equal(first.isError, true);
    assert.match(first.text, /No Go language server was found for main\.go/);
    assert.match(first.text, /go install golang\.org\/x\/tools\/gopls/);
    assert.match(first.text, /`symbols` tool/);
  },
);

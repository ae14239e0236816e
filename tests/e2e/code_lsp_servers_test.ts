/**
 * The language servers beyond the ones npm pins, each really run through the compiled binary
 * inside the command sandbox (the `language-server` kind): gopls, rust-analyzer with cargo check
 * on save, and TypeScript 7's `tsc --lsp`. A test skips, saying why, where this machine lacks
 * the server (.ci/run installs each, pinned). Assertions are about what is said, never about how
 * fast: a query waits for the server to load the project (code.query_wait_seconds), an edit's
 * reply for its diagnostics (tests/helpers/code_servers.ts's PATIENT).
 */
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import {
  missing,
  ok,
  PATIENT,
  project,
  SERVER_PATH,
  startOn,
  TS7_DIR,
} from "../helpers/code_servers.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const POSIX = posixOnly("the servers are found through a POSIX PATH");
const e2e = e2eFixture();

function start(root: string, env: Record<string, string> = {}) {
  const c = startOn(e2e, root, [], { ...PATIENT, ...env });
  return c;
}

const skipUnless = (server: Parameters<typeof missing>[0]) => ({
  skip: POSIX.skip ?? missing(server),
});

const GO_FILES = {
  "go.mod": "module example.com/shop\n\ngo 1.21\n",
  "price.go": "package shop\n\n// Price is what a thing costs.\nfunc Price(n int) int {\n" +
    "\treturn n * 3\n}\n",
  "use.go": "package shop\n\nfunc Total() int {\n\treturn Price(1) + Price(2)\n}\n",
};

test(
  "Go (gopls): references across files, and the error an edit introduces",
  skipUnless("gopls"),
  async () => {
    const root = project("go-real", GO_FILES);
    const c = start(root);
    // The first question, right after start: gopls answers once it has loaded the package.
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "price.go",
      symbol: "Price",
    });
    assert.match(refs.text, /^gopls: 3 results/, refs.text);
    assert.match(refs.text, /use\.go \(2\): 4:9, 4:20/);
    assert.equal(refs.structured?.incomplete, undefined);
    const broke = await ok(c, "edit_file", {
      path: "use.go",
      edits: [{ old_string: "Price(1)", new_string: 'Price("one")' }],
    });
    assert.match(
      broke.text,
      /diagnostics \(gopls\): this edit introduced 1 error\nuse\.go:4:15 error/,
    );
    const fixed = await ok(c, "edit_file", {
      path: "use.go",
      edits: [{ old_string: 'Price("one")', new_string: "Price(1)" }],
    });
    assert.match(fixed.text, /diagnostics \(gopls\): no new errors; 1 fixed/);
  },
);

const CARGO_TOML =
  '[package]\nname = "shop"\nversion = "0.1.0"\nedition = "2021"\n\n[dependencies]\n';
const LIB_RS =
  "pub mod util;\n\npub fn total() -> u32 {\n    util::compute_total(2) + util::compute_total(3)\n}\n";
const UTIL_RS = "pub fn compute_total(n: u32) -> u32 {\n    n * 2\n}\n";

test(
  "Rust (rust-analyzer): the first references wait for indexing, and cargo check's errors follow a save (issue 34, items 1 and 4)",
  skipUnless("rust-analyzer"),
  async () => {
    const root = project("rs-real", {
      "Cargo.toml": CARGO_TOML,
      "src/lib.rs": LIB_RS,
      "src/util.rs": UTIL_RS,
    });
    const c = start(root);
    // Asked at once, while rust-analyzer indexes: never "0 references" nor "no symbol".
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "src/util.rs",
      symbol: "compute_total",
    });
    assert.match(refs.text, /^rust-analyzer: 3 results/, refs.text);
    assert.match(refs.text, /src\/lib\.rs \(2\)/);
    // An error only rustc finds (cargo check, run on save, in the sandbox: target/ in the
    // project, written under workspace-write): a value used after it was moved. rust-analyzer
    // finds a type mismatch (`let _n: u32 = "oops"`) itself, without the check, so that one
    // would not show that the save was heard.
    const broke = await ok(c, "edit_file", {
      path: "src/util.rs",
      edits: [{
        old_string: "    n * 2\n",
        new_string: "    struct Token;\n    let a = Token;\n    let _b = a;\n    let _c = a;\n" +
          "    n * 2\n",
      }],
    });
    assert.doesNotMatch(broke.text, /no new errors/, broke.text);
    assert.match(broke.text, /this edit introduced 1 error\nsrc\/util\.rs:5:14 error \[E0382\]/);
    assert.ok(existsSync(join(root, "target")), "cargo check wrote target/ in the project");
    const listed = await ok(c, "code_nav", { operation: "diagnostics", path: "src/util.rs" });
    assert.match(listed.text, /src\/util\.rs:5:14 error \[E0382\]/, listed.text);
  },
);

test(
  "Rust (rust-analyzer): a project it could not load whole makes its answers incomplete (issue 34, item 1)",
  skipUnless("rust-analyzer"),
  async () => {
    const root = project("rs-no-std", {
      "Cargo.toml": CARGO_TOML,
      "src/lib.rs":
        "pub mod util;\n\npub fn all() -> Vec<u32> {\n    vec![util::compute_total(1)]\n}\n",
      "src/util.rs": UTIL_RS,
    });
    // An empty cargo home, offline: the standard library's own dependencies cannot be had, so
    // rust-analyzer loads the project without it, and misses the use inside `vec![…]`.
    const c = start(root, { CARGO_HOME: project("rs-empty-cargo-home", {}) });
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "src/util.rs",
      symbol: "compute_total",
    });
    const said = /rust-analyzer could not load all of the project \((warning|error): [^)]*sysroot/;
    assert.match(
      refs.text,
      new RegExp(`^rust-analyzer: \\d+ results?\nincomplete: ${said.source}`),
    );
    assert.match(String(refs.structured?.incomplete), said);
  },
);

test(
  "TypeScript 7 (tsc --lsp): chosen when the tsc found is TypeScript 7, and answers",
  skipUnless("ts7"),
  async () => {
    const root = project("ts7", {
      "tsconfig.json": "{}",
      "a.ts": "export function greet(name: string): string {\n  return `hi ${name}`;\n}\n",
      "b.ts":
        'import { greet } from "./a";\nconst x: string = greet("b");\nconsole.log(greet(x));\n',
    });
    const c = start(root, { PATH: `${join(TS7_DIR, "node_modules", ".bin")}:${SERVER_PATH}` });
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "a.ts",
      symbol: "greet",
    });
    assert.match(refs.text, /^tsc --lsp \(TypeScript 7\): 4 results/, refs.text);
    const def = await ok(c, "code_nav", {
      operation: "definition",
      path: "b.ts",
      line: 2,
      column: 19,
    });
    assert.match(def.text, /a\.ts:1:17/);
    await ok(c, "code_nav", { operation: "diagnostics", path: "b.ts" });
    const broke = await ok(c, "edit_file", {
      path: "b.ts",
      edits: [{ old_string: 'greet("b")', new_string: "greet(1)" }],
    });
    assert.match(
      broke.text,
      /diagnostics \(tsc --lsp \(TypeScript 7\)\): this edit introduced 1 error\nb\.ts:2:25 error/,
    );
  },
);

test(
  "Python (pyright): the first references, asked at once, hold every file (issue 34, item 1); " +
    "its configuration is read once, its settings pulled",
  POSIX,
  async () => {
    const files: Record<string, string> = {
      "pyproject.toml": "[project]\nname = 'p'\n",
      "lib.py": "def shared(n: int) -> int:\n    return n * 2\n",
    };
    for (let i = 0; i < 20; i++) {
      files[`m${i}.py`] = `from lib import shared\n\nv${i} = shared(${i})\n`;
    }
    const c = start(project("py-first", files), { TOOLHOST_LSP_TRACE: "1" });
    const refs = await ok(c, "code_nav", {
      operation: "references",
      path: "lib.py",
      line: 1,
      column: 5,
    });
    assert.match(refs.text, /^pyright: 41 results\n41 references in 21 files/, refs.text);
    // Settings sent as well as asked for made pyright load its configuration (and run the
    // Python interpreter) twice before it listed the project's files.
    assert.equal(c.stderr.match(/"message":"Loading pyproject\.toml file at /g)?.length, 1);
    assert.match(
      c.stderr,
      /lsp > [\d.]+ \{"jsonrpc":"2\.0","id":\d+,"result":\[\{"analysis":\{"diagnosticMode":"openFilesOnly"\}\}\]\}/,
    );
  },
);

/** A function re-exported by b.ts and used through it by c.ts. */
const REEXPORTED = {
  "tsconfig.json": "{}",
  "a.ts": "export function isInside(n: number): boolean {\n  return n > 0;\n}\n",
  "b.ts": 'export { isInside } from "./a";\n',
  "c.ts": 'import { isInside } from "./b";\nconsole.log(isInside(1), isInside(2));\n',
};

for (
  const [label, ts7] of [
    ["typescript-language-server", false],
    ["tsc --lsp (TypeScript 7)", true],
  ] as const
) {
  test(
    `${label}: renaming a re-exported function renames every use, never writes an alias`,
    ts7 ? skipUnless("ts7") : POSIX,
    async () => {
      const root = project("ts-reexport", REEXPORTED);
      const bin = ts7 ? `${join(TS7_DIR, "node_modules", ".bin")}:` : "";
      const c = start(root, { PATH: `${bin}${SERVER_PATH}` });
      const renamed = await ok(c, "rename_symbol", {
        path: "a.ts",
        symbol: "isInside",
        new_name: "isWithin",
      });
      assert.match(renamed.text, /5 edits in 3 files/, renamed.text);
      assert.equal(readFileSync(join(root, "b.ts"), "utf8"), 'export { isWithin } from "./a";\n');
      assert.equal(
        readFileSync(join(root, "c.ts"), "utf8"),
        'import { isWithin } from "./b";\nconsole.log(isWithin(1), isWithin(2));\n',
      );
      assert.match(renamed.text, /no new errors/, renamed.text);
    },
  );
}

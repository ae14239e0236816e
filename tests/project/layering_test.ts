/**
 * The layering holds by itself: every import in main.ts, mcp/, tools/, config/ and scripts/ is
 * read and checked against docs/architecture.md's rules (tests/project/layering.ts). The checker is
 * shown to fail on made-up graphs breaking each rule.
 */
import assert from "node:assert/strict";
import { fileURLToPath } from "node:url";
import { test } from "node:test";
import {
  circles,
  type ImportEdge,
  layeringProblems,
  parseImports,
  projectImports,
  reservedIn,
  reservedUses,
} from "./layering.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

test("the project's imports have no circle, no upward arrow and no private reach", () => {
  const edges = projectImports(ROOT);
  // The graph is really read: main.ts reaches the barrel, a tool reaches the sandbox's face.
  assert.ok(edges.some((e) => e.from === "main.ts" && e.to.startsWith("tools/")));
  assert.ok(
    edges.some((e) => e.from.startsWith("tools/files/") && e.to === "tools/_lib/sandbox/mod.ts"),
  );
  assert.ok(edges.some((e) => e.from.startsWith("tools/files/") && e.to === "mcp/tool/mod.ts"));
  const problems = layeringProblems(edges);
  assert.deepEqual(problems, [], `the layering is broken:\n  ${problems.join("\n  ")}`);
});

test("only the sandbox decides which root holds a path; only the edit transaction writes files", () => {
  const problems = reservedUses(ROOT);
  assert.deepEqual(problems, [], `reserved work done elsewhere:\n  ${problems.join("\n  ")}`);
});

test("a root prefix check, raw no-follow flags or an atomic write of one's own is named", () => {
  const cases: [string, RegExp][] = [
    ['if (file.startsWith(root + "/")) return;', /prefix of its own; ask the sandbox/],
    ["real.startsWith(top.endsWith(sep) ? top : top + sep)", /prefix of its own/],
    ["const flags = O_RDONLY | O_NOFOLLOW;", /opens files with flags of its own/],
    ["await writeFileAtomic(real, bytes, sandbox);", /write through the edit transaction/],
    ["{ beforeRename: () => ctx.writes.replacing() }", /write through the edit transaction/],
  ];
  for (const [line, message] of cases) {
    const problems = reservedIn("tools/code/x.ts", `const a = 1;\n${line}\n`);
    assert.equal(problems.length, 1, line);
    assert.match(problems[0], /^tools\/code\/x\.ts:2 /);
    assert.match(problems[0], message);
  }
  // At home, and in comments, they are what they should be.
  assert.deepEqual(reservedIn("tools/_lib/sandbox/_sandbox.ts", 'x.startsWith(root + "/");'), []);
  assert.deepEqual(reservedIn("tools/_lib/transaction/_x.ts", "writeFileAtomic(a, b);"), []);
  assert.deepEqual(reservedIn("tools/code/x.ts", " * writeFileAtomic is the transaction's"), []);
  assert.deepEqual(reservedIn("tools/code/x.ts", 'typed.startsWith("/")'), []);
});

const edge = (from: string, to: string, typeOnly = false): ImportEdge => ({ from, to, typeOnly });

test("a circle is found and named, file by file", () => {
  const graph = [
    edge("tools/a/x.ts", "tools/a/y.ts"),
    edge("tools/a/y.ts", "tools/a/z.ts"),
    edge("tools/a/z.ts", "tools/a/x.ts"),
    edge("tools/a/z.ts", "mcp/tool/mod.ts"),
  ];
  assert.deepEqual(circles(graph), [[
    "tools/a/x.ts",
    "tools/a/y.ts",
    "tools/a/z.ts",
    "tools/a/x.ts",
  ]]);
  const problems = layeringProblems(graph);
  assert.equal(problems.length, 1);
  assert.match(
    problems[0],
    /import circle: tools\/a\/x\.ts -> tools\/a\/y\.ts -> tools\/a\/z\.ts -> tools\/a\/x\.ts/,
  );
});

test("an arrow back up the layers is refused, naming both files", () => {
  const cases: [ImportEdge, RegExp][] = [
    [
      edge("mcp/server.ts", "tools/mod.ts"),
      /mcp\/server\.ts imports tools\/mod\.ts: mcp may import only mcp, config/,
    ],
    [edge("mcp/server.ts", "main.ts", true), /mcp may import only/],
    [edge("config/settings.ts", "mcp/tool/tool.ts", true), /config may import only config/],
    [edge("tools/files/read_file.ts", "main.ts"), /tools may import only tools, mcp, config/],
    [
      edge("tools/files/read_file.ts", "config/settings.ts"),
      /imports values from config\/settings\.ts/,
    ],
  ];
  for (const [broken, message] of cases) {
    const problems = layeringProblems([broken]);
    assert.equal(problems.length, 1, JSON.stringify(broken));
    assert.match(problems[0], message);
  }
  // What the rules allow.
  assert.deepEqual(
    layeringProblems([
      edge("tools/files/read_file.ts", "config/settings.ts", true),
      edge("tools/files/read_file.ts", "config/quote.ts"),
      edge("tools/search/grep.ts", "config/suggest.ts"),
      edge("main.ts", "tools/mod.ts"),
      edge("scripts/bench.ts", "main.ts"),
      edge("mcp/tool/tool.ts", "config/quote.ts"),
    ]),
    [],
  );
});

test("a family using another family's _lib, or tools/_lib using a family, is refused", () => {
  assert.match(
    layeringProblems([edge("tools/web/fetch_url.ts", "tools/files/_lib/line_scan.ts")])[0],
    /the web family uses the files family's _lib; move what both need into tools\/_lib\//,
  );
  assert.match(
    layeringProblems([edge("tools/_lib/state.ts", "tools/journal/_lib/recorder.ts")])[0],
    /tools\/_lib\/ is shared by the families and imports none of them/,
  );
  assert.deepEqual(
    layeringProblems([
      edge("tools/web/fetch_url.ts", "tools/web/_lib/http/http_get.ts"),
      edge("tools/web/fetch_url.ts", "tools/_lib/text/units.ts"),
    ]),
    [],
  );
});

test("tools/_catalog/ takes from every family, and no family or tools/_lib takes from it", () => {
  assert.match(
    layeringProblems([edge("tools/files/read_file.ts", "tools/_catalog/icons.ts")])[0],
    /tools\/_catalog\/ assembles what a session offers from the families and stands above them/,
  );
  assert.match(
    layeringProblems([edge("tools/_lib/state.ts", "tools/_catalog/profiles.ts", true)])[0],
    /only main\.ts and scripts\/ import it/,
  );
  assert.deepEqual(
    layeringProblems([
      edge("tools/_catalog/assemble.ts", "tools/mod.ts"),
      edge("tools/_catalog/assemble.ts", "tools/shell/_lib/custom_tools.ts"),
      edge("tools/_catalog/assemble.ts", "tools/_catalog/tool_filter.ts"),
      edge("main.ts", "tools/_catalog/assemble.ts"),
    ]),
    [],
  );
});

test("a package's private file is reached only through its mod.ts from outside", () => {
  assert.match(
    layeringProblems([edge("tools/files/read_file.ts", "tools/_lib/sandbox/_sandbox.ts")])[0],
    /private to tools\/_lib\/sandbox\/: import tools\/_lib\/sandbox\/mod\.ts instead/,
  );
  assert.deepEqual(
    layeringProblems([
      edge("tools/files/read_file.ts", "tools/_lib/sandbox/mod.ts"),
      edge("tools/_lib/sandbox/mod.ts", "tools/_lib/sandbox/_sandbox.ts"),
      edge("tools/_lib/sandbox/_atomic_write.ts", "tools/_lib/sandbox/_beneath.ts"),
    ]),
    [],
  );
});

test("from outside, a package is imported through its mod.ts; inside mcp/ directly", () => {
  const face = edge("mcp/tool/mod.ts", "mcp/tool/tool.ts");
  assert.match(
    layeringProblems([face, edge("tools/files/read_file.ts", "mcp/tool/tool.ts")])[0],
    /imports mcp\/tool\/tool\.ts, behind the face of mcp\/tool\/: import mcp\/tool\/mod\.ts/,
  );
  assert.match(
    layeringProblems([
      edge("main.ts", "mcp/server/service.ts"),
      edge("mcp/server/mod.ts", "mcp/server/service.ts"),
    ])[0],
    /behind the face of mcp\/server\//,
  );
  // A package inside another is reached through its own face, and only through it.
  const inner = edge("mcp/tool/schema/mod.ts", "mcp/tool/schema/schema.ts");
  assert.match(
    layeringProblems([face, inner, edge("tools/shell/x.ts", "mcp/tool/schema/schema.ts")])[0],
    /behind the face of mcp\/tool\/schema\/: import mcp\/tool\/schema\/mod\.ts instead/,
  );
  assert.deepEqual(
    layeringProblems([
      face,
      inner,
      edge("tools/shell/x.ts", "mcp/tool/schema/mod.ts"),
      edge("tools/files/read_file.ts", "mcp/tool/mod.ts"),
      edge("mcp/features/tool_catalog.ts", "mcp/tool/call.ts"),
      edge("mcp/tool/call.ts", "mcp/tool/tasks/store.ts"),
    ]),
    [],
  );
});

test("mcp/'s packages import only those beneath them", () => {
  const cases: [ImportEdge, RegExp][] = [
    [
      edge("mcp/wire/jsonrpc.ts", "mcp/server/connection.ts", true),
      /mcp\/wire\/ may not import mcp\/server\/ \(mcp\/'s packages are layered wire -> tool/,
    ],
    [edge("mcp/tool/tool.ts", "mcp/features/resource.ts"), /mcp\/tool\/ may not import/],
    [edge("mcp/http/session.ts", "mcp/stdio/lines.ts"), /mcp\/http\/ may not import mcp\/stdio\//],
  ];
  for (const [broken, message] of cases) {
    const problems = layeringProblems([broken]);
    assert.equal(problems.length, 1, JSON.stringify(broken));
    assert.match(problems[0], message);
  }
  assert.deepEqual(
    layeringProblems([
      edge("mcp/stdio/stdio.ts", "mcp/server/connection.ts", true),
      edge("mcp/http/transport.ts", "mcp/server/connect.ts"),
      edge("mcp/server/service.ts", "mcp/features/tool_catalog.ts"),
      edge("mcp/features/resource.ts", "mcp/tool/tool.ts", true),
      edge("mcp/tool/tool.ts", "mcp/wire/log.ts", true),
    ]),
    [],
  );
});

test("imports are read from statements, not from examples in comments or strings", () => {
  const text = [
    "/**",
    " * @example",
    ' * import { Sandbox } from "../_lib/sandbox/_sandbox.ts";',
    " */",
    'import type { Settings } from "../../config/settings.ts";',
    'import { type A, type B } from "./types.ts";',
    'import process from "node:process";',
    "import {",
    "  one,",
    "  type Two,",
    '} from "./both.ts";',
    'export { x } from "./x.ts";',
    'const lazy = await import("./lazy.ts");',
    "const fixture = \"import { y } from './y.ts';\";",
  ].join("\n");
  assert.deepEqual(parseImports("tools/files/f.ts", text), [
    edge("tools/files/f.ts", "config/settings.ts", true),
    edge("tools/files/f.ts", "tools/files/types.ts", true),
    edge("tools/files/f.ts", "tools/files/both.ts", false),
    edge("tools/files/f.ts", "tools/files/x.ts", false),
    edge("tools/files/f.ts", "tools/files/lazy.ts", false),
  ]);
});

/**
 * The one table of languages: every extension tier 1 parses is in it once, with the language id
 * a server is told; the server chosen for a file follows the table (project markers, Deno beside
 * TypeScript), and where no program of the project may run (read-only) the project's own
 * node_modules/.bin is never chosen.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import {
  GRAMMARS,
  KNOWN_EXTENSIONS,
  languageFor,
  LANGUAGES,
  RULES,
} from "../../tools/code/_lib/languages/mod.ts";
import { chooseServer, type ServerChoice } from "../../tools/code/_lib/lsp/mod.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const POSIX = posixOnly("the fake programs are shell scripts found through PATH");

function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-languages-")));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
    if (content.startsWith("#!")) chmodSync(join(root, path), 0o755);
  }
  return root;
}

test("every extension belongs to one language, with a grammar, symbols and a server id", () => {
  const seen = new Set<string>();
  for (const language of LANGUAGES) {
    for (const [extension, id] of Object.entries(language.extensions)) {
      assert.match(extension, /^\.[a-z+]+$/);
      assert.ok(!seen.has(extension), `${extension} is listed twice`);
      seen.add(extension);
      assert.ok(id.length > 0);
    }
    assert.equal(GRAMMARS[language.id], language.grammar);
    assert.equal(RULES[language.id], language.symbols);
  }
  assert.deepEqual([...seen].sort(), [...KNOWN_EXTENSIONS].sort());
  // What the three lists used to disagree on.
  assert.equal(languageFor("x.c++")?.servers[0]?.id, "clangd");
  assert.equal(languageFor("x.hxx")?.extensions[".hxx"], "cpp");
  assert.equal(languageFor("x.jsx")?.extensions[".jsx"], "javascriptreact");
  assert.deepEqual(languageFor("X.java")?.servers, []);
});

test(
  "the server for a file: markers find the root, deno.json nearer than tsconfig picks deno",
  POSIX,
  () => {
    const bin = tree({ "deno": "#!/bin/sh\n", "clangd": "#!/bin/sh\n" });
    const root = tree({
      "web/tsconfig.json": "{}",
      "web/src/a.ts": "",
      "web/tool/deno.json": "{}",
      "web/tool/b.ts": "",
      "native/compile_flags.txt": "",
      "native/src/x.c++": "",
    });
    const saved = process.env.PATH;
    process.env.PATH = `${bin}:/usr/bin:/bin`;
    try {
      const rules = { configured: {}, projectPrograms: true };
      const deno = chooseServer(join(root, "web/tool/b.ts"), root, rules) as ServerChoice;
      assert.equal(deno.id, "deno");
      assert.equal(deno.root, join(root, "web/tool"));
      const ts = chooseServer(join(root, "web/src/a.ts"), root, rules);
      assert.ok(ts && "install" in ts && /TypeScript\/JavaScript/.test(ts.language));
      const c = chooseServer(join(root, "native/src/x.c++"), root, rules) as ServerChoice;
      assert.equal(c.id, "clangd");
      assert.equal(c.root, join(root, "native"));
      assert.equal(c.languageId, "cpp");
      assert.equal(chooseServer(join(root, "A.java"), root, rules), undefined);
    } finally {
      process.env.PATH = saved;
    }
  },
);

test(
  "read-only: the project's node_modules/.bin is never chosen, nor a PATH entry inside it",
  POSIX,
  () => {
    const bin = tree({ "gopls": "#!/bin/sh\n" });
    const root = tree({
      "go.mod": "module x\n",
      "main.go": "package main\n",
      "node_modules/.bin/gopls": "#!/bin/sh\necho hostile\n",
      "tools/gopls": "#!/bin/sh\necho hostile\n",
    });
    const saved = process.env.PATH;
    process.env.PATH = `${join(root, "tools")}:${bin}:/usr/bin:/bin`;
    try {
      const main = join(root, "main.go");
      const trusting = chooseServer(main, root, { configured: {}, projectPrograms: true });
      assert.equal((trusting as ServerChoice).command, join(root, "node_modules/.bin/gopls"));
      const careful = chooseServer(main, root, { configured: {}, projectPrograms: false });
      assert.equal((careful as ServerChoice).command, join(bin, "gopls"));
      assert.equal((careful as ServerChoice).env?.GOTOOLCHAIN, "local");
    } finally {
      process.env.PATH = saved;
    }
  },
);

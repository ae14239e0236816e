/** edit_file through the compiled binary, in a temporary root. */
import assert from "node:assert/strict";
import {
  chmodSync,
  readFileSync,
  realpathSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { callTool } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

function setup() {
  const { root, client } = e2e.start();
  return { root, c: client };
}

test("an edit replaces exactly one occurrence and shows a unified diff", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "a.ts"), "const a = 1;\nconst b = 2;\nconst c = 3;\n");
  const result = await callTool(c, "edit_file", {
    path: "a.ts",
    edits: [{ old_string: "const b = 2;", new_string: "const b = 20;" }],
  });
  assert.equal(result.isError, false, result.text);
  assert.equal(
    readFileSync(join(root, "a.ts"), "utf8"),
    "const a = 1;\nconst b = 20;\nconst c = 3;\n",
  );
  assert.match(
    result.text,
    /^Edited a\.ts: 1 replacement\n\n--- a\/a\.ts\n\+\+\+ b\/a\.ts\n@@ -1,3 \+1,3 @@\n const a = 1;\n-const b = 2;\n\+const b = 20;\n const c = 3;/,
  );
  assert.deepEqual(result.data, { path: "a.ts", replacements: 1, written: true });
});

test("several edits apply in order; replace_all replaces every occurrence", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "b.txt"), "x = old\ny = old\nz = keep\n");
  const result = await callTool(c, "edit_file", {
    path: "b.txt",
    edits: [
      { old_string: "old", new_string: "new", replace_all: true },
      { old_string: "z = keep", new_string: "z = new" },
    ],
  });
  assert.equal(result.isError, false, result.text);
  assert.equal(readFileSync(join(root, "b.txt"), "utf8"), "x = new\ny = new\nz = new\n");
  assert.equal(result.data?.replacements, 3);
});

test("an ambiguous edit is refused with every line it matches; nothing is written", async () => {
  const { root, c } = setup();
  const original = "if (x) {\n  return;\n}\nif (y) {\n  return;\n}\n";
  writeFileSync(join(root, "c.js"), original);
  const result = await callTool(c, "edit_file", {
    path: "c.js",
    edits: [{ old_string: "  return;", new_string: "  return 1;" }],
  });
  assert.equal(result.isError, true);
  assert.match(result.text, /old_string appears 2 times \(at lines 2, 5\)/);
  assert.equal(readFileSync(join(root, "c.js"), "utf8"), original);
});

test("all or nothing: when a later edit fails, the earlier ones are not written either", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "d.txt"), "alpha\nbeta\n");
  const result = await callTool(c, "edit_file", {
    path: "d.txt",
    edits: [{ old_string: "alpha", new_string: "ALPHA" }, {
      old_string: "gamma",
      new_string: "GAMMA",
    }],
  });
  assert.equal(result.isError, true);
  assert.match(
    result.text,
    /^edit 2 of 2 failed, so no edit was applied to d\.txt: old_string was not found/,
  );
  assert.equal(readFileSync(join(root, "d.txt"), "utf8"), "alpha\nbeta\n");
});

test("a missing old_string points at the closest lines", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "e.py"), "def total(price, quantity):\n    return price * quantity\n");
  const result = await callTool(c, "edit_file", {
    path: "e.py",
    edits: [{ old_string: "def totl(price, quantity):", new_string: "x" }],
  });
  assert.equal(result.isError, true);
  assert.match(
    result.text,
    /closest places in the file \(similarity of the text, 100% = identical\) are:\nlines 1-1, 9\d% similar:\n {5}1\tdef total\(price, quantity\):/,
  );
});

test("an old_string that matches once with whitespace ignored is applied in the file's indentation", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "w.py"), "class A:\n\tdef f(self):\n\t\treturn  1\r\n\nx = 1\n");
  const result = await callTool(c, "edit_file", {
    path: "w.py",
    edits: [{
      old_string: "    def f(self):\n        return 1",
      new_string: "    def f(self):\n        y = 2\n        return y",
    }],
  });
  assert.equal(result.isError, false, result.text);
  assert.match(
    result.text,
    /^Edited w\.py: 1 replacement\nNote: old_string matched lines 2-3 only with whitespace ignored; applied there in the file's own indentation and line endings\./,
  );
  assert.deepEqual(result.data, {
    path: "w.py",
    replacements: 1,
    written: true,
    ignoredWhitespace: [1],
  });
  assert.equal(
    readFileSync(join(root, "w.py"), "utf8"),
    "class A:\n\tdef f(self):\n\t\ty = 2\n\t\treturn y\r\n\nx = 1\n",
  );
  // Two places alike but for whitespace: refused, both shown.
  writeFileSync(join(root, "two.txt"), "  a  b\n\ta b\n");
  const both = await callTool(c, "edit_file", {
    path: "two.txt",
    edits: [{ old_string: "a\tb", new_string: "q" }],
  });
  assert.equal(both.isError, true);
  assert.match(
    both.text,
    /with whitespace ignored it matches 2 places \(100% similar\), at lines 1, 2/,
  );
});

test("CRLF files stay CRLF, with or without \\r in the edit; a BOM stays", async () => {
  const { root, c } = setup();
  const path = join(root, "win.txt");
  writeFileSync(path, "\uFEFFline one\r\nline two\r\nline three\r\n");
  const first = await callTool(c, "edit_file", {
    path: "win.txt",
    edits: [{ old_string: "line one\nline two", new_string: "line 1\nline 2" }],
  });
  assert.equal(first.isError, false, first.text);
  const second = await callTool(c, "edit_file", {
    path: "win.txt",
    edits: [{ old_string: "line three\r\n", new_string: "line 3\r\nline 4\r\n" }],
  });
  assert.equal(second.isError, false, second.text);
  assert.equal(readFileSync(path, "utf8"), "\uFEFFline 1\r\nline 2\r\nline 3\r\nline 4\r\n");
});

test("UTF-16 files keep their encoding and BOM", async () => {
  const { root, c } = setup();
  const path = join(root, "wide.txt");
  writeFileSync(
    path,
    Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("héllo wörld\n", "utf16le")]),
  );
  const result = await callTool(c, "edit_file", {
    path: "wide.txt",
    edits: [{ old_string: "wörld", new_string: "wêreld" }],
  });
  assert.equal(result.isError, false, result.text);
  const bytes = readFileSync(path);
  assert.deepEqual([...bytes.subarray(0, 2)], [0xff, 0xfe]);
  assert.equal(bytes.subarray(2).toString("utf16le"), "héllo wêreld\n");
});

test("$ patterns in new_string are literal", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "f.sh"), "echo NAME\n");
  await callTool(c, "edit_file", {
    path: "f.sh",
    edits: [{ old_string: "NAME", new_string: "$1 $& $$ $`" }],
  });
  assert.equal(readFileSync(join(root, "f.sh"), "utf8"), "echo $1 $& $$ $`\n");
});

test(
  "dry_run shows the diff and writes nothing; the file's mode is kept on a real edit",
  posixOnly("POSIX file modes (0751) are kept"),
  async () => {
    const { root, c } = setup();
    const path = join(root, "run.sh");
    writeFileSync(path, "#!/bin/sh\necho one\n");
    chmodSync(path, 0o751);
    const dry = await callTool(c, "edit_file", {
      path: "run.sh",
      dry_run: true,
      edits: [{ old_string: "one", new_string: "two" }],
    });
    assert.match(dry.text, /^Would edit run\.sh: 1 replacement \(dry run: nothing written\)/);
    assert.match(dry.text, /\+echo two/);
    assert.equal(readFileSync(path, "utf8"), "#!/bin/sh\necho one\n");
    await callTool(c, "edit_file", {
      path: "run.sh",
      edits: [{ old_string: "one", new_string: "two" }],
    });
    assert.equal(readFileSync(path, "utf8"), "#!/bin/sh\necho two\n");
    assert.equal(statSync(path).mode & 0o777, 0o751);
  },
);

test("edits through a symlink change the target and keep the link", async () => {
  const { root, c } = setup();
  writeFileSync(join(root, "real.txt"), "v1\n");
  symlinkSync(join(root, "real.txt"), join(root, "link.txt"));
  await callTool(c, "edit_file", {
    path: "link.txt",
    edits: [{ old_string: "v1", new_string: "v2" }],
  });
  assert.equal(readFileSync(join(root, "real.txt"), "utf8"), "v2\n");
  assert.ok(realpathSync(join(root, "link.txt")).endsWith("real.txt"));
});

test("refused: paths outside the root, missing files, binary files, invalid UTF-8, a no-op", async () => {
  const { root, c } = setup();
  symlinkSync("/etc", join(root, "etc"));
  writeFileSync(join(root, "bin"), Buffer.from([0, 1, 2, 3, 0x41]));
  writeFileSync(join(root, "latin1.txt"), Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]));
  writeFileSync(join(root, "same.txt"), "same\n");
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { path: "etc/hostname", edits: [{ old_string: "a", new_string: "b" }] },
      /outside the allowed roots/,
    ],
    [{ path: "../x", edits: [{ old_string: "a", new_string: "b" }] }, /outside the allowed roots/],
    [
      { path: "nope.txt", edits: [{ old_string: "a", new_string: "b" }] },
      /does not exist; create it with write_file/,
    ],
    [{ path: "bin", edits: [{ old_string: "A", new_string: "B" }] }, /binary file/],
    [{ path: "latin1.txt", edits: [{ old_string: "caf", new_string: "CAF" }] }, /not valid utf-8/],
    [
      { path: "same.txt", edits: [{ old_string: "same", new_string: "same" }] },
      /old_string and new_string are the same/,
    ],
    [
      { path: "same.txt", edits: [] },
      /edits must have at least 1 item\(s\), got an array of 0 items/,
    ],
  ];
  for (const [args, expected] of cases) {
    const result = await callTool(c, "edit_file", args);
    assert.equal(result.isError, true, JSON.stringify(args));
    assert.match(result.text, expected);
  }
});

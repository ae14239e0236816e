/** Gitignore rules: nested files and parents' rules combine as git combines them. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { IgnoreRules, nestedRule, rulesBelow } from "../tools/_lib/gitignore.ts";
import { Walk } from "../tools/_lib/walk.ts";

const git = (() => {
  try {
    execFileSync("git", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

/** A tree of files (path → content) in a fresh directory. */
function tree(files: Record<string, string>): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-gitignore-")));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), content);
  }
  return root;
}

const RULES_TREE = {
  ".gitignore":
    "*.log\n/build\ndocs/*.md\n!docs/keep.md\ntmp/\n**/cache/*.bin\nout/\n# a comment\n",
  "a.log": "",
  "keep/b.log": "",
  "build/x": "",
  "sub/build/x": "",
  "docs/a.md": "",
  "docs/keep.md": "",
  "docs/sub/c.md": "",
  "tmp/x": "",
  "sub/tmp/y": "",
  "x/cache/a.bin": "",
  "x/cache/a.txt": "",
  "out/o": "",
  "sub/out": "",
  "sub/.gitignore": "!*.log\nlocal.txt\n/only-here.txt\n",
  "sub/z.log": "",
  "sub/local.txt": "",
  "sub/deeper/local.txt": "",
  "sub/only-here.txt": "",
  "sub/deeper/only-here.txt": "",
  "[draft]/.gitignore": "secret\n",
  "[draft]/secret": "",
  "[draft]/ok": "",
  "#tmp/.gitignore": "x\n",
  "#tmp/x": "",
  "#tmp/y": "",
  "plain.txt": "",
};

async function walked(root: string, start: string): Promise<string[]> {
  const walk = new Walk({
    respectIgnores: true,
    rulesAbove: await IgnoreRules.above([root], start),
    maxEntries: 10_000,
    deadline: Date.now() + 10_000,
  });
  const files: string[] = [];
  for await (const entry of walk.entries(start)) if (entry.kind === "file") files.push(entry.rel);
  return files.sort();
}

function gitListing(cwd: string): string[] {
  const out = execFileSync("git", ["ls-files", "-z", "--others", "--exclude-standard"], {
    cwd,
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" },
    encoding: "utf8",
  });
  return out.split("\0").filter(Boolean).sort();
}

test(
  "a walk keeps exactly the files git does not ignore",
  { skip: !git && "git is not installed" },
  async () => {
    const root = tree(RULES_TREE);
    execFileSync("git", ["init", "-q"], { cwd: root });
    const expected = gitListing(root);
    assert.ok(expected.includes("sub/z.log") && !expected.includes("a.log"), expected.join(" "));
    assert.deepEqual(await walked(root, root), expected);
  },
);

test("a walk from a subdirectory honours its parents' rules as git does", {
  skip: !git && "git is not installed",
}, async () => {
  const root = tree(RULES_TREE);
  execFileSync("git", ["init", "-q"], { cwd: root });
  for (const sub of ["sub", "docs", "x"]) {
    assert.deepEqual(await walked(root, join(root, sub)), gitListing(join(root, sub)), sub);
  }
});

test("the expected files are kept and ignored (without git to compare with)", async () => {
  const root = tree(RULES_TREE);
  const files = await walked(root, root);
  for (const kept of ["sub/z.log", "sub/build/x", "docs/keep.md", "docs/sub/c.md", "sub/out"]) {
    assert.ok(files.includes(kept), kept);
  }
  for (const gone of ["a.log", "build/x", "docs/a.md", "sub/tmp/y", "x/cache/a.bin", "out/o"]) {
    assert.ok(!files.includes(gone), gone);
  }
  assert.ok(files.includes("[draft]/ok") && !files.includes("[draft]/secret"));
  assert.ok(files.includes("#tmp/y") && !files.includes("#tmp/x"));
});

test("a nested file's rules are rewritten relative to the walk's start", () => {
  assert.equal(nestedRule("*.log", "sub"), "sub/**/*.log");
  assert.equal(nestedRule("/only", "sub"), "sub/only");
  assert.equal(nestedRule("a/b/", "sub"), "sub/a/b/");
  assert.equal(nestedRule("!keep", "sub/x"), "!sub/x/**/keep");
  assert.equal(nestedRule("# comment", "sub"), undefined);
  assert.equal(nestedRule("x", "[draft]"), "\\[draft\\]/**/x");
});

test("a parent's rules are rewritten for a subdirectory, globs and ** included", () => {
  const inside = ["p", "s"];
  assert.deepEqual(rulesBelow("*.log", inside), ["*.log"]);
  assert.deepEqual(rulesBelow("/p/s/gen", inside), ["/gen"]);
  assert.deepEqual(rulesBelow("!/p/s/keep/", inside), ["!/keep/"]);
  assert.deepEqual(rulesBelow("/p/*/cache/", inside), ["/cache/"]);
  assert.deepEqual(rulesBelow("/p/**/deep", inside), ["/**/deep"]);
  assert.deepEqual(rulesBelow("**/s/x", inside), ["/**/s/x", "/x"]);
  assert.deepEqual(rulesBelow("/other/x", inside), []);
  // A rule that ends at the directory or above it: searching there on purpose still searches it.
  assert.deepEqual(rulesBelow("/p/s", inside), []);
  assert.deepEqual(rulesBelow("p/", inside), ["p/"]);
  assert.deepEqual(rulesBelow("#comment", inside), []);
});

test("no rules come from above the sandbox root", async () => {
  const top = tree({ ".gitignore": "*.txt\n", "root/sub/a.txt": "", "root/sub/b.md": "" });
  const root = join(top, "root");
  assert.deepEqual(await walked(root, join(root, "sub")), ["a.txt", "b.md"]);
  assert.deepEqual(await walked(top, join(root, "sub")), ["b.md"]);
});

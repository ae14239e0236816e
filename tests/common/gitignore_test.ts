/** Gitignore rules: nested files and parents' rules combine as git combines them. */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, realpathSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { IgnoreRules, nestedRule, rulesBelow } from "../../tools/_lib/walk/gitignore.ts";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { Walk } from "../../tools/_lib/walk/walk.ts";
import { posixOnly } from "../helpers/posix_only.ts";

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
  const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
  const walk = new Walk({
    respectIgnores: true,
    rules: await IgnoreRules.above(sandbox, start),
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

const RG_TREE = {
  ".gitignore": "*.log\nSecret.md\nbuild/\n",
  ".rgignore": "!important.log\n",
  "a.log": "",
  "secret.md": "",
  "build/x": "",
  "sub/.gitignore": "important.log\n!build/\n",
  "sub/important.log": "",
  "sub/other.log": "",
  "sub/build/y": "",
  "nested/.git/HEAD": "",
  "nested/.gitignore": "*.tmp\n",
  "nested/inner.log": "",
  "nested/skip.tmp": "",
  "nested/deeper/z.log": "",
};

const rg = (() => {
  try {
    execFileSync("rg", ["--version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
})();

test("a walk keeps exactly the files rg keeps: nested repositories, .rgignore first, case", {
  skip: !rg && "rg is not installed",
}, async () => {
  const root = tree(RG_TREE);
  const listed = execFileSync("rg", [
    "--files",
    "--no-config",
    "--hidden",
    "--no-require-git",
    "--no-ignore-parent",
    "--no-ignore-global",
    "--no-ignore-exclude",
    "--no-ignore-dot",
    "--glob=!.git",
  ], { cwd: root, encoding: "utf8" });
  const expected = listed.split("\n").filter(Boolean).sort();
  assert.ok(expected.includes("nested/inner.log") && expected.includes("secret.md"), listed);
  assert.deepEqual(await walked(root, root), expected);
});

test("nested repositories, .rgignore over .gitignore, and case-sensitive rules", async () => {
  const root = tree(RG_TREE);
  const files = await walked(root, root);
  // The outer *.log stops at nested/, which holds .git; nested/.gitignore still counts.
  assert.ok(files.includes("nested/inner.log") && files.includes("nested/deeper/z.log"));
  assert.ok(!files.includes("nested/skip.tmp"));
  // .rgignore wins over any .gitignore, however deep; sub/ re-includes build/.
  assert.ok(files.includes("sub/important.log") && !files.includes("sub/other.log"));
  assert.ok(files.includes("sub/build/y") && !files.includes("build/x"));
  // Rules are case-sensitive, as in git and rg.
  assert.ok(files.includes("secret.md") && !files.includes("a.log"));
  // From inside the nested repository, the outer repository's rules do not apply either.
  assert.deepEqual(await walked(root, join(root, "nested")), [
    ".gitignore",
    "deeper/z.log",
    "inner.log",
  ]);
});

test(
  "an ignore file that is a FIFO, a device, a link out of the roots or over 1 MB is skipped",
  posixOnly("makes a FIFO and reads /dev/null"),
  async () => {
    const top = tree({ "rules": "b.txt\n" });
    const root = join(top, "root");
    for (const dir of ["fifo", "zero", "out", "big", "in"]) {
      mkdirSync(join(root, dir), { recursive: true });
    }
    execFileSync("mkfifo", [join(root, "fifo/.gitignore")]);
    symlinkSync("/dev/zero", join(root, "zero/.gitignore"));
    symlinkSync(join(top, "rules"), join(root, "out/.gitignore"));
    writeFileSync(join(root, "big/.gitignore"), "x".repeat(1024 * 1024 + 1));
    writeFileSync(join(root, "in.rules"), "b.txt\n");
    symlinkSync(join(root, "in.rules"), join(root, "in/.gitignore"));
    for (const dir of ["fifo", "zero", "out", "big", "in"]) {
      writeFileSync(join(root, dir, "b.txt"), "");
    }
    const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
    const rules = await IgnoreRules.above(sandbox, root);
    const walk = new Walk({
      respectIgnores: true,
      rules,
      maxEntries: 100,
      deadline: Date.now() + 5_000,
    });
    const files: string[] = [];
    for await (const entry of walk.entries(root)) if (entry.kind === "file") files.push(entry.rel);
    assert.deepEqual(files.sort(), [
      "big/.gitignore",
      "big/b.txt",
      "fifo/b.txt",
      "in.rules",
      "out/b.txt",
      "zero/b.txt",
    ]);
    assert.deepEqual(rules.skipped.map((s) => `${s.path.slice(root.length + 1)} ${s.why}`), [
      "big/.gitignore is 1.0 MB, over the 1.0 MB limit for ignore files",
      "fifo/.gitignore is a FIFO (named pipe), not a regular file",
      `out/.gitignore is a symbolic link to ${top}/rules, outside the allowed roots`,
      "zero/.gitignore is a symbolic link to /dev/zero, outside the allowed roots",
    ]);
  },
);

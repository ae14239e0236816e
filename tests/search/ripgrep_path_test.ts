/** Where grep finds rg: PATH first, then beside the running executable, then nowhere. */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { locateRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";

/** A runnable stand-in called `name` in a new directory `dir` below `top`. */
function standIn(top: string, dir: string, name = "rg"): string {
  mkdirSync(join(top, dir), { recursive: true });
  const file = join(top, dir, name);
  writeFileSync(file, "#!/bin/sh\nexit 1\n");
  chmodSync(file, 0o755);
  return file;
}

const top = mkdtempSync(join(tmpdir(), "toolhost-rgpath-"));
const onPath = standIn(top, "path-bin");
const beside = standIn(top, "release");
const execPath = join(top, "release", "toolhost");
const linux = { platform: "linux", execPath };

test("an rg on PATH comes first, even with one beside the executable", () => {
  const path = `${join(top, "empty")}:${join(top, "path-bin")}`;
  assert.equal(locateRipgrep({ ...linux, path }), onPath);
});

test("without one on PATH, the rg beside the executable is used", () => {
  assert.equal(locateRipgrep({ ...linux, path: join(top, "empty") }), beside);
  assert.equal(locateRipgrep({ ...linux, path: undefined }), beside);
});

test("where install.sh put it, beside the executable as toolhost-rg, it is used after rg", () => {
  const installed = standIn(top, "bin", "toolhost-rg");
  const execPath = join(top, "bin", "toolhost");
  assert.equal(locateRipgrep({ platform: "linux", execPath, path: join(top, "empty") }), installed);
  const both = standIn(top, "bin", "rg");
  assert.equal(locateRipgrep({ platform: "linux", execPath, path: join(top, "empty") }), both);
  const path = join(top, "path-bin");
  assert.equal(locateRipgrep({ platform: "linux", execPath, path }), onPath);
});

test("with neither, there is no rg (grep's built-in search answers)", () => {
  const execPath = join(top, "path-less", "deno");
  assert.equal(locateRipgrep({ platform: "linux", execPath, path: join(top, "empty") }), undefined);
});

test("a file named rg that cannot be run is passed over", () => {
  const file = standIn(top, "not-runnable");
  chmodSync(file, 0o644);
  const path = `${join(top, "not-runnable")}:${join(top, "path-bin")}`;
  assert.equal(locateRipgrep({ ...linux, path }), onPath);
});

test("a relative PATH entry (a repository's node_modules/.bin, `.`) is passed over", () => {
  const here = process.cwd();
  process.chdir(top);
  try {
    assert.equal(locateRipgrep({ ...linux, path: `path-bin:.:${join(top, "empty")}` }), beside);
  } finally {
    process.chdir(here);
  }
});

test("on Windows it looks for rg.exe, in a ;-separated PATH, then beside toolhost.exe", () => {
  const looked: string[] = [];
  const runnable = (file: string) => {
    looked.push(file);
    return file.startsWith("C:\\Program Files");
  };
  const found = locateRipgrep({
    platform: "win32",
    path: "C:\\Tools;D:\\bin",
    execPath: "C:\\Program Files\\toolhost\\toolhost.exe",
    runnable,
  });
  assert.deepEqual(looked, [
    "C:\\Tools\\rg.exe",
    "D:\\bin\\rg.exe",
    "C:\\Program Files\\toolhost\\rg.exe",
  ]);
  assert.equal(found, "C:\\Program Files\\toolhost\\rg.exe");
  looked.length = 0;
  assert.equal(
    locateRipgrep({ platform: "win32", path: "", execPath: "C:\\t\\toolhost.exe", runnable }),
    undefined,
  );
  assert.deepEqual(looked, ["C:\\t\\rg.exe", "C:\\t\\toolhost-rg.exe"]);
});

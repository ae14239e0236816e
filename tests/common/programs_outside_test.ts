/**
 * Where toolhost looks for the programs it runs outside the command sandbox: never a relative
 * PATH entry, a directory in a root, a link into a root, or a link to a program in a root.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { dirsOutside, programOutside } from "../../tools/_lib/programs_outside.ts";
import { scratchDir } from "../helpers/file_tools.ts";

const top = scratchDir("toolhost-programs-");
const root = join(top, "root");
const outside = join(top, "outside");

function program(dir: string, name = "tool"): string {
  mkdirSync(dir, { recursive: true });
  const file = join(dir, name);
  writeFileSync(file, "#!/bin/sh\n");
  chmodSync(file, 0o755);
  return file;
}

const inRoot = program(join(root, ".venv", "bin"));
const fine = program(join(outside, "bin"));
symlinkSync(join(root, ".venv", "bin"), join(top, "linked-bin"));
program(join(outside, "links"), "other");
symlinkSync(inRoot, join(outside, "links", "tool"));

test("relative entries, directories in a root and links into one are passed over", () => {
  const path = [
    "bin",
    ".",
    join(root, ".venv", "bin"),
    join(top, "linked-bin"),
    join(outside, "bin"),
  ]
    .join(":");
  assert.deepEqual(dirsOutside(path, [root]), [join(outside, "bin")]);
});

test("the program found is the first outside every root, and never a link to one inside", () => {
  const here = process.cwd();
  process.chdir(join(root, ".venv"));
  try {
    const path = [
      "bin",
      join(root, ".venv", "bin"),
      join(top, "linked-bin"),
      join(outside, "links"),
      join(outside, "bin"),
    ]
      .join(":");
    assert.equal(programOutside("tool", path, [root]), fine);
    assert.equal(programOutside("tool", path, []), join(root, ".venv", "bin", "tool"));
    assert.equal(programOutside("missing", path, [root]), undefined);
  } finally {
    process.chdir(here);
  }
});

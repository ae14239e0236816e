/**
 * tree_restore's primitives: a restored directory's mode is set on that directory itself. Where
 * directories are addressed by path (macOS; here a Dir made by name stands in for one), a link
 * swapped in for the directory is refused, never followed to its target.
 */
import assert from "node:assert/strict";
import { chmodSync, mkdirSync, statSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { Dir } from "../../tools/_lib/beneath.ts";
import { chmodHeld } from "../../tools/journal/_lib/tree_restore.ts";
import { scratchDir } from "../helpers/file_tools.ts";

const posix = process.platform !== "win32";

test(
  "chmodHeld on a directory addressed by path sets its mode",
  { skip: !posix && "POSIX modes" },
  async () => {
    const root = scratchDir("restore-chmod");
    mkdirSync(join(root, "made"));
    const dir = Dir.named(join(root, "made"));
    await chmodHeld(dir, 0o750);
    assert.equal(statSync(join(root, "made")).mode & 0o7777, 0o750);
  },
);

test("chmodHeld on a path that became a link refuses, and leaves the link's target alone", {
  skip: !posix && "POSIX modes and links",
}, async () => {
  const root = scratchDir("restore-chmod-link");
  const outside = join(root, "outside");
  mkdirSync(outside);
  chmodSync(outside, 0o755);
  symlinkSync(outside, join(root, "made"));
  const dir = Dir.named(join(root, "made"));
  await assert.rejects(chmodHeld(dir, 0o777));
  assert.equal(statSync(outside).mode & 0o7777, 0o755);
});

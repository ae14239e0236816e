/**
 * The private temporary directories of the command sandbox: made 0700 in a parent of this user's
 * closed to others (refused otherwise), what a dead toolhost left swept, and removed whatever
 * modes a command left in them (Go's module cache makes its directories 0555).
 */
import assert from "node:assert/strict";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { makeTemp, removeTree } from "../../tools/_lib/confine/_temp.ts";

const posix = process.platform === "win32" && "POSIX modes and uids";

/** Runs `work` with TMPDIR pointing at `dir`. */
function inTmp<T>(dir: string, work: () => T): T {
  const saved = process.env.TMPDIR;
  process.env.TMPDIR = dir;
  try {
    return work();
  } finally {
    if (saved === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = saved;
  }
}

test("made 0700 under <tmpdir>/toolhost-<uid>, named after this process", { skip: posix }, () => {
  const base = mkdtempSync(join(tmpdir(), "toolhost-temp-test-"));
  const made = inTmp(base, () => makeTemp("session"));
  const parent = join(base, `toolhost-${process.getuid!()}`);
  assert.ok(made.startsWith(`${parent}/${process.pid}-session-`), made);
  assert.equal(statSync(made).mode & 0o777, 0o700);
  assert.equal(statSync(parent).mode & 0o777, 0o700);
  removeTree(base);
});

test(
  "a parent others could have made, or could write, is refused with a sentence",
  { skip: posix },
  () => {
    const base = mkdtempSync(join(tmpdir(), "toolhost-temp-test-"));
    const parent = join(base, `toolhost-${process.getuid!()}`);
    mkdirSync(parent);
    chmodSync(parent, 0o777);
    assert.throws(
      () => inTmp(base, () => makeTemp("session")),
      /is not a directory of this user's closed to others \(mode 0700\); remove it, or set TMPDIR/,
    );
    removeTree(base);
  },
);

test("removed whole, directories without write permission and all", { skip: posix }, () => {
  const base = mkdtempSync(join(tmpdir(), "toolhost-temp-test-"));
  const dir = join(base, "t");
  mkdirSync(join(dir, "mod", "pkg"), { recursive: true });
  writeFileSync(join(dir, "mod", "pkg", "a.go"), "package a\n");
  chmodSync(join(dir, "mod", "pkg"), 0o555);
  chmodSync(join(dir, "mod"), 0o555);
  removeTree(dir);
  assert.equal(existsSync(dir), false);
  removeTree(base);
});

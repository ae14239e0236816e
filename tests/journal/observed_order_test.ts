/**
 * The order a command's changes are journaled in, which undo reverses: what went away deepest
 * first, what changed in place, what came shallowest first. Undone from the last, a directory the
 * command made loses its files before it is removed, a removed directory comes back before its
 * files, and a file that became a directory (or the reverse) turns back once what it held is gone.
 * Also whose a path is when another call changed it or a directory holding it.
 */
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Change, PathState } from "../../tools/journal/_lib/journal.ts";
import { orderForUndo } from "../../tools/journal/_lib/observed/summary.ts";
import { changedBy } from "../../tools/journal/_lib/observed/attribution.ts";

const file: PathState = { kind: "file", sha: "a".repeat(64), mode: 0o644, size: 1 };
const dir: PathState = { kind: "dir" };
const absent: PathState = { kind: "absent" };
const change = (path: string, before: PathState, after: PathState): Change => ({
  path,
  before,
  after,
});

/** The paths in the order undo handles them (the journal's, reversed). */
const undoOrder = (changes: Change[]) => orderForUndo(changes).reverse().map((c) => c.path);

test("undo removes a made directory's files first and remakes a removed one before its files", () => {
  const shuffled = [
    change("/r/made", absent, dir),
    change("/r/gone/deep/f", file, absent),
    change("/r/made/deep/f", absent, file),
    change("/r/gone", dir, absent),
    change("/r/made/deep", absent, dir),
    change("/r/gone/deep", dir, absent),
  ];
  const order = undoOrder(shuffled);
  const before = (a: string, b: string) =>
    assert.ok(order.indexOf(a) < order.indexOf(b), `${a} before ${b}: ${order}`);
  before("/r/made/deep/f", "/r/made/deep");
  before("/r/made/deep", "/r/made");
  before("/r/gone", "/r/gone/deep");
  before("/r/gone/deep", "/r/gone/deep/f");
});

test("a file that became a directory turns back after the directory is emptied, and the reverse", () => {
  const order = undoOrder([
    change("/r/p/x", absent, file),
    change("/r/p", file, dir),
    change("/r/q", dir, file),
    change("/r/q/y", file, absent),
  ]);
  assert.ok(order.indexOf("/r/p/x") < order.indexOf("/r/p"), order.join());
  assert.ok(order.indexOf("/r/q") < order.indexOf("/r/q/y"), order.join());
});

test("a path is another call's when that call changed it or a directory holding it", () => {
  const others = new Map([["/r/a.txt", "write_file call 1"], ["/r/tree", "delete_file call 2"]]);
  assert.equal(changedBy(others, "/r/a.txt"), "write_file call 1");
  assert.equal(changedBy(others, "/r/tree/deep/f"), "delete_file call 2");
  assert.equal(changedBy(others, "/r/b.txt"), undefined);
  assert.equal(changedBy(others, "/r/treehouse"), undefined);
});

/**
 * Undo of directory trees through the compiled binary: a deleted tree comes back exactly (and
 * the undo redoes), a moved directory moves back, a copied tree is removed; each refused when
 * the path no longer holds what the call left there, and done by force (what force replaces is
 * kept, so undoing the undo brings it back); trees over the bounds are said not undoable.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { e2eFixture } from "../helpers/e2e.ts";
import { RawClient } from "../helpers/raw_client.ts";
import { posixOnly } from "../helpers/posix_only.ts";
import { callTool, okText } from "../helpers/tool_calls.ts";

const e2e = e2eFixture();

const scratch = (name: string) => e2e.scratch(name);

function start(root: string, env: Record<string, string> = {}) {
  const c = e2e.server({
    args: ["--root", root],
    cwd: root,
    env: {
      TOOLHOST_STATE_DIR: scratch("jt-state"),
      ...env,
    },
  });
  return c;
}

async function refused(c: RawClient, name: string, args: Record<string, unknown>, why: RegExp) {
  const r = await callTool(c, name, args);
  assert.equal(r.isError, true, r.text);
  assert.match(r.text, why);
  return r.text;
}

/** The id of the newest call of `tool` in history. */
async function lastId(c: RawClient, tool: string): Promise<string> {
  return /^(\S+) /.exec(await okText(c, "history", { tool, limit: 1 }))![1];
}

/** Every entry below `dir`: path, mode, content or link target. */
function listing(dir: string, rel = ""): string[] {
  const out: string[] = [];
  for (const name of readdirSync(join(dir, rel)).sort()) {
    const p = rel ? `${rel}/${name}` : name;
    const info = lstatSync(join(dir, p));
    const mode = (info.mode & 0o7777).toString(8);
    if (info.isSymbolicLink()) out.push(`${p} -> ${readlinkSync(join(dir, p))}`);
    else if (info.isDirectory()) out.push(`${p}/ ${mode}`, ...listing(dir, p));
    else out.push(`${p} ${mode} ${readFileSync(join(dir, p), "utf8")}`);
  }
  return out;
}

function makeTree(top: string) {
  mkdirSync(join(top, "src/deep"), { recursive: true });
  mkdirSync(join(top, "empty"));
  writeFileSync(join(top, "README.md"), "# project\n");
  writeFileSync(join(top, "src/main.ts"), "console.log(1);\n");
  writeFileSync(join(top, "src/deep/run.sh"), "#!/bin/sh\n");
  chmodSync(join(top, "src/deep/run.sh"), 0o755);
  chmodSync(join(top, "src/deep"), 0o700);
  symlinkSync("../README.md", join(top, "src/readme"));
  symlinkSync("/etc/hostname", join(top, "outside")); // out of the roots: restored as text
}

test(
  "a deleted tree comes back exactly; undoing the undo deletes it again, and undo restores it",
  posixOnly("POSIX modes and symlinks"),
  async () => {
    const root = scratch("jt-del");
    makeTree(join(root, "proj"));
    const was = listing(join(root, "proj"));
    const c = start(root);
    await okText(c, "delete_file", { path: "proj", recursive: true });
    assert.equal(existsSync(join(root, "proj")), false);
    assert.match(await okText(c, "history", { tool: "delete_file" }), /\(undoable\)/);
    assert.match(await okText(c, "undo", {}), /proj: directory tree restored \(8 entries/);
    assert.deepEqual(listing(join(root, "proj")), was);
    assert.equal(readlinkSync(join(root, "proj/outside")), "/etc/hostname");
    // Redo: the restored tree is what undo left, so undoing the undo deletes it again.
    await okText(c, "undo", { id: await lastId(c, "undo") });
    assert.equal(existsSync(join(root, "proj")), false);
    await okText(c, "undo", { id: await lastId(c, "undo") });
    assert.deepEqual(listing(join(root, "proj")), was);
    assert.deepEqual(readdirSync(root), ["proj"]); // no temporary directory left behind
  },
);

test("undoing a delete refuses a path taken since; force keeps what is there, then restores", async () => {
  const root = scratch("jt-taken");
  makeTree(join(root, "proj"));
  const was = listing(join(root, "proj"));
  const c = start(root);
  await okText(c, "delete_file", { path: "proj", recursive: true });
  mkdirSync(join(root, "proj"));
  writeFileSync(join(root, "proj/new.txt"), "someone's new work\n");
  await refused(c, "undo", {}, /proj is taken.*force: true/s);
  assert.deepEqual(listing(join(root, "proj")), ["new.txt 644 someone's new work\n"]);
  await okText(c, "undo", { force: true });
  assert.deepEqual(listing(join(root, "proj")), was);
  // What force replaced was kept: undoing the forced undo brings it back.
  await okText(c, "undo", { id: await lastId(c, "undo") });
  assert.deepEqual(listing(join(root, "proj")), ["new.txt 644 someone's new work\n"]);
});

test("a tree over the undo budget, or holding a FIFO, is deleted and said not undoable", async () => {
  const root = scratch("jt-big");
  mkdirSync(join(root, "big"));
  writeFileSync(join(root, "big/a.bin"), "x".repeat(5000));
  const c = start(root, { TOOLHOST_UNDO_BUDGET_BYTES: "4000" });
  await okText(c, "delete_file", { path: "big", recursive: true });
  assert.equal(existsSync(join(root, "big")), false);
  assert.match(
    await okText(c, "history", { tool: "delete_file" }),
    /not undoable: the directory tree big was not kept: its files hold .* over the undo budget/,
  );
  await refused(c, "undo", {}, /cannot be undone: .*undo budget/);
  if (process.platform !== "win32") {
    mkdirSync(join(root, "pipes"));
    execFileSync("mkfifo", [join(root, "pipes/fifo")]);
    await okText(c, "delete_file", { path: "pipes", recursive: true });
    assert.equal(existsSync(join(root, "pipes")), false);
    await refused(c, "undo", {}, /pipes was not kept: it holds fifo, .*cannot recreate/);
  }
});

test("a moved directory moves back (the same directory); undoing the undo moves it again", async () => {
  const root = scratch("jt-move");
  makeTree(join(root, "a"));
  const was = listing(join(root, "a"));
  const inode = statSync(join(root, "a")).ino;
  const c = start(root);
  await okText(c, "move_file", { source: "a", destination: "b/c" });
  assert.match(await okText(c, "history", { tool: "move_file" }), /\(undoable\)/);
  assert.match(await okText(c, "undo", {}), /b\/c: moved back to a/);
  assert.deepEqual(listing(join(root, "a")), was);
  assert.equal(statSync(join(root, "a")).ino, inode);
  assert.equal(existsSync(join(root, "b/c")), false);
  await okText(c, "undo", { id: await lastId(c, "undo") });
  assert.deepEqual(listing(join(root, "b/c")), was);
  assert.equal(existsSync(join(root, "a")), false);
});

test("moving back is refused when the tree changed or its old path is taken, unless force", async () => {
  const root = scratch("jt-move-refused");
  makeTree(join(root, "a"));
  const c = start(root);
  await okText(c, "move_file", { source: "a", destination: "b" });
  writeFileSync(join(root, "b/src/main.ts"), "console.log(2);\n"); // same size
  writeFileSync(join(root, "b/added.txt"), "new\n");
  await refused(
    c,
    "undo",
    {},
    /b is no longer the tree move_file .* left there: added\.txt added, src\/main\.ts changed; nothing was undone/,
  );
  assert.equal(existsSync(join(root, "a")), false);
  writeFileSync(join(root, "a"), "a file where the directory was\n");
  await refused(c, "undo", { force: false }, /no longer the tree/);
  // force: moves the changed tree back; the file in the way is kept (undoing the undo).
  await okText(c, "undo", { force: true });
  assert.equal(readFileSync(join(root, "a/added.txt"), "utf8"), "new\n");
  assert.equal(existsSync(join(root, "b")), false);
  await okText(c, "undo", { id: await lastId(c, "undo") });
  assert.equal(readFileSync(join(root, "a"), "utf8"), "a file where the directory was\n");
  assert.equal(readFileSync(join(root, "b/added.txt"), "utf8"), "new\n");
});

test("moving back waits for a free path: taken without a tree change, refused without force", async () => {
  const root = scratch("jt-move-taken");
  makeTree(join(root, "a"));
  const c = start(root);
  await okText(c, "move_file", { source: "a", destination: "b" });
  mkdirSync(join(root, "a"));
  writeFileSync(join(root, "a/mine.txt"), "mine\n");
  await refused(c, "undo", {}, /a, where b was moved from, is taken since move_file/);
  assert.ok(existsSync(join(root, "b/README.md")));
  assert.deepEqual(readdirSync(join(root, "a")), ["mine.txt"]);
});

test("a copied tree is removed by undo only while every file is as copied", async () => {
  const root = scratch("jt-copy");
  makeTree(join(root, "src"));
  const was = listing(join(root, "src"));
  const c = start(root);
  await okText(c, "copy_file", { source: "src", destination: "copy", recursive: true });
  assert.match(await okText(c, "history", { tool: "copy_file" }), /\(undoable\)/);
  writeFileSync(join(root, "copy/notes.txt"), "added after the copy\n");
  await refused(c, "undo", {}, /copy is no longer the tree copy_file .*notes\.txt added/);
  assert.ok(existsSync(join(root, "copy/notes.txt")));
  // force removes it, kept first: undoing the undo brings back the copy with the added file.
  await okText(c, "undo", { force: true });
  assert.equal(existsSync(join(root, "copy")), false);
  await okText(c, "undo", { id: await lastId(c, "undo") });
  assert.deepEqual(
    listing(join(root, "copy")),
    [
      ...was.slice(0, 2),
      "notes.txt 644 added after the copy\n",
      ...was.slice(2),
    ].sort(),
  );
  assert.deepEqual(listing(join(root, "src")), was);
});

test("an untouched copy is removed by undo, and the source is left alone", async () => {
  const root = scratch("jt-copy-plain");
  makeTree(join(root, "src"));
  const was = listing(join(root, "src"));
  const c = start(root);
  await okText(c, "copy_file", { source: "src", destination: "out/copy", recursive: true });
  assert.match(await okText(c, "undo", {}), /out\/copy: removed/);
  assert.equal(existsSync(join(root, "out/copy")), false);
  assert.deepEqual(listing(join(root, "src")), was);
  await okText(c, "undo", { id: await lastId(c, "undo") });
  assert.deepEqual(listing(join(root, "out/copy")), was);
});

test("an edit in a copied or moved tree, once undone, does not stand in the way of undoing the copy or move", async () => {
  const root = scratch("jt-edit-undo");
  makeTree(join(root, "src"));
  const was = listing(join(root, "src"));
  const c = start(root);
  await okText(c, "copy_file", { source: "src", destination: "copy", recursive: true });
  await okText(c, "edit_file", {
    path: "copy/src/main.ts",
    edits: [{ old_string: "1", new_string: "2" }],
  });
  await okText(c, "undo", {}); // the edit: the file is rewritten, with new times
  assert.match(await okText(c, "undo", {}), /copy: removed/); // same content: the copy goes
  assert.equal(existsSync(join(root, "copy")), false);

  await okText(c, "move_file", { source: "src", destination: "moved/src" });
  await okText(c, "move_file", { source: "moved/src", destination: "final" });
  await okText(c, "write_file", { path: "final/README.md", content: "changed\n" });
  await okText(c, "undo", {});
  await okText(c, "undo", {}); // final -> moved/src
  assert.match(await okText(c, "undo", {}), /moved\/src: moved back to src/);
  assert.deepEqual(listing(join(root, "src")), was);
  assert.equal(existsSync(join(root, "final")), false);
  assert.deepEqual(readdirSync(join(root, "moved")), []);
});

test("a directory moved over an empty one moves back, and the empty one is there again", async () => {
  const root = scratch("jt-move-over");
  makeTree(join(root, "a"));
  mkdirSync(join(root, "b"));
  const c = start(root);
  await okText(c, "move_file", { source: "a", destination: "b", overwrite: true });
  assert.ok(existsSync(join(root, "b/README.md")));
  await okText(c, "undo", {});
  assert.ok(existsSync(join(root, "a/README.md")));
  assert.deepEqual(readdirSync(join(root, "b")), []);
});

test("a tree past 20,000 entries moves back too (judged by its top level); a delete past 10,000 is refused as before", async () => {
  const root = scratch("jt-huge");
  for (let d = 0; d < 21; d++) {
    mkdirSync(join(root, "huge", `d${d}`), { recursive: true });
    for (let f = 0; f < 1000; f++) writeFileSync(join(root, "huge", `d${d}`, `${f}`), "");
  }
  const c = start(root);
  await okText(c, "move_file", { source: "huge", destination: "moved" });
  assert.match(await okText(c, "history", { tool: "move_file" }), /\(undoable\)/);
  assert.match(await okText(c, "undo", {}), /moved: moved back to huge/);
  assert.equal(readdirSync(join(root, "huge", "d20")).length, 1000);
  await refused(c, "delete_file", { path: "huge", recursive: true }, /more than 10,000 entries/);
  assert.ok(existsSync(join(root, "huge", "d0", "0")));
});

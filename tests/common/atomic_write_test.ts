/**
 * writeFileAtomic with a whole buffer (written in one call, its digest taken meanwhile) and a
 * gate before its rename (the journal opening the old file for undo): the old content stays
 * until the gate opens, the mode is kept, and a gate that fails leaves everything as it was.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { createHash } from "node:crypto";
import {
  chmodSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomic } from "../../tools/_lib/transaction/_atomic_write.ts";
import { posixOnly } from "../helpers/posix_only.ts";

const scratch = () => realpathSync(mkdtempSync(join(tmpdir(), "toolhost-atomic-")));

/** Several hash slices of text, so the digest is taken across turns of the event loop. */
const big = (seed: string) => Buffer.from(`${seed} line of text\n`.repeat(200_000));

test("the rename waits for beforeRename; the digest is that of the bytes written", async () => {
  const dir = scratch();
  const path = join(dir, "f.txt");
  writeFileSync(path, "old\n");
  const bytes = big("new");
  let open!: () => void;
  let asked = false;
  const writing = writeFileAtomic(path, bytes, undefined, {
    digest: true,
    beforeRename: () => {
      asked = true;
      return new Promise<void>((resolve) => (open = resolve));
    },
  });
  while (!asked) await new Promise((resolve) => setTimeout(resolve, 1));
  // Written in full under its temporary name, not yet renamed.
  assert.equal(readFileSync(path, "utf8"), "old\n");
  const temporary = readdirSync(dir).find((name) => name.endsWith(".tmp"))!;
  assert.equal(statSync(join(dir, temporary)).size, bytes.length);
  open();
  const written = await writing;
  assert.deepEqual(readFileSync(path), bytes);
  assert.equal(written.sha, createHash("sha256").update(bytes).digest("hex"));
  assert.equal(written.size, bytes.length);
  assert.deepEqual(readdirSync(dir), ["f.txt"]);
});

test("a failing beforeRename leaves the old file and no temporary file", async () => {
  const dir = scratch();
  const path = join(dir, "f.txt");
  writeFileSync(path, "old\n");
  await assert.rejects(
    writeFileAtomic(path, big("new"), undefined, {
      beforeRename: () => Promise.reject(new Error("not now")),
    }),
    /not now/,
  );
  assert.equal(readFileSync(path, "utf8"), "old\n");
  assert.deepEqual(readdirSync(dir), ["f.txt"]);
});

test("a whole buffer replacing a file keeps its mode", posixOnly("POSIX file modes"), async () => {
  const dir = scratch();
  const path = join(dir, "f.txt");
  writeFileSync(path, "old\n");
  chmodSync(path, 0o640);
  await writeFileAtomic(path, big("new"), undefined, { digest: true });
  assert.equal(statSync(path).mode & 0o777, 0o640);
  assert.deepEqual(readFileSync(path), big("new"));
});

test("pieces in an array are written in order and digested as one content", async () => {
  const path = join(scratch(), "f.txt");
  const pieces = [big("first"), new Uint8Array(0), Buffer.from("middle\n"), big("last")];
  const whole = Buffer.concat(pieces);
  const written = await writeFileAtomic(path, pieces, undefined, { digest: true });
  assert.deepEqual(readFileSync(path), whole);
  assert.equal(written.size, whole.length);
  assert.equal(written.sha, createHash("sha256").update(whole).digest("hex"));
});

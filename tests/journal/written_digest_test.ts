/**
 * The writer's remembered digest (sandbox/_written_digests.ts) must describe the file found at the
 * path: a change by another program between the write and the look at the renamed file must not be
 * taken for what was written, or the journal's next snapshot trusts it and undo restores the
 * wrong content.
 */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readdirSync, realpathSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { writeFileAtomic } from "../../tools/_lib/transaction/_atomic_write.ts";
import { writtenDigest } from "../../tools/_lib/transaction/_written_digests.ts";

function scratch(): string {
  return realpathSync(mkdtempSync(join(tmpdir(), "toolhost-digest-")));
}

test("a file written with digest is recognised as written while untouched", async () => {
  const path = join(scratch(), "f.txt");
  const { sha } = await writeFileAtomic(path, new TextEncoder().encode("new\n"), undefined, {
    digest: true,
  });
  assert.ok(sha);
  assert.equal(writtenDigest(path, statSync(path)), sha);
});

test("a file changed after it was written is not taken for what was written", async () => {
  const dir = scratch();
  const path = join(dir, "f.txt");
  await writeFileAtomic(path, new TextEncoder().encode("new\n"), undefined, {
    digest: true,
    // Another program appends to the new file (same inode) before it takes the name: what
    // the writer then finds at the path is not what it wrote.
    check() {
      const temporary = readdirSync(dir).find((name) => name.endsWith(".tmp"));
      appendFileSync(join(dir, temporary!), "theirs\n");
    },
  });
  assert.equal(writtenDigest(path, statSync(path)), undefined);
});

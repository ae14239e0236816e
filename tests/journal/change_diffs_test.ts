/**
 * A journaled change as the review app shows it (change_diffs.ts): hunks when both sides are text
 * it can find, and a sentence saying why not otherwise (binary, too large, no longer kept, changed
 * since, a directory), within the page's budget.
 */
import assert from "node:assert/strict";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, test } from "node:test";
import { Sandbox } from "../../tools/_lib/sandbox/_sandbox.ts";
import { diffOf, MAX_SIDE_BYTES } from "../../tools/journal/_lib/change_diffs.ts";
import type { Change, PathState } from "../../tools/journal/_lib/journal.ts";
import { keepBytes, sha256 } from "../../tools/journal/_lib/snapshots.ts";
import { scratchDir } from "../helpers/file_tools.ts";

const encode = (text: string) => new TextEncoder().encode(text);
const made: string[] = [];
after(() => made.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

async function setUp() {
  const root = scratchDir("toolhost-diffs-");
  const project = scratchDir("toolhost-diffs-state-");
  made.push(root, project);
  const sandbox = await Sandbox.of({ roots: () => Promise.resolve([root]) });
  const keep = { projectDir: project, budget: 1 << 30 };
  const kept = async (bytes: Uint8Array): Promise<PathState> => ({
    kind: "file",
    sha: await keepBytes(keep, bytes),
    mode: 0o644,
    size: bytes.length,
  });
  const onDisk = (name: string, bytes: Uint8Array): { path: string; state: PathState } => {
    const path = join(root, name);
    writeFileSync(path, bytes);
    return { path, state: { kind: "file", sha: sha256(bytes), mode: 0o644, size: bytes.length } };
  };
  const budget = () => ({ bytes: 1 << 20, lines: 1000 });
  return { root, project, sandbox, kept, onDisk, budget };
}

test("a file changed in place: the old content from its blob, the new from the file", async () => {
  const { project, sandbox, kept, onDisk, budget } = await setUp();
  const before = await kept(encode("a\nb\nc\n"));
  const now = onDisk("f.txt", encode("a\nB\nc\n"));
  const change: Change = { path: now.path, before, after: now.state };
  const diff = await diffOf(change, sandbox, project, budget());
  assert.equal(diff.path, "f.txt");
  assert.equal(diff.kind, "modified");
  assert.deepEqual(diff.hunks?.[0].lines, [" a", "-b", "+B", " c"]);
});

test("a file changed since the call has no after side: said, not guessed", async () => {
  const { project, sandbox, kept, onDisk, budget } = await setUp();
  const before = await kept(encode("one\n"));
  const then = onDisk("f.txt", encode("two\n"));
  writeFileSync(then.path, "three\n");
  const diff = await diffOf(
    { path: then.path, before, after: then.state },
    sandbox,
    project,
    budget(),
  );
  assert.equal(diff.hunks, undefined);
  assert.equal(diff.note, "after: its content is no longer kept");
});

test("created and deleted files diff against nothing; binary and large ones are named", async () => {
  const { project, sandbox, kept, onDisk, budget } = await setUp();
  const absent: PathState = { kind: "absent" };
  const made = onDisk("new.txt", encode("hello\n"));
  const created = await diffOf(
    { path: made.path, before: absent, after: made.state },
    sandbox,
    project,
    budget(),
  );
  assert.equal(created.kind, "added");
  assert.deepEqual(created.hunks?.[0].lines, ["+hello"]);

  const gone = await kept(encode("bye\n"));
  const deleted = await diffOf(
    { path: made.path, before: gone, after: absent },
    sandbox,
    project,
    budget(),
  );
  assert.equal(deleted.kind, "deleted");
  assert.deepEqual(deleted.hunks?.[0].lines, ["-bye"]);

  const binary = await kept(new Uint8Array([1, 0, 2]));
  const bin = await diffOf(
    { path: made.path, before: binary, after: made.state },
    sandbox,
    project,
    budget(),
  );
  assert.equal(bin.note, "before: binary content");

  const big: PathState = {
    kind: "file",
    sha: "0".repeat(64),
    mode: 0o644,
    size: MAX_SIDE_BYTES + 1,
  };
  const large = await diffOf(
    { path: made.path, before: big, after: made.state },
    sandbox,
    project,
    budget(),
  );
  assert.match(large.note ?? "", /too large to show/);

  const dir = await diffOf(
    { path: made.path, before: absent, after: { kind: "dir" } },
    sandbox,
    project,
    budget(),
  );
  assert.equal(dir.note, "nothing → a directory");
});

test("a spent page budget leaves later changes unread, saying so", async () => {
  const { project, sandbox, kept, onDisk, budget } = await setUp();
  const before = await kept(encode("x\n"));
  const now = onDisk("f.txt", encode("y\n"));
  const spent = { ...budget(), lines: 0 };
  const diff = await diffOf({ path: now.path, before, after: now.state }, sandbox, project, spent);
  assert.match(diff.note ?? "", /this page read its share/);
  const small = { bytes: 1 << 20, lines: 1 };
  const cut = await diffOf({ path: now.path, before, after: now.state }, sandbox, project, small);
  assert.equal(cut.truncated, true);
  assert.equal(cut.hunks?.[0].lines.length, 1);
  assert.equal(small.lines, 0);
});

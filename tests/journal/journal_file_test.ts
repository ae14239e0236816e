/** The journal file and its batch writer: rotation, torn lines, newest first, batches. */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, readFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { append, appendMany, type Entry, readEntries } from "../../tools/journal/_lib/journal.ts";
import { BatchWriter } from "../../tools/journal/_lib/writer.ts";

const file = () => join(mkdtempSync(join(tmpdir(), "toolhost-jf-")), "journal.jsonl");
const entry = (n: number): Entry => ({
  id: `id-${n}`,
  time: new Date(1_700_000_000_000 + n).toISOString(),
  era: "modern",
  tool: "list_roots",
  args: { n },
  outcome: "ok",
  ms: 1,
});

test("entries come back newest first; a torn last line is skipped", async () => {
  const f = file();
  for (let n = 0; n < 5; n++) await append(f, entry(n), 1 << 20);
  appendFileSync(f, '{"id":"torn","tool":"wri');
  const got = await readEntries(f);
  assert.deepEqual(got.map((e) => e.id), ["id-4", "id-3", "id-2", "id-1", "id-0"]);
  // Paging as history does it: newest first, by offset.
  assert.deepEqual(got.slice(2, 4).map((e) => e.id), ["id-2", "id-1"]);
});

test("a file past max_bytes is rotated; two rotated files are kept", async () => {
  const f = file();
  const size = JSON.stringify(entry(10)).length + 1;
  for (let n = 0; n < 12; n++) await append(f, entry(n), size * 3);
  assert.ok(readFileSync(f, "utf8").length <= size * 3);
  assert.ok(readFileSync(f.replace(".jsonl", ".1.jsonl"), "utf8").length > 0);
  const ids = (await readEntries(f)).map((e) => e.id);
  assert.equal(ids[0], "id-11");
  // The current file and two rotated ones: the oldest lines are gone, the rest in order.
  assert.ok(ids.length >= 6 && ids.length < 12, ids.join(" "));
  assert.deepEqual(ids, ids.map((_, i) => `id-${11 - i}`));
});

test("the batch writer writes everything queued in batches, and flush waits for it", async () => {
  const f = file();
  const batches: number[] = [];
  const writer = new BatchWriter(10_000, 100, async (path, entries, max) => {
    batches.push(entries.length);
    await appendMany(path, entries, max);
  });
  for (let n = 0; n < 1000; n++) writer.push(f, entry(n), 1 << 30);
  assert.equal(await writer.flush(10_000), true);
  assert.equal(writer.queued, 0);
  const ids = (await readEntries(f)).map((e) => e.id);
  assert.equal(ids.length, 1000);
  assert.equal(ids[0], "id-999");
  assert.ok(batches.length <= 12, `${batches.length} batches`);
});

test("two writers appending to one file at once keep every line whole", async () => {
  const f = file();
  const a = new BatchWriter();
  const b = new BatchWriter();
  for (let n = 0; n < 500; n++) {
    a.push(f, entry(n), 1 << 30);
    b.push(Promise.resolve(f), entry(1000 + n), 1 << 30);
    if (n % 50 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
  }
  assert.deepEqual(await Promise.all([a.flush(10_000), b.flush(10_000)]), [true, true]);
  const lines = readFileSync(f, "utf8").trimEnd().split("\n");
  assert.equal(lines.length, 1000);
  for (const line of lines) JSON.parse(line);
});

test("past its limit the writer drops entries and journals how many", async () => {
  const f = file();
  const writer = new BatchWriter(10);
  for (let n = 0; n < 25; n++) writer.push(f, entry(n), 1 << 30);
  await writer.flush(10_000);
  const got = await readEntries(f);
  assert.equal(got.length, 11);
  assert.equal(got[0].tool, "journal");
  assert.equal(got[0].dropped, 15);
});

/** A stand-in append whose calls can be held and released one by one. */
function heldAppends() {
  const calls: { ids: string[]; release: () => void }[] = [];
  const append = (_path: string, entries: Entry[]) =>
    new Promise<void>((release) => calls.push({ ids: entries.map((e) => e.id), release }));
  return { calls, append };
}

/** Whether `promise` has settled, after the pending callbacks have run. */
async function settled(promise: Promise<unknown>): Promise<boolean> {
  let done = false;
  promise.then(() => (done = true), () => (done = true));
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  return done;
}

/** Queued lines wait this long for company: a test that waits for it fails by its timeout. */
const FOREVER_MS = 10 * 60_000;

test("write() resolves once its line is appended, together with what was queued before it", async () => {
  const { calls, append } = heldAppends();
  const writer = new BatchWriter(10_000, 100, append, undefined, FOREVER_MS);
  writer.push("j", entry(1), 1 << 30);
  writer.push("j", entry(2), 1 << 30);
  const written = writer.write("j", entry(3), 1 << 30);
  // No gathering wait: the append starts at once.
  while (calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(calls[0].ids, ["id-1", "id-2", "id-3"]);
  assert.equal(await settled(written), false, "resolved before its append was done");
  calls[0].release();
  assert.equal(await settled(written), true);
});

test("write() during an append goes in the next batch, written straight after it", async () => {
  const { calls, append } = heldAppends();
  const writer = new BatchWriter(10_000, 100, append, undefined, FOREVER_MS);
  const first = writer.write("j", entry(1), 1 << 30);
  while (calls.length === 0) await new Promise((resolve) => setImmediate(resolve));
  // Two calls finishing while the first line is being appended: one batch for both.
  const second = writer.write("j", entry(2), 1 << 30);
  const third = writer.write("j", entry(3), 1 << 30);
  assert.equal(await settled(second), false);
  calls[0].release();
  assert.equal(await settled(first), true);
  while (calls.length === 1) await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(calls[1].ids, ["id-2", "id-3"]);
  assert.equal(await settled(third), false);
  calls[1].release();
  assert.deepEqual(await Promise.all([second, third]), [undefined, undefined]);
  assert.equal(calls.length, 2);
});

test("write() past the queue's limit is not dropped; a failed append resolves it and is reported", async () => {
  const failures: number[] = [];
  const writer = new BatchWriter(
    2,
    100,
    () => Promise.reject(new Error("disk full")),
    (_, lost) => {
      failures.push(lost);
    },
    FOREVER_MS,
  );
  for (let n = 0; n < 2; n++) writer.push("j", entry(n), 1 << 30);
  await writer.write("j", entry(9), 1 << 30);
  assert.deepEqual(failures, [3]);
});

test("write() reaches the file at once; queued lines keep their order before it", async () => {
  const f = file();
  const writer = new BatchWriter(4096, 1024, undefined, undefined, FOREVER_MS);
  writer.push(f, entry(1), 1 << 30);
  await writer.write(f, entry(2), 1 << 30);
  assert.deepEqual((await readEntries(f)).map((e) => e.id), ["id-2", "id-1"]);
});

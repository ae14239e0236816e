/** Reading the journal from its end: chunk boundaries, over-long lines, bounds, damaged fields. */
import assert from "node:assert/strict";
import { appendFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import {
  MAX_LINE_BYTES,
  newScan,
  SCAN_LINES,
  visitNewestFirst,
} from "../../tools/journal/_lib/journal_scan.ts";
import type { Entry } from "../../tools/journal/_lib/journal.ts";

const file = () => join(mkdtempSync(join(tmpdir(), "toolhost-js-")), "journal.jsonl");

const line = (id: string, pad = 0) =>
  JSON.stringify({
    id,
    time: "2026-01-01T00:00:00.000Z",
    era: "modern",
    tool: "list_roots",
    args: { pad: "é".repeat(pad) },
    outcome: "ok",
    ms: 1,
  }) + "\n";

async function ids(files: string[], scan = newScan()): Promise<string[]> {
  const seen: string[] = [];
  await visitNewestFirst(files, scan, (entry: Entry) => {
    seen.push(entry.id);
  });
  return seen;
}

test("lines of every length across 64 KiB chunk boundaries come back whole, newest first", async () => {
  const f = file();
  const written: string[] = [];
  let text = "";
  // Lengths that put line ends just before, on and after chunk boundaries; multi-byte padding.
  for (let n = 0; n < 400; n++) {
    const id = `id-${n}`;
    written.push(id);
    text += line(id, (n * 997) % 3000);
  }
  writeFileSync(f, text);
  assert.deepEqual(await ids([f]), written.reverse());
});

test("an over-long line is skipped and counted; the lines around it are read", async () => {
  const f = file();
  writeFileSync(f, line("before"));
  appendFileSync(f, '{"id":"huge","tool":"x","p":"' + "a".repeat(MAX_LINE_BYTES + 10) + '"}\n');
  appendFileSync(f, line("after") + '{"id":"torn","tool":"wri');
  const scan = newScan();
  assert.deepEqual(await ids([f], scan), ["after", "before"]);
  assert.equal(scan.skipped, 2); // the over-long line and the torn one
});

test("reading stops at the line bound and says so", async () => {
  const f = file();
  let text = "";
  for (let n = 0; n < SCAN_LINES + 5000; n++) text += `{"n":${n}}\n`;
  writeFileSync(f, text);
  const scan = newScan();
  await ids([f], scan);
  assert.match(scan.stopped ?? "", /100000 lines/);
  assert.ok(scan.lines < SCAN_LINES + 70_000, `${scan.lines} lines`);
});

test("a line whose fields are not what toolhost writes is skipped", async () => {
  const f = file();
  const good = JSON.parse(line("good"));
  const bad = [
    { ...good, id: "x".repeat(65) },
    {
      ...good,
      id: "bad-sha",
      changes: [{
        path: "/r/a",
        before: { kind: "file", sha: "../../x", mode: 1, size: 1 },
        after: { kind: "absent" },
      }],
    },
    {
      ...good,
      id: "relative",
      changes: [{ path: "a", before: { kind: "absent" }, after: { kind: "dir" } }],
    },
    { ...good, id: "many-undid", undid: Array.from({ length: 51 }, (_, i) => `u${i}`) },
    {
      ...good,
      id: "kind",
      changes: [{ path: "/r/a", before: { kind: "pipe" }, after: { kind: "dir" } }],
    },
  ];
  writeFileSync(f, bad.map((e) => JSON.stringify(e) + "\n").join("") + line("good"));
  const scan = newScan();
  assert.deepEqual(await ids([f], scan), ["good"]);
  assert.equal(scan.skipped, bad.length);
});

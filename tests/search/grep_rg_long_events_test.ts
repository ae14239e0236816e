/**
 * rg's match events for long lines with many matches: cut after their first submatch as they
 * arrive, yet read exactly as the whole event reads; events that are not one-line matches, and
 * every event in multiline mode, come whole.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFileSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { test } from "node:test";
import {
  firstSubmatchOnly,
  jsonLineBatches,
  matchEventLines,
} from "../../tools/search/_lib/grep/ripgrep/events.ts";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";

/** A match event as rg writes it: its fields in rg's order, one submatch per match of `word`. */
function matchEvent(text: string, word: string, lineNumber = 1): string {
  const size = (s: string) => Buffer.byteLength(s);
  const submatches = [];
  // Byte offsets counted on from the last match, not from the start each time.
  let [chars, bytes] = [0, 0];
  for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length)) {
    bytes += size(text.slice(chars, at));
    chars = at;
    submatches.push({ match: { text: word }, start: bytes, end: bytes + size(word) });
  }
  return JSON.stringify({
    type: "match",
    data: {
      path: { text: "./a.txt" },
      lines: { text },
      line_number: lineNumber,
      absolute_offset: 0,
      submatches,
    },
  });
}

/** What jsonLineBatches yields for `text` arriving in chunks of `size` bytes. */
async function linesOf(text: string, oneLineEvents: boolean, size = 16_384): Promise<string[]> {
  const bytes = Buffer.from(text);
  const chunks = [];
  for (let at = 0; at < bytes.length; at += size) chunks.push(bytes.subarray(at, at + size));
  const lines: string[] = [];
  for await (const batch of jsonLineBatches(Readable.from(chunks), oneLineEvents)) {
    lines.push(...batch);
  }
  return lines;
}

// Quotes, braces and `"end":` inside the text and the match: escaped, so never taken for keys.
const WORD = 'x"end":1}]}}';
const LONG = matchEvent("é ".repeat(5) + `${WORD} `.repeat(20_000) + "\n", WORD, 7);

test("a long one-line match event is cut after its first submatch and reads as the whole", async () => {
  const short = matchEvent("a needle\n", "needle", 3);
  const lines = await linesOf(`${short}\n${LONG}\n${short}\n`, true);
  assert.equal(lines.length, 3);
  assert.deepEqual(lines[0], short);
  assert.deepEqual(lines[2], short);
  assert.ok(lines[1].length < LONG.length / 2, `${lines[1].length} of ${LONG.length}`);
  const cut = JSON.parse(lines[1]);
  const whole = JSON.parse(LONG);
  assert.equal(cut.data.submatches.length, 1);
  assert.deepEqual(matchEventLines(cut.data), matchEventLines(whole.data));
  assert.equal(matchEventLines(cut.data)[0].column, 10);
  // The same whatever the chunks: the first submatch's end split across two of them too.
  for (const size of [1_000, 65_537, 1 << 20]) {
    assert.deepEqual(await linesOf(`${LONG}\n`, true, size), [lines[1]]);
  }
  // Without a final line break too.
  assert.deepEqual(await linesOf(LONG, true), [lines[1]]);
});

test("in multiline mode a long event keeps the submatches reaching a new line; others come whole", async () => {
  const [multiline] = await linesOf(`${LONG}\n`, false);
  assert.equal(JSON.parse(multiline).data.submatches.length, 1, "one line: its first match");
  assert.deepEqual(
    matchEventLines(JSON.parse(multiline).data),
    matchEventLines(JSON.parse(LONG).data),
  );
  const context = JSON.stringify({
    type: "context",
    data: { path: { text: "./a" }, lines: { text: "y".repeat(200_000) }, submatches: [] },
  });
  assert.deepEqual(await linesOf(`${context}\n`, true), [context]);
  assert.equal(firstSubmatchOnly('{"type":"match","data":{"lines":{"text":"ab'), undefined);
});

const rg = findRipgrep();

test("rg's own events for a line of many matches read the same cut or whole", {
  skip: !rg && "rg is not installed",
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-rg-long-"));
  writeFileSync(join(dir, "a.txt"), "first\n" + "ab needle ".repeat(30_000) + "\nlast needle\n");
  const out = execFileSync(rg!, ["--json", "--no-config", "needle", "a.txt"], {
    cwd: dir,
    encoding: "utf8",
    maxBuffer: 64 << 20,
  });
  const whole = out.split("\n").filter((l) => l.startsWith('{"type":"match"'));
  const cut = (await linesOf(out, true)).filter((l) => l.startsWith('{"type":"match"'));
  assert.equal(whole.length, 2);
  assert.equal(JSON.parse(cut[0]).data.submatches.length, 1);
  for (let i = 0; i < 2; i++) {
    assert.deepEqual(
      matchEventLines(JSON.parse(cut[i]).data),
      matchEventLines(JSON.parse(whole[i]).data),
    );
  }
});

test("rg's multiline events over many lines of many matches read the same cut or whole", {
  skip: !rg && "rg is not installed",
}, async () => {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-rg-long-"));
  // Matches that run across lines, several on a line, empty ones, and a long line of them.
  const text = "x a b\na a\n\nb a\n".repeat(3_000) + "ab ".repeat(30_000) + "\nlast a\n";
  writeFileSync(join(dir, "a.txt"), text);
  for (const pattern of ["a\\n|b", "b?\\n?", "a\\s+b|\\n\\n"]) {
    const out = execFileSync(
      rg!,
      ["--json", "--no-config", "--multiline", "--multiline-dotall", "-e", pattern, "a.txt"],
      { cwd: dir, encoding: "utf8", maxBuffer: 256 << 20 },
    );
    const matches = (lines: string[]) =>
      lines.filter((l) => l.startsWith('{"type":"match"')).map((l) =>
        matchEventLines(JSON.parse(l).data)
      );
    const whole = matches(out.split("\n"));
    for (const size of [4_096, 65_537]) {
      const cutLines = await linesOf(out, false, size);
      assert.deepEqual(matches(cutLines), whole, `${pattern} in chunks of ${size}`);
      // Where rg wrote long events (millions of submatches), most of them is dropped.
      if (out.length > 4 << 20) {
        assert.ok(cutLines.join("").length < out.length / 2, `${pattern}: cut`);
      }
    }
  }
});

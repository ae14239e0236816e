/** grep's rg search on its own: results in path order, and a cancel that stops rg. */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { IgnoreRules } from "../tools/_lib/gitignore.ts";
import { compilePattern } from "../tools/_lib/grep_pattern.ts";
import type { FileMatches } from "../tools/_lib/grep_report.ts";
import { findRipgrep, ripgrepSearch } from "../tools/_lib/grep_ripgrep.ts";
import type { GrepSearch } from "../tools/_lib/grep_search.ts";

const rg = findRipgrep();
const skip = !rg && "rg is not installed";

function scratch(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-rg-")));
  mkdirSync(join(dir, "a"));
  for (const name of ["a/x.txt", "a-b.txt", "b.txt"]) {
    writeFileSync(join(dir, name), "hit\nmiss\nhit\n");
  }
  return dir;
}

function search(dir: string, onAbort: GrepSearch["onAbort"]): GrepSearch {
  return {
    dir,
    pattern: compilePattern("hit", { caseInsensitive: false, multiline: false }),
    multiline: false,
    caseInsensitive: false,
    mode: "content",
    before: 0,
    after: 0,
    rulesAbove: IgnoreRules.none,
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
    onAbort,
  };
}

async function collect(files: AsyncGenerator<FileMatches>) {
  const out: string[] = [];
  for await (const file of files) {
    out.push(`${file.path}:${file.lines.map((l) => l.number).join(",")}`);
  }
  return out;
}

test("rg's results come file by file in path order, lines in order", { skip }, async () => {
  const dir = scratch();
  assert.deepEqual(await collect(ripgrepSearch(rg!, search(dir, () => () => {}))), [
    `${dir}/a/x.txt:1,3`,
    `${dir}/a-b.txt:1,3`,
    `${dir}/b.txt:1,3`,
  ]);
});

test("a cancelled search kills rg at once and reports nothing", { skip }, async () => {
  const dir = scratch();
  let removed = false;
  const cancelledAlready = (listener: () => void) => {
    listener();
    return () => (removed = true);
  };
  const started = Date.now();
  assert.deepEqual(await collect(ripgrepSearch(rg!, search(dir, cancelledAlready))), []);
  assert.ok(Date.now() - started < 2_000);
  assert.equal(removed, true, "the abort listener is removed when the search ends");
});

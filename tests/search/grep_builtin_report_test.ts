/**
 * The built-in search tells its workers when the report is full, and they then count content
 * lines instead of sending them: the report must read the same as when every line is sent.
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { IgnoreRules } from "../../tools/_lib/walk/gitignore.ts";
import { builtinSearch } from "../../tools/search/_lib/grep_builtin.ts";
import { compilePattern } from "../../tools/search/_lib/grep_pattern.ts";
import { GrepReport } from "../../tools/search/_lib/grep_report.ts";
import type { GrepSearch } from "../../tools/search/_lib/grep_search.ts";

function tree(): string {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-grep-full-")));
  for (let d = 0; d < 3; d++) {
    mkdirSync(join(root, `d${d}`));
    for (let f = 0; f < 60; f++) {
      const lines = Array.from({ length: 40 }, (_, i) => i % 7 === f % 7 ? `needle ${i}` : `x${i}`);
      writeFileSync(join(root, `d${d}`, `f${f}.txt`), lines.join("\n") + "\n");
    }
  }
  return root;
}

async function reportOf(root: string, tellWhenFull: boolean, headLimit?: number) {
  const report = new GrepReport({
    mode: "content",
    headLimit,
    maxChars: 5_000,
    context: true,
    display: (path) => path.slice(root.length + 1),
  });
  const search: GrepSearch = {
    dir: root,
    label: ".",
    pattern: compilePattern("needle", { caseInsensitive: false, multiline: false }),
    multiline: false,
    caseInsensitive: false,
    mode: "content",
    before: 1,
    after: 2,
    rulesAbove: IgnoreRules.empty(),
    deadline: Date.now() + 60_000,
    signal: new AbortController().signal,
    reportFull: tellWhenFull ? () => report.full : undefined,
  };
  for await (const file of builtinSearch(search)) report.add(file);
  return report.finish(".", search.stopped);
}

test("a full report reads the same whether workers send the lines past it or count them", async () => {
  const root = tree();
  const all = await reportOf(root, false);
  assert.ok(all.summary.omitted > 1000, "most lines are left out");
  assert.deepEqual(await reportOf(root, true), all);
  assert.deepEqual(await reportOf(root, true, 20), await reportOf(root, false, 20));
});

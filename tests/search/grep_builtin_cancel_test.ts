/**
 * The built-in search keeps the walk's directories open while its workers may still open files in
 * them: a search stopped half-way (cancelled) must still close every one of them.
 */
import assert from "node:assert/strict";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { test } from "node:test";
import { IgnoreRules } from "../../tools/_lib/walk/gitignore.ts";
import { builtinSearch } from "../../tools/search/_lib/grep_builtin.ts";
import { compilePattern } from "../../tools/search/_lib/grep_pattern.ts";
import type { GrepSearch } from "../../tools/search/_lib/grep_search.ts";

/** Descriptors of this process open on something under `root`. */
function openUnder(root: string): string[] {
  const open: string[] = [];
  for (const fd of readdirSync("/proc/self/fd")) {
    try {
      const target = readlinkSync(`/proc/self/fd/${fd}`);
      if (target.startsWith(`${root}/`)) open.push(target);
    } catch {
      // closed meanwhile (the listing's own descriptor)
    }
  }
  return open;
}

test("a cancelled search leaves no directory open", {
  skip: process.platform !== "linux" && "counts descriptors in /proc/self/fd",
}, async () => {
  const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-grep-cancel-")));
  for (let d = 0; d < 40; d++) {
    mkdirSync(join(root, `d${d}`, "sub"), { recursive: true });
    for (let f = 0; f < 20; f++) writeFileSync(join(root, `d${d}`, "sub", `f${f}.txt`), "needle\n");
  }
  const controller = new AbortController();
  const search: GrepSearch = {
    dir: root,
    label: ".",
    pattern: compilePattern("needle", { caseInsensitive: false, multiline: false }),
    multiline: false,
    caseInsensitive: false,
    mode: "files_with_matches",
    before: 0,
    after: 0,
    rulesAbove: IgnoreRules.empty(),
    deadline: Date.now() + 60_000,
    signal: controller.signal,
  };
  let seen = 0;
  try {
    for await (const _ of builtinSearch(search)) {
      if (++seen === 10) controller.abort();
    }
  } catch {
    // a batch still out when the call was cancelled rejects; one done by then does not
  }
  assert.ok(seen >= 10 && seen < 800, `stopped early (${seen} files)`);
  assert.deepEqual(openUnder(root), []);
});

/**
 * rg beside the guard (grep_rg_beside.ts), with the guard's findings given and an rg stand-in that
 * logs its arguments: held results reported once, rg searching again with --max-filesize when
 * files over the limit exist, nothing of rg reported when an ignore file is odd, and an rg
 * failure passed on.
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { IgnoreRules } from "../../tools/_lib/walk/gitignore.ts";
import { compilePattern } from "../../tools/search/_lib/grep_pattern.ts";
import type { FileMatches } from "../../tools/search/_lib/grep_report.ts";
import { searchBesideGuard } from "../../tools/search/_lib/grep_rg_beside.ts";
import { guardBesideRg, type GuardFindings } from "../../tools/search/_lib/grep_rg_guard.ts";
import { findRipgrep } from "../../tools/search/_lib/ripgrep_path.ts";
import type { GrepSearch } from "../../tools/search/_lib/grep_search.ts";

const rg = findRipgrep();
const scratch: string[] = [];
after(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
/** A new directory, removed after the tests. */
function made(dir: string): string {
  scratch.push(dir);
  return realpathSync(dir);
}
const skip = (!rg && "rg is not installed") || (!guardBesideRg() && "the guard runs first here");

function setUp(failing = false) {
  const dir = made(mkdtempSync(join(tmpdir(), "toolhost-rg-beside-")));
  writeFileSync(join(dir, "a.txt"), "hit\nmiss\nhit\n");
  writeFileSync(join(dir, "b.txt"), "miss\nhit\n");
  const bin = made(mkdtempSync(join(tmpdir(), "toolhost-rg-beside-bin-")));
  const standIn = join(bin, "rg");
  const run = failing ? `echo 'rg: broken' >&2; exit 2` : `exec '${rg}' "$@"`;
  writeFileSync(standIn, `#!/bin/sh\necho "$*" >> '${bin}/runs'\n${run}\n`);
  chmodSync(standIn, 0o755);
  const runs = () =>
    existsSync(join(bin, "runs")) ? readFileSync(join(bin, "runs"), "utf8").trim().split("\n") : [];
  const search: GrepSearch = {
    dir,
    label: dir,
    pattern: compilePattern("hit", { caseInsensitive: false, multiline: false }),
    multiline: false,
    caseInsensitive: false,
    mode: "content",
    before: 0,
    after: 0,
    rulesAbove: IgnoreRules.empty(),
    deadline: Date.now() + 10_000,
    signal: new AbortController().signal,
  };
  return { dir, standIn, runs, search };
}

async function besides(standIn: string, search: GrepSearch, findings: GuardFindings) {
  const reported: string[] = [];
  const add = (file: FileMatches) =>
    reported.push(`${file.path}:${file.lines.map((l) => l.number)}`);
  const odd = await searchBesideGuard(standIn, search, Promise.resolve(findings), add);
  return { odd, reported };
}

test("with no file over the limit, rg runs once without --max-filesize", { skip }, async () => {
  const { dir, standIn, runs, search } = setUp();
  const { odd, reported } = await besides(standIn, search, { odd: [], largeFiles: false });
  assert.deepEqual(odd, []);
  assert.deepEqual(reported, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`]);
  assert.equal(runs().length, 1);
  assert.doesNotMatch(runs()[0], /--max-filesize/);
  assert.equal(search.signal.aborted, false, "the call's own signal is back");
});

test(
  "a file over the limit while rg runs: rg searches again with --max-filesize",
  { skip },
  async () => {
    const { dir, standIn, runs, search } = setUp();
    const { odd, reported } = await besides(standIn, search, { odd: [], largeFiles: true });
    assert.deepEqual(odd, []);
    assert.deepEqual(reported, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`], "each file once");
    // The first rg is killed at once, maybe before its stand-in has logged it: the last one
    // logged is the second, with the limit.
    assert.match(runs().at(-1)!, /--max-filesize=10485760/);
    for (const run of runs().slice(0, -1)) assert.doesNotMatch(run, /--max-filesize/);
    assert.ok(runs().length <= 2);
  },
);

test(
  "an ignore file rg cannot read: rg is stopped at once, nothing of it reported",
  { skip },
  async () => {
    const { dir, search } = setUp();
    // rg waits on this FIFO for ever: only the kill ends it. Found at once, the kill comes while
    // the process is still being started (its group's mark not readable yet).
    execFileSync("mkfifo", [join(dir, ".gitignore")]);
    search.deadline = Date.now() + 20_000;
    const bad = {
      path: join(dir, ".gitignore"),
      why: "is a FIFO (named pipe), not a regular file",
    };
    const { odd, reported } = await besides(rg!, search, { odd: [bad], largeFiles: false });
    assert.deepEqual(odd, [bad]);
    assert.deepEqual(reported, []);
    assert.equal(search.stopped, undefined, "stopped by the kill, not by the time limit");
  },
);

test("an rg that fails beside the guard searches again with --max-filesize, then is said", {
  skip,
}, async () => {
  const { standIn, search, runs } = setUp(true);
  await assert.rejects(
    besides(standIn, search, { odd: [], largeFiles: false }),
    /rg failed with exit code 2: rg: broken/,
  );
  assert.equal(runs().length, 2);
  assert.match(runs()[1], /--max-filesize/);
});

test("an rg that fails after reporting files searches again without reporting them twice", {
  skip,
}, async () => {
  const { dir, search } = setUp();
  const bin = made(mkdtempSync(join(tmpdir(), "toolhost-rg-beside-bin-")));
  const standIn = join(bin, "rg");
  // The first run reports a.txt (its four events) then fails, as at the cap; the second runs rg
  // whole.
  writeFileSync(
    standIn,
    `#!/bin/sh\nif [ -e '${bin}/ran' ]; then exec '${rg}' "$@"; fi\ntouch '${bin}/ran'\n` +
      `'${rg}' "$@" | head -n 4\necho 'memory allocation failed' >&2\nexit 2\n`,
  );
  chmodSync(standIn, 0o755);
  const reported: string[] = [];
  const found = searchBesideGuard(
    standIn,
    search,
    Promise.resolve({ odd: [], largeFiles: false }),
    (file) => reported.push(`${file.path}:${file.lines.map((l) => l.number)}`),
  );
  assert.deepEqual(await found, []);
  assert.deepEqual(reported, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`]);
});

test("an rg that fails under the memory cap searches again without it once the guard cleared", {
  skip,
}, async () => {
  const { dir, search } = setUp();
  const bin = made(mkdtempSync(join(tmpdir(), "toolhost-rg-beside-bin-")));
  const standIn = join(bin, "rg");
  // An rg whose allocator cannot start under any data limit.
  writeFileSync(
    standIn,
    `#!/bin/sh
echo "$(ulimit -d)" >> '${bin}/limits'
` +
      `if [ "$(ulimit -d)" != unlimited ]; then echo 'memory allocation failed' >&2; exit 2; fi
` +
      `exec '${rg}' "$@"
`,
  );
  chmodSync(standIn, 0o755);
  const { odd, reported } = await besides(standIn, search, { odd: [], largeFiles: false });
  assert.deepEqual(odd, []);
  assert.deepEqual(reported, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`]);
  const limits = readFileSync(join(bin, "limits"), "utf8").trim().split("\n");
  assert.equal(limits.length, 2);
  assert.notEqual(limits[0], "unlimited", "the first run is capped");
  assert.equal(limits[1], "unlimited");
});

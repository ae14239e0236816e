/**
 * rg run beside the ignore-file guard (guard.ts): under a cap on its data segment, so a
 * link to /dev/zero read before the guard ends cannot take the machine's memory; the same answer
 * as without the cap; a missing rg still said plainly.
 */
import assert from "node:assert/strict";
import {
  chmodSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import type { FileMatches } from "../../tools/search/_lib/grep/report.ts";
import {
  guardBesideRg,
  guardFindings,
  RG_DATA_LIMIT_BYTES,
} from "../../tools/search/_lib/grep/ripgrep/guard.ts";
import { ripgrepSearch } from "../../tools/search/_lib/grep/ripgrep/ripgrep_batches.ts";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { grepQuery } from "./grep_query.ts";

const rg = findRipgrep();
const scratch: string[] = [];
after(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));
/** A new directory, removed after the tests. */
function made(dir: string): string {
  scratch.push(dir);
  return realpathSync(dir);
}
const skip = (!rg && "rg is not installed") || (!guardBesideRg() && "the guard runs first here");

function tree(): string {
  const dir = made(mkdtempSync(join(tmpdir(), "toolhost-rg-guard-")));
  writeFileSync(join(dir, "a.txt"), "hit\nmiss\nhit\n");
  writeFileSync(join(dir, "b.txt"), "miss\nhit\n");
  return dir;
}

/** rg's files under `dir`, run under a data cap of `limit` bytes when given. */
function search(rg: string, dir: string, limit?: number) {
  return ripgrepSearch(rg, grepQuery(dir, "hit"), { dataLimit: limit });
}

async function collect(files: AsyncGenerator<FileMatches, unknown>) {
  const out: string[] = [];
  for await (const file of files) out.push(`${file.path}:${file.lines.map((l) => l.number)}`);
  return out;
}

test(
  "rg beside the guard runs under the data cap and answers as without it",
  { skip },
  async () => {
    const dir = tree();
    const bin = made(mkdtempSync(join(tmpdir(), "toolhost-rg-stand-in-")));
    const standIn = join(bin, "rg");
    // Writes the data limit it was started under, then hands over to the real rg.
    writeFileSync(standIn, `#!/bin/sh\nulimit -d > '${bin}/limit'\nexec '${rg}' "$@"\n`);
    chmodSync(standIn, 0o755);
    const capped = await collect(search(standIn, dir, RG_DATA_LIMIT_BYTES));
    assert.equal(
      readFileSync(join(bin, "limit"), "utf8").trim(),
      String(RG_DATA_LIMIT_BYTES / 1024),
    );
    assert.deepEqual(capped, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`]);
    assert.deepEqual(await collect(search(rg!, dir)), capped);
  },
);

test("a missing rg is said plainly when it runs under the cap", { skip }, async () => {
  const dir = tree();
  await assert.rejects(
    collect(search(join(dir, "no-such-rg"), dir, RG_DATA_LIMIT_BYTES)),
    /could not run rg at .*no-such-rg/,
  );
});

test("the guard names a link to /dev/zero, and says whether files are over the size limit", {
  skip: !guardBesideRg() && "find and links to /dev/zero are POSIX",
}, async () => {
  const dir = tree();
  const look = (largeFileBytes?: number) =>
    guardFindings(
      dir,
      (real) => real === dir || real.startsWith(`${dir}/`),
      () => Promise.reject(new Error("nothing is opened for this test")),
      Date.now() + 10_000,
      new AbortController().signal,
      { unconfined: "a unit test of the guard's findings" },
      largeFileBytes,
    );
  assert.deepEqual(await look(100), { odd: [], largeFiles: false });
  writeFileSync(join(dir, "big.txt"), "x".repeat(101));
  assert.deepEqual(await look(100), { odd: [], largeFiles: true });
  assert.deepEqual(await look(), { odd: [], largeFiles: false }, "not asked");
  symlinkSync("/dev/zero", join(dir, ".gitignore"));
  const found = await look(1000);
  assert.deepEqual(found.odd.map((f) => f.path), [join(dir, ".gitignore")]);
  assert.equal(found.largeFiles, false);
});

test(
  "the cap bounds an rg that reads a link to /dev/zero as its .gitignore",
  { skip },
  async () => {
    const dir = tree();
    symlinkSync("/dev/zero", join(dir, ".gitignore"));
    // A small cap, so that rg meets it at once; unbounded, it would grow until the time limit.
    await assert.rejects(
      collect(search(rg!, dir, 64 * 1024 * 1024)),
      /rg (was killed by SIGABRT|failed with exit code)/,
    );
  },
);

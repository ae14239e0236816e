/**
 * The rg engine as grep runs it: its guard finds an ignore file rg must not read (a FIFO rg would
 * wait on for ever) and the fallback engine answers in its place, given why; a tree without one is
 * rg's. Both engines only read the query (it is frozen here).
 */
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import { BuiltinEngine } from "../../tools/search/_lib/grep/builtin/builtin_engine.ts";
import type { GrepEngine } from "../../tools/search/_lib/grep/engine.ts";
import type { FileMatches } from "../../tools/search/_lib/grep/report.ts";
import { RipgrepEngine } from "../../tools/search/_lib/grep/ripgrep/ripgrep_engine.ts";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { grepQuery } from "./grep_query.ts";

const rg = findRipgrep();
const scratch: string[] = [];
after(() => scratch.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

function tree(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-rg-engine-")));
  scratch.push(dir);
  writeFileSync(join(dir, "a.txt"), "hit\nmiss\nhit\n");
  writeFileSync(join(dir, "b.txt"), "miss\nhit\n");
  return dir;
}

async function search(engine: GrepEngine, dir: string, pattern = "hit") {
  const found: string[] = [];
  const add = (file: FileMatches) => found.push(`${file.path}:${file.lines.map((l) => l.number)}`);
  const query = Object.freeze(grepQuery(dir, pattern, { deadline: Date.now() + 20_000 }));
  const outcome = await engine.search(query, { add, full: false });
  return { found, outcome };
}

test("a tree without odd ignore files is rg's, and the query is only read", {
  skip: !rg && "rg is not installed",
}, async () => {
  const dir = tree();
  const engine = new RipgrepEngine(rg!, () => assert.fail("rg may read every ignore file here"));
  const expected = [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`];
  assert.deepEqual(await search(engine, dir), {
    found: expected,
    outcome: { stopped: undefined, unreadable: false },
  });
  assert.deepEqual(await search(new BuiltinEngine(), dir), {
    found: expected,
    outcome: { unreadable: false },
  });
});

test("a FIFO .gitignore: the fallback answers, told which file and why", {
  skip: (!rg && "rg is not installed") || (process.platform === "win32" && "no FIFOs"),
}, async () => {
  const dir = tree();
  execFileSync("mkfifo", [join(dir, ".gitignore")]);
  const reasons: string[] = [];
  const engine = new RipgrepEngine(rg!, (reason) => {
    reasons.push(reason.why);
    return new BuiltinEngine(reason);
  });
  const { found } = await search(engine, dir);
  assert.deepEqual(found, [`${dir}/a.txt:1,3`, `${dir}/b.txt:2`]);
  assert.equal(reasons.length, 1);
  assert.match(
    reasons[0],
    /rg would hang on or misread the ignore file .*\.gitignore, which is a FIFO/,
  );
  // The fallback refuses what it cannot run, saying why it was used.
  await assert.rejects(
    search(engine, dir, "(a+)+b"),
    /built-in search \(used instead of rg here, as rg would hang on .*\.gitignore.*search a directory without such ignore files/s,
  );
});

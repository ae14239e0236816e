/**
 * Files over grep's 10 MB limit are skipped alike by rg and the built-in search: rg runs beside
 * the guard without --max-filesize and searches again with it when the guard finds such a file,
 * or drops the file when reading it again; either way the answer is the built-in search's. Also
 * with the file ignored (the guard, which does not read ignore rules, still sees it).
 */
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, test } from "node:test";
import { findRipgrep } from "../../tools/search/_lib/grep/ripgrep/ripgrep_path.ts";
import { e2eFixture } from "../helpers/e2e.ts";
import { RawClient } from "../helpers/raw_client.ts";
import { callTool } from "../helpers/tool_calls.ts";

const rgMissing = findRipgrep() === undefined;
const LIMIT = 10 * 1024 * 1024;
const root = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-grep-large-")));
after(() => rmSync(root, { recursive: true, force: true }));

const line = "pin here\n";
const filled = (bytes: number) =>
  line.repeat(Math.floor(bytes / line.length)) + "x".repeat(bytes % line.length);
writeFileSync(join(root, "small.txt"), "pin small\n");
writeFileSync(join(root, "at_limit.txt"), filled(LIMIT));
writeFileSync(join(root, "over_limit.txt"), filled(LIMIT + 1));
mkdirSync(join(root, "ignored"));
writeFileSync(join(root, ".gitignore"), "ignored/\n");
writeFileSync(join(root, "ignored", "over.txt"), filled(LIMIT + 1));

const e2e = e2eFixture();

function start(engine: string): RawClient {
  const saved = process.env.TOOLHOST_GREP;
  process.env.TOOLHOST_GREP = engine;
  try {
    const c = e2e.server({ args: ["--root", root] });
    return c;
  } finally {
    if (saved === undefined) delete process.env.TOOLHOST_GREP;
    else process.env.TOOLHOST_GREP = saved;
  }
}

test("files over 10 MB are skipped by rg as by the built-in search", {
  skip: rgMissing && "rg is not installed",
}, async () => {
  const withRg = start("rg");
  const builtin = start("builtin");
  for (const output_mode of ["files_with_matches", "count"]) {
    for (const path of [".", "ignored"]) {
      const args = { pattern: "pin", output_mode, path };
      const [a, b] = [await callTool(withRg, "grep", args), await callTool(builtin, "grep", args)];
      assert.deepEqual(a, b, JSON.stringify(args));
      assert.doesNotMatch(a.text, /over_limit|over\.txt/, JSON.stringify(args));
    }
  }
  const files = await callTool(withRg, "grep", { pattern: "pin" });
  assert.deepEqual(files.text.split("\n").slice(0, 2), ["at_limit.txt", "small.txt"]);
});

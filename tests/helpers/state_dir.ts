/**
 * Points toolhost's state directory (TOOLHOST_STATE_DIR) at a scratch directory for one test
 * file, through a symlink, as a user's ~/.local/state often is.
 */
import { mkdtempSync, realpathSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before } from "node:test";

/** Registers the switch for the file's tests and returns where the state really goes. */
export function scratchStateDir(): { readonly path: string } {
  const saved = process.env.TOOLHOST_STATE_DIR;
  const where = { path: "" };
  before(() => {
    where.path = realpathSync(mkdtempSync(join(tmpdir(), "toolhost-state-")));
    const link = join(mkdtempSync(join(tmpdir(), "toolhost-state-link-")), "state");
    symlinkSync(where.path, link);
    process.env.TOOLHOST_STATE_DIR = link;
  });
  after(() => {
    if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
    else process.env.TOOLHOST_STATE_DIR = saved;
  });
  return where;
}

/**
 * The state directory in force for this test file (the scratch one scratchStateDir set): what a
 * tool's `ctx.state.dir` is in the in-process server, which reads TOOLHOST_STATE_DIR.
 */
export function currentStateDir(): string {
  const dir = process.env.TOOLHOST_STATE_DIR;
  if (!dir) throw new Error("call scratchStateDir() in this test file first");
  return dir;
}

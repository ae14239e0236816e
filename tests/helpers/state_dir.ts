/** Points toolhost's state directory (TOOLHOST_STATE_DIR) at a scratch directory for one test file. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { after, before } from "node:test";

/** Registers the switch for the file's tests and returns where the state goes. */
export function scratchStateDir(): { readonly path: string } {
  const saved = process.env.TOOLHOST_STATE_DIR;
  const where = { path: "" };
  before(() => {
    where.path = mkdtempSync(join(tmpdir(), "toolhost-state-"));
    process.env.TOOLHOST_STATE_DIR = where.path;
  });
  after(() => {
    if (saved === undefined) delete process.env.TOOLHOST_STATE_DIR;
    else process.env.TOOLHOST_STATE_DIR = saved;
  });
  return where;
}

/**
 * The release's rg (scripts/release/ripgrep.ts), as release_test.ts checks it: which files a
 * platform's folder, archive and npm package carry beside toolhost, and the checks on them.
 * A release built where GitHub cannot be reached has no rg; with TOOLHOST_REQUIRE_RIPGREP=1 (the
 * release workflow) every platform ripgrep has a build for must have it.
 */
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import {
  RIPGREP_ASSETS,
  RIPGREP_LICENSES,
  RIPGREP_VERSION,
  ripgrepExecutableName,
  shippedLicenseName,
} from "../../scripts/release/ripgrep.ts";
import type { Target } from "../../scripts/release/targets.ts";
import { executableHeader } from "./executable_header.ts";

export const RIPGREP_REQUIRED = process.env.TOOLHOST_REQUIRE_RIPGREP === "1";

/** Whether the release's `toolhost-<platform>/` folder holds rg. */
export const shipsRipgrep = (release: string, t: Target): boolean =>
  existsSync(join(release, `toolhost-${t.name}`, ripgrepExecutableName(t)));

/** The names rg adds beside toolhost in an archive's folder, when the release has it. */
export function ripgrepNames(release: string, t: Target): string[] {
  if (!shipsRipgrep(release, t)) return [];
  return [ripgrepExecutableName(t), ...RIPGREP_LICENSES.map(shippedLicenseName)];
}

/**
 * rg where ripgrep has a build (and only there): its header names the platform's processor, its
 * licence files are ripgrep's, the npm package has it in bin/ beside toolhost, and the host's
 * says it is the pinned version. Returns the platforms that have none.
 */
export function checkRipgrep(
  release: string,
  targets: readonly Target[],
  host: Target,
  version: string,
): string[] {
  const without: string[] = [];
  for (const t of targets) {
    const shipped = shipsRipgrep(release, t);
    if (!RIPGREP_ASSETS[t.name]) {
      assert.equal(shipped, false, `${t.name}: ripgrep has no build for it, so no rg`);
      continue;
    }
    if (RIPGREP_REQUIRED) assert.ok(shipped, `${t.name}: rg is required and missing`);
    if (!shipped) {
      without.push(t.name);
      continue;
    }
    const folder = join(release, `toolhost-${t.name}`);
    const rg = join(folder, ripgrepExecutableName(t));
    assert.equal(statSync(rg).mode & 0o777, 0o755, `${rg} is executable`);
    const header = executableHeader(rg);
    assert.deepEqual([header.format, header.cpu], [t.format, t.cpu], rg);
    assert.match(readFileSync(join(folder, "ripgrep-LICENSE-MIT"), "utf8"), /MIT License/);
    assert.match(readFileSync(join(folder, "ripgrep-UNLICENSE"), "utf8"), /public domain/);
    const copying = readFileSync(join(folder, "ripgrep-COPYING"), "utf8");
    assert.match(copying, /dual-licensed/);
    assert.match(copying, /Unlicense/);
    const tgz = join(release, "npm", `toolhost-${t.name}-${version}.tgz`);
    const listing = execFileSync("tar", ["-tvzf", tgz], { encoding: "utf8" });
    assert.match(
      listing,
      new RegExp(`^-rwxr-xr-x .* package/bin/${ripgrepExecutableName(t)}$`, "m"),
    );
    for (const licence of RIPGREP_LICENSES) {
      assert.match(listing, new RegExp(` package/${shippedLicenseName(licence)}$`, "m"), tgz);
    }
    if (t === host) {
      const out = spawnSync(rg, ["--version"], { encoding: "utf8" });
      assert.match(out.stdout, new RegExp(`^ripgrep ${RIPGREP_VERSION.replaceAll(".", "\\.")}\\b`));
    }
  }
  return without;
}

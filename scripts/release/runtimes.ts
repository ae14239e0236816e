/**
 * The bun runtime each executable is made from. `bun build --compile --target=…` would download
 * it by itself, but always from registry.npmjs.org (it ignores npm's registry settings) and
 * without a pinned checksum. Here npm fetches the same package (`npm pack`, so .npmrc, mirrors
 * and proxies apply), the tarball is checked against the integrity pinned in targets.ts, and
 * its `bin/bun` is handed to bun with `--compile-executable-path`: no other download happens.
 */
import type { Buffer } from "node:buffer";
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import process from "node:process";
import { promisify } from "node:util";
import { untarGz } from "./archive.ts";
import { RUNTIME_VERSION, type Target } from "./targets.ts";

const run = promisify(execFile);
/**
 * Where fetched runtimes are kept, outside the project so that `npm ci` and `rm -rf dist` do not
 * fetch them again (about 850 MB unpacked, for all platforms). The pinned integrity makes sharing it safe.
 */
export const RUNTIME_CACHE = join(
  process.env.XDG_CACHE_HOME || join(homedir(), ".cache"),
  "toolhost-release",
);

function integrityOf(data: Uint8Array): string {
  return `sha512-${createHash("sha512").update(data).digest("base64")}`;
}

/** `@oven/bun-linux-x64` at 1.4.5 → `oven-bun-linux-x64-1.4.5.tgz`, as npm pack names it. */
function tarballName(pkg: string): string {
  return `${pkg.replace(/^@/, "").replace("/", "-")}-${RUNTIME_VERSION}.tgz`;
}

/** The runtime's npm tarball, fetched into `dir` and checked against the pinned integrity. */
async function verifiedTarball(target: Target, dir: string): Promise<Buffer> {
  const spec = `${target.runtimePackage}@${RUNTIME_VERSION}`;
  try {
    await run("npm", ["pack", spec, "--pack-destination", dir, "--silent"], {
      maxBuffer: 16 * 1024 * 1024,
    });
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr ?? "";
    throw new Error(`npm pack ${spec} failed (is the npm registry reachable?)\n${stderr}`);
  }
  const data = readFileSync(join(dir, tarballName(target.runtimePackage)));
  const actual = integrityOf(data);
  if (actual !== target.runtimeIntegrity) {
    throw new Error(
      `${spec} from the registry does not match the integrity pinned in ` +
        `scripts/release/targets.ts (expected ${target.runtimeIntegrity}, got ${actual}); ` +
        "update the pin only if bun was upgraded on purpose",
    );
  }
  return data;
}

/** The path of the target's bun runtime, fetched and unpacked into `cacheDir` on first use. */
export async function runtimeExecutable(
  target: Target,
  cacheDir = RUNTIME_CACHE,
): Promise<string> {
  const file = target.os === "win32" ? "bun.exe" : "bun";
  const dir = join(cacheDir, `${target.name}-${RUNTIME_VERSION}`);
  const executable = join(dir, file);
  if (existsSync(executable)) return executable;
  mkdirSync(dir, { recursive: true });
  // A download of its own, so that two builds at once cannot read each other's partial files.
  const scratch = mkdtempSync(join(cacheDir, ".download-"));
  try {
    const files = untarGz(await verifiedTarball(target, scratch));
    const data = files.get(`package/bin/${file}`);
    if (!data) throw new Error(`${target.runtimePackage}@${RUNTIME_VERSION} has no bin/${file}`);
    const partial = join(scratch, file);
    writeFileSync(partial, data);
    chmodSync(partial, 0o755);
    renameSync(partial, executable);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
  return executable;
}

/**
 * The ripgrep a release ships beside toolhost (grep runs it when no rg is on PATH): ripgrep's own
 * release builds, pinned by version and SHA-256 per asset, fetched from GitHub into a cache
 * (dist/ripgrep/) and checked there before anything is taken out of them. A file whose hash
 * differs stops the build. ripgrep is MIT OR Unlicense; its COPYING, LICENSE-MIT and UNLICENSE
 * go along with it.
 *
 * The hashes are those ripgrep publishes beside each asset (`<asset>.sha256`), as listed by
 * several projects that pin the same files.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import type { Target } from "./targets.ts";

const run = promisify(execFile);

export const RIPGREP_VERSION = "14.1.1";

export interface RipgrepAsset {
  /** The file name in ripgrep's GitHub release; its folder inside has the same name. */
  name: string;
  sha256: string;
}

const asset = (triple: string, sha256: string, zip = false): RipgrepAsset => ({
  name: `ripgrep-${RIPGREP_VERSION}-${triple}.${zip ? "zip" : "tar.gz"}`,
  sha256,
});

/** The static x86_64 build (musl, no dynamic libraries) runs on every x64 Linux. */
const LINUX_X64 = asset(
  "x86_64-unknown-linux-musl",
  "4cf9f2741e6c465ffdb7c26f38056a59e2a2544b51f7cc128ef28337eeae4d8e",
);

/**
 * The asset each release target gets. linux-arm64-musl gets none: ripgrep 14.1.1 publishes no
 * arm64 musl build, and its arm64 one is linked against glibc, which would not start there.
 */
export const RIPGREP_ASSETS: Readonly<Record<string, RipgrepAsset | undefined>> = {
  "linux-x64": LINUX_X64,
  "linux-x64-baseline": LINUX_X64,
  "linux-x64-musl": LINUX_X64,
  "linux-arm64": asset(
    "aarch64-unknown-linux-gnu",
    "c827481c4ff4ea10c9dc7a4022c8de5db34a5737cb74484d62eb94a95841ab2f",
  ),
  "linux-arm64-musl": undefined,
  "darwin-x64": asset(
    "x86_64-apple-darwin",
    "fc87e78f7cb3fea12d69072e7ef3b21509754717b746368fd40d88963630e2b3",
  ),
  "darwin-arm64": asset(
    "aarch64-apple-darwin",
    "24ad76777745fbff131c8fbc466742b011f925bfa4fffa2ded6def23b5b937be",
  ),
  "windows-x64": asset(
    "x86_64-pc-windows-msvc",
    "d0f534024c42afd6cb4d38907c25cd2b249b79bbe6cc1dbee8e3e37c2b6e25a1",
    true,
  ),
};

/** ripgrep's licence files, as they are named in its archives. */
export const RIPGREP_LICENSES = ["COPYING", "LICENSE-MIT", "UNLICENSE"] as const;

/** What a release file calls ripgrep's licence file `name` (beside toolhost's own LICENSE). */
export const shippedLicenseName = (name: string): string => `ripgrep-${name}`;

export const ripgrepExecutableName = (target: Target): string =>
  target.os === "win32" ? "rg.exe" : "rg";

export const ripgrepUrl = (asset: RipgrepAsset): string =>
  `https://github.com/BurntSushi/ripgrep/releases/download/${RIPGREP_VERSION}/${asset.name}`;

/** What goes beside toolhost: the executable and the licence files. */
export interface RipgrepFiles {
  asset: RipgrepAsset;
  executable: Uint8Array;
  licenses: { name: string; data: Uint8Array }[];
}

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/**
 * The asset's bytes from `cacheDir`, downloaded there first when missing (and `download` is
 * given). Throws when the bytes are not the pinned ones, or when they cannot be had.
 */
export async function cachedAsset(
  asset: RipgrepAsset,
  cacheDir: string,
  download?: (url: string) => Promise<Uint8Array>,
): Promise<Uint8Array> {
  const file = join(cacheDir, asset.name);
  let data: Uint8Array;
  if (existsSync(file)) data = readFileSync(file);
  else {
    if (!download) throw new Error(`${file} is not there and downloading is off`);
    data = await download(ripgrepUrl(asset));
  }
  const actual = sha256(data);
  if (actual !== asset.sha256) {
    throw new Error(
      `${asset.name} has SHA-256 ${actual}, not the pinned ${asset.sha256}` +
        (existsSync(file) ? ` (delete ${file} to fetch it again)` : ""),
    );
  }
  if (!existsSync(file)) {
    mkdirSync(cacheDir, { recursive: true });
    writeFileSync(file, data);
  }
  return data;
}

/** Downloads `url` (GitHub redirects to its storage), giving up after `timeoutMs`. */
export async function download(url: string, timeoutMs = 120_000): Promise<Uint8Array> {
  const response = await fetch(url, { signal: AbortSignal.timeout(timeoutMs) });
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/** The executable and licence files out of the asset's bytes (with tar or unzip). */
export async function unpack(
  asset: RipgrepAsset,
  data: Uint8Array,
  executable: string,
): Promise<RipgrepFiles> {
  const dir = mkdtempSync(join(tmpdir(), "toolhost-ripgrep-"));
  try {
    const archive = join(dir, asset.name);
    writeFileSync(archive, data);
    const into = join(dir, "out");
    mkdirSync(into);
    if (asset.name.endsWith(".zip")) await run("unzip", ["-q", archive, "-d", into]);
    else await run("tar", ["-xzf", archive, "-C", into]);
    const folder = join(into, asset.name.replace(/\.(zip|tar\.gz)$/, ""));
    const read = (name: string) => {
      const path = join(folder, name);
      if (!existsSync(path)) throw new Error(`${asset.name} has no ${name} in ${folder}`);
      return new Uint8Array(readFileSync(path));
    };
    return {
      asset,
      executable: read(executable),
      licenses: RIPGREP_LICENSES.map((name) => ({ name, data: read(name) })),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export interface RipgrepOptions {
  cacheDir: string;
  /** Download what the cache lacks (false: only what is cached). */
  download: boolean;
  /** Fail when a target that has an asset cannot get it (the release workflow). */
  required: boolean;
  /** Told why a target goes without rg, when that is allowed. */
  warn: (text: string) => void;
}

/** rg for `target`, or undefined when it has no build or (when allowed) none could be had. */
export async function ripgrepFor(
  target: Target,
  options: RipgrepOptions,
): Promise<RipgrepFiles | undefined> {
  const asset = RIPGREP_ASSETS[target.name];
  if (!asset) return undefined;
  try {
    const data = await cachedAsset(
      asset,
      options.cacheDir,
      options.download ? download : undefined,
    );
    return await unpack(asset, data, ripgrepExecutableName(target));
  } catch (error) {
    const message = `rg for ${target.name}: ${(error as Error).message}`;
    // A file that is there but not the pinned one is never shipped, nor passed over.
    if (options.required || /not the pinned/.test(message)) throw new Error(message);
    options.warn(
      `${message}\n  *** toolhost-${target.name} is built WITHOUT rg (grep falls back to its ` +
        `own search there). Put ${asset.name} in ${options.cacheDir} or build where GitHub ` +
        `can be reached; --require-ripgrep makes this an error. ***`,
    );
    return undefined;
  }
}

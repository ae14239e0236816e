/**
 * The npm side of a release: the `toolhost` launcher package (npm/ is its template) and one
 * `@toolhost/<platform>` package per binary, which npm installs only where its `os`, `cpu` and
 * `libc` match. Each is staged in a directory and packed with `npm pack`, as `npm publish`
 * would pack it.
 */
import { execFile } from "node:child_process";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { ROOT } from "./source.ts";
import { executableName, npmPackageName, type Target, TARGETS } from "./targets.ts";

const run = promisify(execFile);

const DESCRIBED: Record<string, string> = {
  linux: "Linux",
  darwin: "macOS",
  win32: "Windows",
};

function describe(target: Target): string {
  const details = [target.libc, target.baseline ? "for CPUs without AVX2" : undefined]
    .filter(Boolean).join(", ");
  return `${DESCRIBED[target.os]} ${target.cpu}${details ? ` (${details})` : ""}`;
}

function writeJson(path: string, value: unknown): void {
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
}

/**
 * The optional dependencies of the launcher: every platform but the baseline build, which
 * npm cannot tell apart from the regular x64 one (it does not look at CPU features).
 */
export function optionalDependencies(version: string): Record<string, string> {
  return Object.fromEntries(
    TARGETS.filter((t) => !t.baseline).map((t) => [npmPackageName(t), version]),
  );
}

/** Stages the launcher package in `dir`. */
export function stageLauncher(dir: string, version: string, repository?: string): void {
  const template = JSON.parse(readFileSync(`${ROOT}npm/package.json`, "utf8"));
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(`${ROOT}npm/bin/toolhost.js`, join(dir, "bin/toolhost.js"));
  copyFileSync(`${ROOT}npm/README.md`, join(dir, "README.md"));
  copyFileSync(`${ROOT}LICENSE`, join(dir, "LICENSE"));
  writeJson(join(dir, "package.json"), {
    ...template,
    version,
    ...(repository ? { repository: { type: "git", url: `git+${repository}.git` } } : {}),
    optionalDependencies: optionalDependencies(version),
  });
}

/**
 * Stages `@toolhost/<target>` in `dir`, with the binary built for it and, when given, rg (which
 * goes into bin/ beside the binary, where grep looks for it) and ripgrep's licence files.
 */
export function stagePlatform(
  dir: string,
  target: Target,
  binary: string,
  version: string,
  repository?: string,
  ripgrep: string[] = [],
): void {
  const name = npmPackageName(target);
  mkdirSync(join(dir, "bin"), { recursive: true });
  copyFileSync(binary, join(dir, "bin", executableName(target)));
  copyFileSync(`${ROOT}LICENSE`, join(dir, "LICENSE"));
  const extra: string[] = [];
  for (const file of ripgrep) {
    const shipped = /^rg(\.exe)?$/.test(basename(file)) ? `bin/${basename(file)}` : basename(file);
    copyFileSync(file, join(dir, shipped));
    extra.push(shipped);
  }
  const withRipgrep = extra.length > 0
    ? ` It carries ripgrep's rg beside it (MIT or Unlicense; ${
      extra.filter((f) => !f.startsWith("bin/")).join(", ")
    }).`
    : "";
  writeFileSync(
    join(dir, "README.md"),
    `# ${name}\n\nThe toolhost binary for ${describe(target)}.${withRipgrep} Install ` +
      "`toolhost` instead: its launcher picks the package that fits the machine " +
      "(npx -y toolhost).\n",
  );
  writeJson(join(dir, "package.json"), {
    name,
    version,
    description: `The toolhost binary for ${describe(target)}; used by the toolhost package.`,
    license: "MIT",
    ...(repository ? { repository: { type: "git", url: `git+${repository}.git` } } : {}),
    os: [target.os],
    cpu: [target.cpu],
    ...(target.libc ? { libc: [target.libc] } : {}),
    files: [`bin/${executableName(target)}`, ...extra],
    // Yarn PnP: the binary has to exist as a real file to be executed.
    preferUnplugged: true,
  });
}

/** `npm pack`s the staged package in `dir` into `destination`; returns the tarball's path. */
export async function pack(dir: string, destination: string): Promise<string> {
  const { stdout } = await run(
    "npm",
    ["pack", dir, "--pack-destination", destination, "--json", "--silent"],
    { maxBuffer: 16 * 1024 * 1024 },
  );
  const [result] = JSON.parse(stdout) as { filename: string }[];
  return join(destination, result.filename);
}

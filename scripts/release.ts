/**
 * `deno task release`: everything a release publishes, in dist/release/, from package.json's
 * version and the checked-out commit.
 *
 *   toolhost-<platform>.tar.gz (.zip for Windows)  toolhost-<platform>/{toolhost,README.md,LICENSE,
 *                                                    docs/*.md}
 *                                                    and, where ripgrep has a build, rg and its
 *                                                    licence files (ripgrep-COPYING, …)
 *   install.sh, SHA256SUMS                           the installer, and checksums of all the above
 *   npm/*.tgz                                        `toolhost` (the launcher), `@toolhost/<platform>`
 *   toolhost-<platform>/                             the unpacked binaries, for the tests
 *
 * Every binary is cross-compiled with `bun build --compile --target=…` from the bun runtime of
 * its platform, which comes from npm (see release/runtimes.ts), in the bytecode order a build for
 * this machine used in its first session (as `deno task build` does). Options:
 *   --targets a,b   build only these platforms (quicker); default: all of them
 *   --out DIR       instead of dist/release (emptied first)
 *   --require-ripgrep  (or TOOLHOST_REQUIRE_RIPGREP=1) fail unless every platform that has a
 *                   ripgrep build gets it; without it, a platform whose rg cannot be fetched
 *                   is built without one, with a warning (release/ripgrep.ts; cached in
 *                   dist/ripgrep/)
 * GITHUB_REPOSITORY (owner/name, set by GitHub Actions) goes into install.sh and the npm
 * packages; SOURCE_DATE_EPOCH overrides the commit's time stamped on archived files.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, join, resolve } from "node:path";
import process from "node:process";
import { parseArgs, promisify } from "node:util";
import { type Entry, tarGz, zip } from "./release/archive.ts";
import { pack, stageLauncher, stagePlatform } from "./release/npm_packages.ts";
import {
  RIPGREP_ASSETS,
  ripgrepExecutableName,
  type RipgrepFiles,
  ripgrepFor,
  shippedLicenseName,
} from "./release/ripgrep.ts";
import { runtimeExecutable } from "./release/runtimes.ts";
import { commit, ROOT, sourceDate, version } from "./release/source.ts";
import {
  archiveName,
  executableName,
  RUNTIME_VERSION,
  selectTargets,
  type Target,
} from "./release/targets.ts";
import { bytecodeOrder, compileArguments } from "./build.ts";
import { buildConfineHelper } from "./confine_helper.ts";

const run = promisify(execFile);
const BUN = `${ROOT}node_modules/.bin/bun`;
/** Two at a time: one compiles while another is compressed (this machine has two cores). */
const PARALLEL = 2;

const log = (text: string) => process.stderr.write(`release: ${text}\n`);
const seconds = (since: number) => `${((performance.now() - since) / 1000).toFixed(1)} s`;
const megabytes = (bytes: number) =>
  bytes < 1e6 ? `${(bytes / 1e3).toFixed(1)} kB` : `${(bytes / 1e6).toFixed(1)} MB`;

interface Built {
  target: Target;
  binary: string;
  archive: string;
  /** The files that go beside the binary: rg and its licences (paths), when it has them. */
  ripgrep: string[];
}

function checkBunVersion(): void {
  const installed = JSON.parse(readFileSync(`${ROOT}node_modules/bun/package.json`, "utf8"));
  if (installed.version !== RUNTIME_VERSION) {
    throw new Error(
      `bun ${installed.version} is installed but scripts/release/targets.ts pins runtimes of ` +
        `bun ${RUNTIME_VERSION}; a compiled executable must run on the bun that compiled it. ` +
        "Update RUNTIME_VERSION and the integrities there (npm view @oven/bun-linux-x64@VERSION " +
        "dist.integrity, and so on).",
    );
  }
}

async function bunBuild(args: string[], what: string): Promise<void> {
  try {
    await run(BUN, args, { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 });
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    throw new Error(`bun build for ${what} failed:\n${stdout}${stderr}`);
  }
}

async function compile(
  target: Target,
  outfile: string,
  commitId: string,
  order: string | undefined,
  helper: string | undefined,
): Promise<void> {
  const runtime = await runtimeExecutable(target);
  const args = compileArguments(
    "main.ts",
    outfile,
    commitId,
    [
      `--target=${target.bunTarget}`,
      `--compile-executable-path=${runtime}`,
    ],
    order,
    helper,
  );
  await bunBuild(args, target.name);
}

/**
 * The sandbox helper for each Linux CPU, built once (static: the glibc and musl targets share
 * it) into dist/confine/<cpu>/, as paths from the project's root; a CPU without a compiler here
 * is left out with a warning, and its binaries say their sandbox is unavailable.
 */
function confineHelpers(targets: readonly Target[]): Map<string, string> {
  const helpers = new Map<string, string>();
  for (const cpu of new Set(targets.filter((t) => t.os === "linux").map((t) => t.cpu))) {
    const path = `dist/confine/${cpu}/toolhost-confine`;
    const built = buildConfineHelper(cpu, `${ROOT}${path}`);
    if (typeof built === "string") log(`linux-${cpu}: WITHOUT the sandbox helper: ${built}`);
    else {
      log(`linux-${cpu}: sandbox helper ${megabytes(built)}`);
      helpers.set(cpu, path);
    }
  }
  return helpers;
}

/**
 * The order a first session uses the bytecode in, learned from a build for this machine (the one
 * binary that can run here) and given to every target: the functions are the same JavaScript on
 * every platform, so the order fits them all, and where it does not (a platform's own paths) it is
 * only a layout hint. Resident at the first reply of linux-x64-baseline, compiled with the order
 * learned from a linux-x64 build: 46.3 MiB against 49.8 without (medians of 20 alternating runs).
 */
async function learnBytecodeOrder(out: string, commitId: string) {
  const started = performance.now();
  const binary = join(out, `order-probe${process.platform === "win32" ? ".exe" : ""}`);
  await bunBuild(compileArguments("main.ts", binary, commitId), "this machine");
  const order = bytecodeOrder(binary);
  rmSync(binary, { force: true });
  log(
    order
      ? `bytecode order learned from a first session (${seconds(started)})`
      : "no bytecode order: the probe build did not run here; building without one",
  );
  return order;
}

const withoutRg = (target: Target) =>
  RIPGREP_ASSETS[target.name] ? "WITHOUT rg" : "without rg (ripgrep has no build for it)";

/** docs/*.md, which README.md links to, copied into `dir`/docs; their archive entries. */
function placeDocs(dir: string, folder: string): Entry[] {
  mkdirSync(join(dir, "docs"), { recursive: true });
  const names = readdirSync(`${ROOT}docs`).filter((name) => name.endsWith(".md")).sort();
  return [
    { path: `${folder}/docs/`, mode: 0o755 },
    ...names.map((name) => {
      const data = readFileSync(`${ROOT}docs/${name}`);
      writeFileSync(join(dir, "docs", name), data);
      return { path: `${folder}/docs/${name}`, data, mode: 0o644 };
    }),
  ];
}

/** Writes rg and its licence files into `dir`; their archive entries under `folder`. */
function placeRipgrep(rg: RipgrepFiles, target: Target, dir: string, folder: string): Entry[] {
  const files = [
    { name: ripgrepExecutableName(target), data: rg.executable, mode: 0o755 },
    ...rg.licenses.map((l) => ({ name: shippedLicenseName(l.name), data: l.data, mode: 0o644 })),
  ];
  for (const file of files) writeFileSync(join(dir, file.name), file.data, { mode: file.mode });
  return files.map((file) => ({
    path: `${folder}/${file.name}`,
    data: file.data,
    mode: file.mode,
  }));
}

async function buildTarget(
  target: Target,
  out: string,
  commitId: string,
  rg: RipgrepFiles | undefined,
  order: string | undefined,
  helper: string | undefined,
): Promise<Built> {
  const started = performance.now();
  const folder = `toolhost-${target.name}`;
  const dir = join(out, folder);
  mkdirSync(dir, { recursive: true });
  const binary = join(dir, executableName(target));
  // bun adds .exe to a Windows outfile itself.
  await compile(target, join(dir, "toolhost"), commitId, order, helper);
  copyFileSync(`${ROOT}README.md`, join(dir, "README.md"));
  copyFileSync(`${ROOT}LICENSE`, join(dir, "LICENSE"));

  const entries: Entry[] = [
    { path: `${folder}/`, mode: 0o755 },
    { path: `${folder}/${executableName(target)}`, data: readFileSync(binary), mode: 0o755 },
    { path: `${folder}/README.md`, data: readFileSync(join(dir, "README.md")), mode: 0o644 },
    { path: `${folder}/LICENSE`, data: readFileSync(join(dir, "LICENSE")), mode: 0o644 },
    ...placeDocs(dir, folder),
  ];
  const ripgrep = rg ? placeRipgrep(rg, target, dir, folder) : [];
  entries.push(...ripgrep);
  const archive = join(out, archiveName(target));
  const date = sourceDate();
  writeFileSync(
    archive,
    target.os === "win32" ? await zip(entries, date) : await tarGz(entries, date),
  );
  log(
    `${target.name}: ${megabytes(statSync(binary).size)} binary, ` +
      `${megabytes(statSync(archive).size)} ${basename(archive)}` +
      `, ${rg ? `with ${rg.asset.name.replace(/\.(zip|tar\.gz)$/, "")}` : withoutRg(target)} ` +
      `(${seconds(started)})`,
  );
  return { target, binary, archive, ripgrep: ripgrep.map((e) => join(out, e.path)) };
}

/** Runs `work` over `items`, `limit` at a time, keeping the order of `items` in the results. */
async function inParallel<T, R>(items: T[], limit: number, work: (item: T) => Promise<R>) {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index]);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

/** install.sh with the release's repository written in, when it is known. */
function writeInstaller(out: string, repository: string | undefined): string {
  const script = readFileSync(`${ROOT}install.sh`, "utf8");
  const placeholder = /^REPOSITORY="[^"]*"$/m;
  if (!placeholder.test(script)) throw new Error('install.sh has lost its REPOSITORY="…" line');
  const path = join(out, "install.sh");
  writeFileSync(
    path,
    repository ? script.replace(placeholder, `REPOSITORY="${repository}"`) : script,
    { mode: 0o755 },
  );
  return path;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    args: process.argv.slice(2),
    options: {
      targets: { type: "string" },
      out: { type: "string" },
      "require-ripgrep": { type: "boolean" },
    },
  });
  const started = performance.now();
  const targets = selectTargets(values.targets);
  const out = resolve(values.out ?? `${ROOT}dist/release`);
  const repository = process.env.GITHUB_REPOSITORY;
  const repositoryUrl = repository ? `https://github.com/${repository}` : undefined;
  checkBunVersion();
  const releaseVersion = version();
  const commitId = commit();
  log(
    `toolhost ${releaseVersion} (commit ${commitId}) for ${targets.map((t) => t.name).join(", ")}`,
  );

  if (resolve(ROOT).startsWith(out)) throw new Error(`--out ${out} would empty the project itself`);
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const ripgrepOptions = {
    cacheDir: `${ROOT}dist/ripgrep`,
    download: true,
    required: values["require-ripgrep"] === true || process.env.TOOLHOST_REQUIRE_RIPGREP === "1",
    warn: log,
  };
  const ripgrep = new Map<Target, RipgrepFiles | undefined>();
  for (const t of targets) ripgrep.set(t, await ripgrepFor(t, ripgrepOptions));
  const helpers = confineHelpers(targets);
  const order = await learnBytecodeOrder(out, commitId);
  const built = await inParallel(
    targets,
    PARALLEL,
    (t) =>
      buildTarget(
        t,
        out,
        commitId,
        ripgrep.get(t),
        order?.file,
        t.os === "linux" ? helpers.get(t.cpu) : undefined,
      ),
  ).finally(() => order?.remove());

  const installer = writeInstaller(out, repository);
  const checked = [...built.map((b) => b.archive), installer].sort();
  writeFileSync(
    join(out, "SHA256SUMS"),
    checked.map((path) => `${sha256(path)}  ${basename(path)}\n`).join(""),
  );

  const npmStarted = performance.now();
  const npmDir = join(out, "npm");
  stageLauncher(join(npmDir, "toolhost"), releaseVersion, repositoryUrl);
  const staged = [join(npmDir, "toolhost")];
  for (const { target, binary, ripgrep } of built) {
    const dir = join(npmDir, target.name);
    stagePlatform(dir, target, binary, releaseVersion, repositoryUrl, ripgrep);
    staged.push(dir);
  }
  const tarballs = await inParallel(staged, PARALLEL, (dir) => pack(dir, npmDir));
  for (const dir of staged) rmSync(dir, { recursive: true });
  log(`npm: ${tarballs.length} packages packed (${seconds(npmStarted)})`);

  const rows = [...checked, join(out, "SHA256SUMS"), ...tarballs].map((path) =>
    `${megabytes(statSync(path).size).padStart(9)}  ${path.slice(out.length + 1)}`
  );
  log(`done in ${seconds(started)}: ${out}\n${rows.join("\n")}`);
}

if (import.meta.main) {
  try {
    await main();
  } catch (error) {
    log(`failed: ${(error as Error).message}`);
    process.exit(1);
  }
}

/**
 * The release that `deno task release` makes (scripts/release.ts), checked the way users meet
 * it: the archives and SHA256SUMS, every binary's header, MCP sessions with the host binary
 * (and the e2e suite), with linux-arm64 under qemu-user and with linux-x64-musl on musl,
 * install.sh against a local server, and the npm packages installed from a local registry and
 * started through npx, bunx and the launcher itself.
 *
 * It first builds the whole release into dist/release (about a minute and a half here; the bun
 * runtimes come from npm once and stay in ~/.cache/toolhost-release). TOOLHOST_RELEASE_DIR=path
 * checks a release that is already built instead: release.yml checks the files it uploads so.
 * Runs on x86_64 Linux, like the e2e tests.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { execFile, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import process from "node:process";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { type Entry, tarGz, zip } from "../../scripts/release/archive.ts";
import { runtimeExecutable } from "../../scripts/release/runtimes.ts";
import {
  archiveName,
  executableName,
  type Target,
  TARGETS,
} from "../../scripts/release/targets.ts";
import { executableHeader } from "../helpers/executable_header.ts";
import { type LocalServer, serve } from "../helpers/local_http.ts";
import { muslLibstdcxx } from "../helpers/musl_libstdcxx.ts";
import { npmRegistry } from "../helpers/npm_registry.ts";
import { childrenOf, stdioOf } from "../helpers/processes_tree.ts";
import { RawClient, ROOT } from "../helpers/raw_client.ts";
import { checkRipgrep, ripgrepNames } from "../helpers/release_ripgrep.ts";

const run = promisify(execFile);
const DENO = `${ROOT}node_modules/.bin/deno`;
const BIG = { maxBuffer: 64 * 1024 * 1024 };
const VERSION: string = JSON.parse(readFileSync(`${ROOT}package.json`, "utf8")).version;
const RELEASE = resolve(process.env.TOOLHOST_RELEASE_DIR ?? `${ROOT}dist/release`);
const COMMIT = "([0-9a-f]{12}(\\+changes)?|unknown)";
const VERSION_LINE = new RegExp(
  `^toolhost ${VERSION.replaceAll(".", "\\.")} \\(commit ${COMMIT}\\)\n$`,
);

const notHere = (process.platform !== "linux" || process.arch !== "x64") &&
  "the release tests run on x86_64 Linux";

function onPath(name: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(delimiter)) {
    const path = join(dir, name);
    if (dir && existsSync(path) && statSync(path).isFile()) return path;
  }
  return undefined;
}

// Only where the tests run: /proc/cpuinfo is Linux's (this file loads on Windows too).
const hasAvx2 = !notHere && /^flags\s*:.*\bavx2\b/m.test(readFileSync("/proc/cpuinfo", "utf8"));
const target = (name: string): Target => TARGETS.find((t) => t.name === name)!;
const binaryOf = (t: Target) => join(RELEASE, `toolhost-${t.name}`, executableName(t));
/** The build this machine runs natively. */
const HOST = target(hasAvx2 ? "linux-x64" : "linux-x64-baseline");

/** Temporary directories, removed when the file's tests end (they hold copies of the binary). */
const scratchDirs: string[] = [];
function scratch(prefix: string): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  scratchDirs.push(dir);
  return dir;
}
after(() => {
  for (const dir of scratchDirs) rmSync(dir, { recursive: true, force: true });
});

const sha256 = (data: Uint8Array) => createHash("sha256").update(data).digest("hex");

/** A test that needs something this machine may lack; without it, skipped with the reason. */
function testIf(name: string, skip: string | false, fn: () => Promise<void> | void): void {
  const why = notHere || skip;
  test(why ? `${name} [skipped: ${why}]` : name, { skip: why }, fn);
}

before(async () => {
  if (notHere || process.env.TOOLHOST_RELEASE_DIR) return;
  try {
    const { stderr } = await run(DENO, ["run", "--allow-all", "scripts/release.ts"], {
      cwd: ROOT,
      ...BIG,
    });
    // The sizes and times, for the log.
    process.stderr.write(stderr);
  } catch (error) {
    const { stderr = "" } = error as { stderr?: string };
    throw new Error(`deno task release failed:\n${stderr}`);
  }
});

/** The legacy handshake; the server says it is this version. */
async function initialize(client: RawClient): Promise<void> {
  // Emulated and launched servers start slower than the native binary: allow for it.
  const init = await client.request("initialize", {
    protocolVersion: "2025-11-25",
    capabilities: {},
    clientInfo: { name: "release-test", version: "1" },
  }, 60_000);
  assert.equal((init.result?.serverInfo as { version: string }).version, VERSION);
  client.notify("notifications/initialized");
}

/** A whole session: the handshake, a bash call that answers, end of input that exits 0. */
async function holdsSession(client: RawClient, initialized = false): Promise<void> {
  if (!initialized) await initialize(client);
  const call = await client.request("tools/call", {
    name: "bash",
    arguments: { command: "echo $((6 * 7))" },
  }, 60_000);
  assert.match(JSON.stringify(call.result?.content), /42\\n/);
  assert.deepEqual(await client.close(), { code: 0, signal: null });
  assert.deepEqual(client.strayLines, []);
}

// ---- the archives and SHA256SUMS ----------------------------------------------------------

testIf("there is an archive per platform, and SHA256SUMS verifies every one", false, () => {
  const lines = readFileSync(join(RELEASE, "SHA256SUMS"), "utf8").trimEnd().split("\n");
  const listed = new Map(lines.map((line) => {
    const match = line.match(/^([0-9a-f]{64}) {2}(\S+)$/);
    assert.ok(match, `a SHA256SUMS line in sha256sum's format: ${line}`);
    return [match[2], match[1]] as const;
  }));
  const expected = [...TARGETS.map(archiveName), "install.sh"].sort();
  assert.deepEqual([...listed.keys()].sort(), expected);
  for (const [name, hash] of listed) {
    assert.equal(sha256(readFileSync(join(RELEASE, name))), hash, name);
  }
  if (onPath("sha256sum")) {
    const check = spawnSync("sha256sum", ["--check", "--strict", "SHA256SUMS"], {
      cwd: RELEASE,
      encoding: "utf8",
    });
    assert.equal(check.status, 0, check.stdout + check.stderr);
  }
});

testIf(
  "each archive unpacks to toolhost-<platform>/ with the binary (executable), README.md, " +
    "LICENSE, the docs README.md links to and, when the release has it, rg with its licences",
  !onPath("unzip") && "unzip is not installed (apt-get install unzip)",
  () => {
    for (const t of TARGETS) {
      const into = scratch("toolhost-unpack-");
      const archive = join(RELEASE, archiveName(t));
      const unpack = t.os === "win32"
        ? spawnSync("unzip", ["-q", archive, "-d", into])
        : spawnSync("tar", ["-xzf", archive, "-C", into]);
      assert.equal(unpack.status, 0, `${archive}: ${unpack.stderr}`);
      const folder = `toolhost-${t.name}`;
      assert.deepEqual(readdirSync(into), [folder]);
      assert.deepEqual(
        readdirSync(join(into, folder)).sort(),
        ["LICENSE", "README.md", "docs", executableName(t), ...ripgrepNames(RELEASE, t)].sort(),
      );
      // Every page README.md links to is there, as in the repository.
      const readme = readFileSync(join(into, folder, "README.md"), "utf8");
      const linked = [...readme.matchAll(/\]\((docs\/[\w.-]+\.md)(#[\w-]*)?\)/g)].map((m) => m[1]);
      assert.ok(linked.length >= 5, "README.md links to the docs");
      for (const page of linked) {
        assert.ok(
          readFileSync(join(into, folder, page)).equals(readFileSync(`${ROOT}${page}`)),
          `${t.name}: ${page}`,
        );
      }
      for (const name of ripgrepNames(RELEASE, t)) {
        const built = join(RELEASE, folder, name);
        assert.ok(readFileSync(join(into, folder, name)).equals(readFileSync(built)), built);
      }
      const binary = join(into, folder, executableName(t));
      assert.equal(statSync(binary).mode & 0o777, 0o755, `${binary} is executable`);
      assert.ok(
        readFileSync(binary).equals(readFileSync(binaryOf(t))),
        `${t.name}: the built binary`,
      );
      assert.equal(
        readFileSync(join(into, folder, "LICENSE"), "utf8"),
        readFileSync(`${ROOT}LICENSE`, "utf8"),
      );
      assert.match(readFileSync(join(into, folder, "LICENSE"), "utf8"), /^MIT License/);
    }
  },
);

testIf("every binary's header names its platform, processor and C library", false, () => {
  const interpreter: Record<string, RegExp> = {
    "x64/glibc": /^\/lib64\/ld-linux-x86-64\.so\.2$/,
    "arm64/glibc": /^\/lib\/ld-linux-aarch64\.so\.1$/,
    "x64/musl": /^\/lib\/ld-musl-x86_64\.so\.1$/,
    "arm64/musl": /^\/lib\/ld-musl-aarch64\.so\.1$/,
  };
  for (const t of TARGETS) {
    const header = executableHeader(binaryOf(t));
    assert.equal(header.format, t.format, t.name);
    assert.equal(header.cpu, t.cpu, t.name);
    if (t.os === "linux") assert.match(header.interpreter ?? "", interpreter[`${t.cpu}/${t.libc}`]);
  }
});

testIf(
  "the archive writers give the same bytes every time, and tar and unzip read them",
  false,
  async () => {
    const entries: Entry[] = [
      { path: "demo/", mode: 0o755 },
      { path: "demo/run", data: Buffer.from("#!/bin/sh\necho ran\n"), mode: 0o755 },
      { path: "demo/notes.txt", data: Buffer.from("é".repeat(700)), mode: 0o644 },
    ];
    const dir = scratch("toolhost-archive-");
    const tgz = await tarGz(entries, 1_700_000_000);
    assert.ok(tgz.equals(await tarGz(entries, 1_700_000_000)));
    writeFileSync(join(dir, "a.tar.gz"), tgz);
    assert.equal(spawnSync("tar", ["-xzf", "a.tar.gz"], { cwd: dir }).status, 0);
    assert.equal(spawnSync(join(dir, "demo/run"), { encoding: "utf8" }).stdout, "ran\n");
    assert.equal(readFileSync(join(dir, "demo/notes.txt"), "utf8"), "é".repeat(700));
    assert.equal(statSync(join(dir, "demo/run")).mtimeMs, 1_700_000_000_000);

    const zipped = await zip(entries, 1_700_000_000);
    assert.ok(zipped.equals(await zip(entries, 1_700_000_000)));
    if (!onPath("unzip")) return;
    writeFileSync(join(dir, "a.zip"), zipped);
    const test = spawnSync("unzip", ["-t", "a.zip"], { cwd: dir, encoding: "utf8" });
    assert.equal(test.status, 0, test.stdout);
    assert.equal(spawnSync("unzip", ["-q", "-o", "a.zip", "-d", "z"], { cwd: dir }).status, 0);
    assert.equal(statSync(join(dir, "z/demo/run")).mode & 0o777, 0o755);
    assert.equal(readFileSync(join(dir, "z/demo/notes.txt"), "utf8"), "é".repeat(700));
  },
);

testIf("rg is beside toolhost in every platform ripgrep has a build for", false, () => {
  const without = checkRipgrep(RELEASE, TARGETS, HOST, VERSION);
  if (without.length > 0) {
    process.stderr.write(
      `NOTE: this release has no rg for ${without.join(", ")} (it could not be fetched here); ` +
        "TOOLHOST_REQUIRE_RIPGREP=1 makes that a failure\n",
    );
  }
});

// ---- the binaries at work ------------------------------------------------------------------

testIf(
  "the host binary prints its version and commit, and holds an MCP session",
  false,
  async () => {
    const out = spawnSync(binaryOf(HOST), ["--version"], { encoding: "utf8" });
    assert.match(out.stdout, VERSION_LINE);
    await holdsSession(new RawClient(binaryOf(HOST), []));
  },
);

testIf("the host binary passes the e2e suite", false, async () => {
  let output: string;
  try {
    const { stdout, stderr } = await run(DENO, ["test", "--allow-all", "tests/e2e/"], {
      cwd: ROOT,
      env: { ...process.env, TOOLHOST_BINARY: binaryOf(HOST), NO_COLOR: "1" },
      ...BIG,
    });
    output = stdout + stderr;
  } catch (error) {
    const { stdout = "", stderr = "" } = error as { stdout?: string; stderr?: string };
    assert.fail(`the e2e suite failed on ${binaryOf(HOST)}:\n${(stdout + stderr).slice(-6000)}`);
  }
  assert.match(output, /^ok \| [1-9]\d* passed \| 0 failed/m);
});

const QEMU = onPath("qemu-aarch64") ?? onPath("qemu-aarch64-static");
const ARM64_SYSROOT = "/usr/aarch64-linux-gnu";
const qemuMissing = (!QEMU && "qemu-user is not installed (apt-get install qemu-user)") ||
  (!existsSync(`${ARM64_SYSROOT}/lib/ld-linux-aarch64.so.1`) &&
    `arm64 glibc is not in ${ARM64_SYSROOT} (apt-get install libc6-arm64-cross)`);

testIf("the linux-arm64 binary holds an MCP session under qemu-user", qemuMissing, async () => {
  const arm64 = binaryOf(target("linux-arm64"));
  const args = ["-L", ARM64_SYSROOT, arm64];
  const version = spawnSync(QEMU!, [...args, "--version"], { encoding: "utf8" });
  assert.match(version.stdout, VERSION_LINE, version.stderr);
  await holdsSession(new RawClient(QEMU!, args));
});

const musl = notHere ? { missing: notHere } : muslLibstdcxx();
if ("dir" in musl) scratchDirs.push(musl.dir);
const muslMissing = "missing" in musl && musl.missing;
const muslEnv = () => ({ LD_LIBRARY_PATH: "dir" in musl ? musl.dir : "" });

testIf("the linux-x64-musl binary holds an MCP session on musl", muslMissing, async () => {
  const binary = binaryOf(target("linux-x64-musl"));
  const version = spawnSync(binary, ["--version"], {
    encoding: "utf8",
    env: { ...process.env, ...muslEnv() },
  });
  assert.match(version.stdout, VERSION_LINE, version.stderr);
  await holdsSession(new RawClient(binary, [], ROOT, muslEnv()));
});

// ---- install.sh --------------------------------------------------------------------------

/** Serves the release directory, with `replaced` files swapped in (a tampered archive). */
function releaseServer(replaced: Record<string, Buffer> = {}): Promise<LocalServer> {
  return serve((path) => {
    const name = path.slice(1);
    if (replaced[name]) return replaced[name];
    const file = join(RELEASE, name);
    return name && !name.includes("/") && existsSync(file) ? readFileSync(file) : undefined;
  });
}

/** Runs install.sh (asynchronously: the server answering it lives in this process). */
async function installSh(
  server: LocalServer,
  args: string[] = [],
  env: Record<string, string> = {},
): Promise<{ status: number; stdout: string; stderr: string; home: string }> {
  const home = scratch("toolhost-install-");
  try {
    const { stdout, stderr } = await run("/bin/sh", [join(RELEASE, "install.sh"), ...args], {
      env: { PATH: process.env.PATH ?? "", HOME: home, TOOLHOST_BASE_URL: server.url, ...env },
      timeout: 120_000,
      ...BIG,
    });
    return { status: 0, stdout, stderr, home };
  } catch (error) {
    const { code, stdout = "", stderr = "" } = error as {
      code?: number;
      stdout?: string;
      stderr?: string;
    };
    return { status: typeof code === "number" ? code : -1, stdout, stderr, home };
  }
}

testIf(
  "install.sh downloads this machine's archive, checks it, installs it and prints the .mcp.json entry",
  false,
  async () => {
    const server = await releaseServer();
    try {
      const out = await installSh(server);
      assert.equal(out.status, 0, out.stderr);
      const installed = join(out.home, ".local/bin/toolhost");
      assert.deepEqual(server.requests, [`/${archiveName(HOST)}`, "/SHA256SUMS"]);
      assert.ok(readFileSync(installed).equals(readFileSync(binaryOf(HOST))));
      assert.match(spawnSync(installed, ["--version"], { encoding: "utf8" }).stdout, VERSION_LINE);
      // stdout is the entry alone, ready to paste; what happened went to stderr.
      const entry = JSON.parse(out.stdout).mcpServers.toolhost;
      assert.equal(entry.command, installed);
      assert.match(out.stderr, new RegExp(`Installed toolhost ${VERSION.replaceAll(".", "\\.")} `));
      assert.match(out.stderr, /is not on your PATH/);
    } finally {
      await server.close();
    }
  },
);

testIf("install.sh works piped into sh, as in curl … | sh -s -- DIR", false, async () => {
  const server = await releaseServer();
  try {
    const into = join(scratch("toolhost-install-"), "bin");
    const piped = run("/bin/sh", ["-s", "--", into], {
      env: {
        PATH: process.env.PATH ?? "",
        HOME: scratch("toolhost-home-"),
        TOOLHOST_BASE_URL: server.url,
      },
      timeout: 120_000,
      ...BIG,
    });
    piped.child.stdin!.end(readFileSync(join(RELEASE, "install.sh")));
    const { stdout } = await piped;
    assert.equal(JSON.parse(stdout).mcpServers.toolhost.command, join(into, "toolhost"));
    assert.match(
      spawnSync(join(into, "toolhost"), ["--version"], { encoding: "utf8" }).stdout,
      VERSION_LINE,
    );
  } finally {
    await server.close();
  }
});

testIf("install.sh refuses a tampered archive and installs nothing", false, async () => {
  const archive = Buffer.from(readFileSync(join(RELEASE, archiveName(HOST))));
  archive[archive.length >> 1] ^= 0xff;
  const server = await releaseServer({ [archiveName(HOST)]: archive });
  try {
    const into = join(scratch("toolhost-install-"), "bin");
    const out = await installSh(server, [into]);
    assert.notEqual(out.status, 0);
    assert.match(
      out.stderr,
      /checksum mismatch for toolhost-linux-x64[\w-]*\.tar\.gz.*Nothing was installed/,
    );
    assert.equal(existsSync(into), false);
    assert.equal(out.stdout, "");
  } finally {
    await server.close();
  }
});

/**
 * A PATH with only the tools install.sh may use, a fake `uname` (and `sysctl`) saying what
 * machine this is, and one downloader and one checksum tool.
 */
function fakeMachine(
  os: string,
  machine: string,
  tools: { downloader: "curl" | "wget"; checksum: "sha256sum" | "shasum"; rosetta?: boolean },
): string {
  const bin = scratch("toolhost-path-");
  const needed = ["sh", "mktemp", "rm", "awk", "cut", "tar", "gzip", "mkdir", "cp", "chmod", "mv"]
    .concat(["getconf", "grep", "ldd", "cat", tools.downloader, tools.checksum]);
  for (const name of needed) {
    const real = onPath(name);
    if (real) symlinkSync(real, join(bin, name));
  }
  const script = (name: string, body: string) => {
    writeFileSync(join(bin, name), `#!/bin/sh\n${body}\n`);
    chmodSync(join(bin, name), 0o755);
  };
  script("uname", `case "$1" in -s) echo ${os} ;; -m) echo ${machine} ;; *) echo ${os} ;; esac`);
  if (tools.rosetta !== undefined) script("sysctl", `echo ${tools.rosetta ? 1 : 0}`);
  return bin;
}

testIf(
  "install.sh picks the archive for the OS and processor, with wget or curl, sha256sum or shasum",
  (!onPath("wget") && "wget is not installed") || (!onPath("shasum") && "shasum is missing"),
  async () => {
    // Small stand-ins for the archives: each "binary" cannot run, so the entry is printed by hand.
    const files: Record<string, Buffer> = {};
    const sums: string[] = [];
    for (const t of TARGETS.filter((t) => t.os !== "win32")) {
      const folder = `toolhost-${t.name}`;
      const archive = await tarGz([
        { path: `${folder}/`, mode: 0o755 },
        { path: `${folder}/toolhost`, data: Buffer.from("#!/bin/sh\nexit 1\n"), mode: 0o755 },
      ], 0);
      files[archiveName(t)] = archive;
      sums.push(`${sha256(archive)}  ${archiveName(t)}\n`);
    }
    files.SHA256SUMS = Buffer.from(sums.join(""));
    const server = await serve((path) => files[path.slice(1)]);
    const cases = [
      ["Darwin", "arm64", { downloader: "wget", checksum: "shasum" }, "darwin-arm64"],
      [
        "Darwin",
        "x86_64",
        { downloader: "curl", checksum: "shasum", rosetta: true },
        "darwin-arm64",
      ],
      [
        "Darwin",
        "x86_64",
        { downloader: "wget", checksum: "sha256sum", rosetta: false },
        "darwin-x64",
      ],
      ["Linux", "aarch64", { downloader: "wget", checksum: "sha256sum" }, "linux-arm64"],
      ["Linux", "x86_64", { downloader: "wget", checksum: "shasum" }, HOST.name],
    ] as const;
    try {
      for (const [os, machine, tools, expected] of cases) {
        server.requests.length = 0;
        const into = join(scratch("toolhost-install-"), "bin");
        const out = await installSh(server, [into], { PATH: fakeMachine(os, machine, tools) });
        const what = `${os} ${machine} with ${tools.downloader} and ${tools.checksum}`;
        assert.equal(out.status, 0, `${what}: ${out.stderr}`);
        assert.deepEqual(server.requests, [`/toolhost-${expected}.tar.gz`, "/SHA256SUMS"], what);
        assert.equal(JSON.parse(out.stdout).mcpServers.toolhost.command, join(into, "toolhost"));
      }
      for (
        const [os, machine, why] of [["FreeBSD", "amd64", /no toolhost build for FreeBSD/], [
          "Linux",
          "riscv64",
          /no toolhost build for the riscv64 processor/,
        ]] as const
      ) {
        const tools = { downloader: "curl", checksum: "sha256sum" } as const;
        const out = await installSh(server, [], { PATH: fakeMachine(os, machine, tools) });
        assert.equal(out.status, 1);
        assert.match(out.stderr, why);
      }
    } finally {
      await server.close();
    }
  },
);

testIf(
  "install.sh is clean under shellcheck as POSIX sh",
  !onPath("shellcheck") && "shellcheck is not installed (apt-get install shellcheck)",
  () => {
    const out = spawnSync("shellcheck", ["--shell=sh", `${ROOT}install.sh`], { encoding: "utf8" });
    assert.equal(out.status, 0, out.stdout);
  },
);

// ---- the npm packages ----------------------------------------------------------------------

let registry: LocalServer | undefined;
after(async () => await registry?.close());

/** A project with `toolhost` installed by npm from the packed tarballs, through a local registry. */
async function npmProject(
  packages: string[],
  flags: string[] = [],
): Promise<{ dir: string; downloaded: string[] }> {
  registry ??= await npmRegistry(join(RELEASE, "npm"));
  const dir = scratch("toolhost-npm-");
  writeFileSync(join(dir, "package.json"), '{ "private": true }\n');
  const before = registry.requests.length;
  await run("npm", [
    "install",
    ...packages,
    ...flags,
    `--registry=${registry.url}`,
    `--cache=${join(dir, ".npm-cache")}`,
    "--no-audit",
    "--no-fund",
    "--loglevel=error",
  ], { cwd: dir, ...BIG });
  const downloaded = registry.requests.slice(before).filter((path) => path.startsWith("/-/"));
  return { dir, downloaded: downloaded.sort() };
}

let glibcProject: Promise<{ dir: string; downloaded: string[] }> | undefined;
// Without AVX2, the baseline build is asked for, as the README says.
const project = () => (glibcProject ??= npmProject(
  hasAvx2 ? ["toolhost"] : ["toolhost", "@toolhost/linux-x64-baseline"],
));
const tarball = (name: string) => `/-/${name}-${VERSION}.tgz`;

testIf(
  "npm installs the launcher and only the platform package that fits this machine",
  false,
  async () => {
    const { dir, downloaded } = await project();
    const expected = hasAvx2 ? ["linux-x64"] : ["linux-x64", "linux-x64-baseline"];
    assert.deepEqual(readdirSync(join(dir, "node_modules/@toolhost")).sort(), expected);
    assert.deepEqual(
      downloaded,
      [tarball("toolhost"), ...expected.map((n) => tarball(`toolhost-${n}`))].sort(),
    );
    const manifest = JSON.parse(
      readFileSync(join(dir, "node_modules/toolhost/package.json"), "utf8"),
    );
    assert.equal(manifest.version, VERSION);
    for (const version of Object.values(manifest.optionalDependencies)) {
      assert.equal(version, VERSION);
    }
  },
);

interface Manifest {
  os?: string[];
  cpu?: string[];
  libc?: string[];
  optionalDependencies?: Record<string, string>;
}

/** `name`@VERSION as the local registry serves it, from its packed tarball. */
async function manifestOf(name: string): Promise<Manifest | undefined> {
  registry ??= await npmRegistry(join(RELEASE, "npm"));
  const reply = await fetch(`${registry.url}/${name}`);
  if (!reply.ok) {
    await reply.body?.cancel();
    return undefined;
  }
  const packument = await reply.json() as { versions: Record<string, Manifest> };
  return packument.versions[VERSION];
}

testIf(
  "every optional dependency of the launcher is a packed @toolhost package for its os, cpu and libc",
  false,
  async () => {
    const optional = (await manifestOf("toolhost"))?.optionalDependencies ?? {};
    const published = TARGETS.filter((t) => !t.baseline).map((t) => `@toolhost/${t.name}`);
    assert.deepEqual(Object.keys(optional).sort(), published.sort());
    for (const t of TARGETS) {
      const name = `@toolhost/${t.name}`;
      if (!t.baseline) assert.equal(optional[name], VERSION, name);
      const manifest = await manifestOf(name);
      assert.ok(manifest, `${name}@${VERSION} is packed`);
      assert.deepEqual(
        [manifest.os, manifest.cpu, manifest.libc],
        [[t.os], [t.cpu], t.libc ? [t.libc] : undefined],
        name,
      );
      const tgz = join(RELEASE, "npm", `toolhost-${t.name}-${VERSION}.tgz`);
      const { stdout } = await run("tar", ["-tvzf", tgz], BIG);
      assert.match(stdout, new RegExp(`^-rwxr-xr-x .* package/bin/${executableName(t)}$`, "m"));
    }
  },
);

testIf("npx -y toolhost holds an MCP session, served by the native binary", false, async () => {
  const { dir } = await project();
  const npx = onPath("npx");
  assert.ok(npx, "npx is on PATH");
  const client = new RawClient(npx, ["-y", "toolhost"], dir, { npm_config_offline: "true" });
  await initialize(client);
  const native = (pid: number): boolean =>
    childrenOf(pid).some((child) => {
      try {
        return readlinkSync(`/proc/${child}/exe`).endsWith(`@toolhost/${HOST.name}/bin/toolhost`) ||
          native(child);
      } catch {
        return false;
      }
    });
  assert.ok(native(client.child.pid!), "a descendant of npx is the @toolhost binary");
  await holdsSession(client, true);
});

testIf("through the launcher, --mcp-json names npx, not a path in npm's cache", false, async () => {
  const { dir } = await project();
  const { stdout } = await run(join(dir, "node_modules/.bin/toolhost"), [
    "--mcp-json",
    "--read-only",
  ], {
    cwd: dir,
  });
  const entry = JSON.parse(stdout).mcpServers.toolhost;
  assert.deepEqual([entry.command, entry.args], ["npx", ["-y", "toolhost", "--read-only"]]);
});

testIf("bunx toolhost holds an MCP session", false, async () => {
  const { dir } = await project();
  await holdsSession(new RawClient(`${ROOT}node_modules/.bin/bun`, ["x", "toolhost"], dir));
});

testIf("the launcher hands its own stdin, stdout and stderr to the binary", false, async () => {
  const { dir } = await project();
  const client = new RawClient(join(dir, "node_modules/.bin/toolhost"), [], dir);
  await initialize(client);
  const [child] = childrenOf(client.child.pid!);
  assert.ok(child, "the launcher runs the binary as its child");
  assert.match(
    readlinkSync(`/proc/${child}/exe`),
    /node_modules\/@toolhost\/linux-x64[\w-]*\/bin\/toolhost$/,
  );
  assert.deepEqual(stdioOf(child), stdioOf(client.child.pid!));
  await holdsSession(client, true);
});

testIf(
  "the launcher passes SIGTERM, SIGINT and SIGHUP to the binary and exits as it did",
  false,
  async () => {
    const { dir } = await project();
    for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) {
      const client = new RawClient(join(dir, "node_modules/.bin/toolhost"), [], dir);
      await initialize(client);
      // process.kill, not client.child.kill: Deno's ChildProcess.kill also closes the pipes and
      // reports the signal it sent as the way the process ended, whatever really happened.
      process.kill(client.child.pid!, signal);
      assert.deepEqual(await client.exited, { code: 0, signal: null }, signal);
      // The binary's own words: it got the signal and shut down in order.
      assert.match(client.stderr, new RegExp(`stopping \\(${signal}\\)`));
    }
  },
);

testIf(
  "the launcher dies of the signal that killed the binary, and passes exit codes on",
  false,
  async () => {
    const { dir } = await project();
    const launcher = join(dir, "node_modules/.bin/toolhost");
    const client = new RawClient(launcher, [], dir);
    await initialize(client);
    const [child] = childrenOf(client.child.pid!);
    process.kill(child, "SIGKILL");
    assert.deepEqual(await client.exited, { code: null, signal: "SIGKILL" });

    const bad = spawnSync(launcher, ["--bogus"], { encoding: "utf8", input: "" });
    assert.equal(bad.status, 2);
    assert.match(bad.stderr, /^toolhost: unknown flag "--bogus"/);
    assert.match(spawnSync(launcher, ["--version"], { encoding: "utf8" }).stdout, VERSION_LINE);
  },
);

testIf(
  "on musl, the launcher runs @toolhost/linux-x64-musl; under glibc it says that package is not for it",
  muslMissing,
  async () => {
    const { dir } = await npmProject(["toolhost"], ["--libc=musl"]);
    assert.deepEqual(readdirSync(join(dir, "node_modules/@toolhost")), ["linux-x64-musl"]);
    const launcher = join(dir, "node_modules/toolhost/bin/toolhost.js");
    // bun's musl runtime (what bunx is on Alpine) stands in for a musl Node.
    const muslBun = await runtimeExecutable(target("linux-x64-musl"));
    const onMusl = spawnSync(muslBun, [launcher, "--version"], {
      encoding: "utf8",
      env: { ...process.env, ...muslEnv() },
    });
    assert.match(onMusl.stdout, VERSION_LINE, onMusl.stderr);
    const onGlibc = spawnSync("node", [launcher, "--version"], { encoding: "utf8" });
    assert.equal(onGlibc.status, 1);
    assert.match(
      onGlibc.stderr,
      /@toolhost\/linux-x64\S*( that holds the binary for this machine)? is not installed/,
    );
  },
);

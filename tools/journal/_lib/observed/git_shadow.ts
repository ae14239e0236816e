/**
 * toolhost's private git directory for snapshots of one repository's work tree: made per server
 * (so two servers never share an index) under the project's state directory, removed when the
 * server stops (and, if it died, by the next server that looks). Its objects are its own and the
 * repository's are borrowed read-only (objects/info/alternates), so nothing is ever written into
 * the user's repository, and the user's `git gc` can take nothing toolhost needs: what undo needs
 * is copied into the journal's own store when a call is recorded. Its index starts as a copy of
 * the repository's, with the bits that would hide changes cleared (assume-unchanged,
 * skip-worktree); the first snapshot reads each tracked file once to check that its bytes are what
 * that index records (git_engine.ts), and writes objects only for those that are not.
 *
 * Only a root that is the top of a work tree (it holds `.git`, a directory or a `gitdir:` file) is
 * snapshotted with git; a root inside a repository, or a `.git` that is a link, is walked instead.
 */
import { Buffer } from "node:buffer";
import { existsSync } from "node:fs";
import { homedir } from "node:os";
import { copyFile, mkdir, readdir, rm, writeFile } from "node:fs/promises";
import { dirname, isAbsolute, join, resolve } from "node:path";
import process from "node:process";
import { type Dir, openByPath } from "../../../_lib/sandbox/mod.ts";
import { git, type GitPlace, gitVersion, zFields } from "./git_run.ts";

/** A repository whose top is a root. */
export interface Repository {
  root: string;
  /** Its git directory (a worktree's own one for a linked worktree). */
  gitDir: string;
  /** Where its objects and config are (the main git directory for a linked worktree). */
  commonDir: string;
  objectFormat: "sha1" | "sha256";
  ignoreCase: boolean;
}

/** The oldest git the snapshots were checked with (ls-files -t, update-index --stdin -z). */
const MIN_GIT = [2, 20];

const SMALL_FILE = 64 << 10;

/**
 * A small file of the repository's git directory, never through a link at its end: what is read
 * here is copied into the state directory, which commands may read, and a command may replace
 * `.git/info/exclude` with a link to `~/.ssh/id_ed25519`.
 */
async function readSmall(path: string): Promise<string | undefined> {
  const handle = await openByPath(path, "read").catch(() => undefined);
  if (!handle) return undefined;
  try {
    if (!(await handle.stat()).isFile()) return undefined;
    const bytes = Buffer.alloc(SMALL_FILE);
    const { bytesRead } = await handle.read(bytes, 0, SMALL_FILE, 0);
    return bytes.subarray(0, bytesRead).toString("utf8");
  } finally {
    await handle.close();
  }
}

/** Whether git's config text sets `key` (in section `[core]`, say) to true. */
function configTrue(text: string, key: string): boolean {
  return new RegExp(`^\\s*${key}\\s*=\\s*(true|yes|on|1)\\s*$`, "im").test(text);
}

/**
 * The repository whose top is `root` (held open as `dir`), or why it is not snapshotted with git
 * (a string): no `.git`, a `.git` that is a link, no usable git.
 */
export async function repositoryAt(root: string, dir: Dir): Promise<Repository | string> {
  const info = await dir.lstat(".git").catch(() => undefined);
  if (!info) return "not the top of a git work tree";
  let gitDir: string;
  if (info.isDirectory()) gitDir = join(root, ".git");
  else if (info.isFile()) {
    const handle = await dir.openFile(".git");
    let text: string;
    try {
      const bytes = Buffer.alloc(4096);
      const { bytesRead } = await handle.read(bytes, 0, 4096, 0);
      text = bytes.subarray(0, bytesRead).toString("utf8");
    } finally {
      await handle.close();
    }
    const named = /^gitdir:\s*(.+?)\s*$/m.exec(text)?.[1];
    if (!named) return ".git is a file that names no git directory";
    gitDir = isAbsolute(named) ? named : resolve(root, named);
  } else return ".git is neither a directory nor a file";
  const common = (await readSmall(join(gitDir, "commondir")))?.trim();
  const commonDir = common ? resolve(gitDir, common) : gitDir;
  const config = await readSmall(join(commonDir, "config"));
  if (config === undefined) return `${commonDir} holds no git config`;
  const version = await gitVersion();
  if (!version) return "git cannot be run here";
  if (version[0] < MIN_GIT[0] || (version[0] === MIN_GIT[0] && version[1] < MIN_GIT[1])) {
    return `git ${version.join(".")} is older than ${MIN_GIT.join(".")}`;
  }
  return {
    root,
    gitDir,
    commonDir,
    objectFormat: /^\s*objectformat\s*=\s*sha256\s*$/im.test(config) ? "sha256" : "sha1",
    ignoreCase: configTrue(config, "ignorecase"),
  };
}

/**
 * The settings of toolhost's git directory: nothing that runs a program or converts content,
 * no automatic gc, fast loose objects. Attributes are overridden for every path by
 * info/attributes, which outranks the work tree's .gitattributes.
 */
function shadowConfig(repo: Repository, excludesFile: string | undefined): string {
  return [
    "[core]",
    "\tbare = false",
    "\tfilemode = " + (process.platform === "win32" ? "false" : "true"),
    "\tsymlinks = " + (process.platform === "win32" ? "false" : "true"),
    `\tignorecase = ${repo.ignoreCase}`,
    "\tautocrlf = false",
    "\tsafecrlf = false",
    "\tfsmonitor = false",
    "\tuntrackedCache = false",
    "\tsplitIndex = false",
    "\tpreloadIndex = true",
    "\tlooseCompression = 1",
    "\thooksPath = " + (process.platform === "win32" ? "NUL" : "/dev/null"),
    "\tattributesFile = " + (process.platform === "win32" ? "NUL" : "/dev/null"),
    ...(excludesFile ? [`\texcludesFile = ${quoteConfig(excludesFile)}`] : []),
    "[status]",
    "\trenames = false",
    "\tshowUntrackedFiles = all",
    "\tsubmoduleSummary = false",
    "[gc]",
    "\tauto = 0",
    "[maintenance]",
    "\tauto = false",
    "[index]",
    "\tsparse = false",
    "",
  ].join("\n");
}

/** Every attribute that changes bytes on their way into git, unset for every path. */
const NO_CONVERSION = "* -text -eol -crlf -ident -filter -working-tree-encoding\n";

/** The directory of this server's private git directories for a project. */
export function shadowsDir(projectDir: string): string {
  return join(projectDir, "snapshots");
}

/**
 * Makes this server's git directory for `repo` at `dir` (anything there before is replaced) and
 * seeds its index from the repository's. Returns where git calls go.
 */
export async function makeShadow(repo: Repository, dir: string): Promise<GitPlace> {
  await rm(dir, { recursive: true, force: true });
  await mkdir(dirname(dir), { recursive: true });
  const format = repo.objectFormat === "sha256" ? ["--object-format=sha256"] : [];
  await git(["init", "--quiet", "--bare", "--template=", ...format, dir], undefined);
  const global = globalIgnoreFile();
  const excludesFile = existsSync(global) ? global : undefined;
  await writeFile(join(dir, "config"), shadowConfig(repo, excludesFile) + formatConfig(repo));
  await writeFile(join(dir, "HEAD"), "ref: refs/heads/snapshot\n");
  await mkdir(join(dir, "info"), { recursive: true });
  await writeFile(join(dir, "info", "attributes"), NO_CONVERSION);
  // The repository's own ignore rules besides its .gitignore files.
  const exclude = await readSmall(join(repo.commonDir, "info", "exclude"));
  if (exclude !== undefined) await writeFile(join(dir, "info", "exclude"), exclude);
  await mkdir(join(dir, "objects", "info"), { recursive: true });
  await writeFile(
    join(dir, "objects", "info", "alternates"),
    join(repo.commonDir, "objects") + "\n",
  );
  const place = { gitDir: dir, workTree: repo.root };
  // A copy of the user's index: what it records unchanged is not read again. One git cannot
  // read (a split index, a newer format) is dropped: then every file is read once.
  const seeded = await copyIndex(join(repo.gitDir, "index"), join(dir, "index")).then(
    () => true,
    () => false,
  );
  if (seeded) {
    try {
      await clearHidingBits(place);
    } catch {
      await rm(join(dir, "index"), { force: true });
    }
  }
  return place;
}

/**
 * Copies the repository's index, which commands may replace: never through a link (a link to a
 * credential would be copied where commands read), never blocking (a FIFO there held the first
 * command of every server for good), and only a regular file.
 */
async function copyIndex(from: string, to: string): Promise<void> {
  const handle = await openByPath(from, "read");
  try {
    if (!(await handle.stat()).isFile()) throw new Error(`${from} is not a regular file`);
    // The open file itself, whatever its name leads to now; elsewhere its bytes.
    if (process.platform === "linux") await copyFile(`/proc/self/fd/${handle.fd}`, to);
    else await writeFile(to, await handle.readFile());
  } finally {
    await handle.close();
  }
}

/** A value in git's config syntax: quoted, with `"` and `\` escaped. */
function quoteConfig(value: string): string {
  return `"${value.replace(/[\\"]/g, "\\$&")}"`;
}

/** The user's global ignore file at its default place (git's core.excludesFile default). */
function globalIgnoreFile(): string {
  const xdg = process.env.XDG_CONFIG_HOME;
  return join(xdg && xdg !== "" ? xdg : join(homedir(), ".config"), "git", "ignore");
}

function formatConfig(repo: Repository): string {
  if (repo.objectFormat !== "sha256") return "";
  return "[core]\n\trepositoryformatversion = 1\n[extensions]\n\tobjectformat = sha256\n";
}

/**
 * Entries marked assume-unchanged or skip-worktree are never compared with the work tree: the
 * marks are cleared in the copy, so a change there is seen like any other.
 */
async function clearHidingBits(place: GitPlace): Promise<void> {
  const listed = zFields(await git(["ls-files", "-z", "-v"], place));
  const hidden = listed.filter((line) => /^[a-zS]/.test(line)).map((line) => line.slice(2));
  if (hidden.length === 0) return;
  await git(
    ["update-index", "-z", "--no-assume-unchanged", "--no-skip-worktree", "--stdin"],
    place,
    { input: Buffer.from(hidden.map((path) => path + "\0").join("")) },
  );
}

/** Removes the private git directories of servers that are gone (a pid no longer running). */
export async function removeStaleShadows(projectDir: string, mine: string): Promise<void> {
  const dir = shadowsDir(projectDir);
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    if (name === mine) continue;
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (!Number.isSafeInteger(pid) || alive(pid)) continue;
    await rm(join(dir, name), { recursive: true, force: true }).catch(() => {});
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

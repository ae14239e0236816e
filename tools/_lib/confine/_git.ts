/**
 * What keeps a command in a writable root from planting code that git runs later, outside any
 * sandbox: each repository's hooks and config are read-only, and its git directory is pinned (it
 * cannot be renamed or removed to get around that), while objects, refs and the index stay
 * writable so commits work. Looked up at each spawn: a command may have made a repository since.
 */
import {
  lstatSync,
  mkdirSync,
  opendirSync,
  readdirSync,
  readFileSync,
  realpathSync,
} from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

/** What the sandbox must do for the repositories of the writable roots. */
export interface GitProtection {
  /** Pinned: bound onto themselves (EBUSY on rename or removal). */
  pinned: string[];
  /** Read-only, with why: ".git/hooks", ".git/config", a gitfile. */
  readOnly: { path: string; why: string }[];
  /** Git directories outside the roots that commits must write (a worktree's). */
  writable: string[];
  /** What the result should say: why commits will fail in a repository made wholly read-only. */
  notes: string[];
}

/** How deep `.git/modules` nests submodules' git directories that are looked at. */
const MODULES_DEPTH = 3;
/** Submodules' git directories looked at, at most, per repository. */
const MODULES_MAX = 64;

/** Looked up at each spawn: without an exception for the common answer, "not there". */
function kind(path: string): "dir" | "file" | "link" | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false });
  if (!info) return undefined;
  return info.isSymbolicLink() ? "link" : info.isDirectory() ? "dir" : "file";
}

/** The git directory a `.git` file names ("gitdir: ../.git/worktrees/x"), if it names one. */
function gitfileTarget(file: string): string | undefined {
  try {
    const text = readFileSync(file, "utf8").slice(0, 4096);
    const match = /^gitdir: (.+?)\s*$/m.exec(text);
    return match ? resolve(dirname(file), match[1]) : undefined;
  } catch {
    return undefined;
  }
}

/** A worktree's git directory names its repository's common directory in `commondir`. */
function commonDir(gitDir: string): string {
  if (kind(join(gitDir, "commondir")) !== "file") return gitDir;
  try {
    const text = readFileSync(join(gitDir, "commondir"), "utf8").trim();
    return text ? resolve(gitDir, text) : gitDir;
  } catch {
    return gitDir;
  }
}

/**
 * Whether `gitDir` is a linked worktree's git directory made by `git worktree add` for the
 * gitfile `dotGit`: `<common>/worktrees/<name>`, whose `gitdir` file names `dotGit` back.
 */
function linkedWorktree(dotGit: string, gitDir: string, common: string): boolean {
  if (
    basename(dirname(gitDir)) !== "worktrees" || real(dirname(dirname(gitDir))) !== real(common)
  ) {
    return false;
  }
  if (kind(dotGit) !== "file") return false;
  try {
    const back = readFileSync(join(gitDir, "gitdir"), "utf8").slice(0, 4096).trim();
    return back !== "" && real(resolve(gitDir, back)) === real(dotGit);
  } catch {
    return false;
  }
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * Protects one git directory: pinned, `hooks` and `config` read-only. A missing `hooks` is made
 * first (an empty directory), so there is something to bind; a `hooks` or `config` that is a
 * symlink could lead anywhere, so the whole directory goes read-only instead.
 */
function protect(gitDir: string, out: GitProtection, shown: string): void {
  out.pinned.push(gitDir);
  const hooks = join(gitDir, "hooks");
  if (kind(hooks) === undefined) {
    try {
      mkdirSync(hooks);
    } catch {
      // a read-only repository: nothing can be written into it anyway
    }
  }
  if (kind(hooks) === "link" || kind(join(gitDir, "config")) === "link") {
    out.readOnly.push({ path: gitDir, why: `${shown} (its hooks or config is a symlink)` });
    out.notes.push(
      `${shown} is read-only for commands: its hooks or config is a symlink, which could lead ` +
        "anywhere, so commits there will fail; make them plain files to commit from commands",
    );
    return;
  }
  out.readOnly.push({ path: hooks, why: `${shown}/hooks` });
  out.readOnly.push({ path: join(gitDir, "config"), why: `${shown}/config` });
  if (kind(join(gitDir, "config.worktree")) === "file") {
    out.readOnly.push({ path: join(gitDir, "config.worktree"), why: `${shown}/config.worktree` });
  }
}

/** Submodules' git directories under `.git/modules`, nested ones too, bounded. */
function modules(gitDir: string, depth: number, found: string[]): void {
  if (depth > MODULES_DEPTH || found.length >= MODULES_MAX) return;
  const dir = join(gitDir, "modules");
  if (kind(dir) !== "dir") return;
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const sub = join(dir, name);
    if (kind(sub) !== "dir" || found.length >= MODULES_MAX) continue;
    if (kind(join(sub, "HEAD")) === "file") {
      found.push(sub);
      modules(sub, depth + 1, found);
    } else modules(sub, depth, found); // a submodule named a/b: modules/a/b
  }
}

/** Entries of a root looked at for repositories one level down, at most (each spawn reads them). */
const CHILDREN_MAX = 1000;

/**
 * The directories of `root` (not links), up to CHILDREN_MAX entries read: a root that holds
 * several repositories (`~/code`) has theirs one level down, where git later runs their hooks.
 */
function childDirectories(root: string): string[] {
  const found: string[] = [];
  let dir;
  try {
    dir = opendirSync(root);
  } catch {
    return found;
  }
  try {
    for (let read = 0; read < CHILDREN_MAX; read++) {
      const entry = dir.readSync();
      if (!entry) break;
      if (entry.isDirectory() && entry.name !== ".git") found.push(join(root, entry.name));
    }
  } finally {
    dir.closeSync();
  }
  return found;
}

/**
 * The protection for the repositories at the top of `roots` (writable places) and one level
 * inside them: `.git` pinned as a directory, or read-only as a gitfile (which could otherwise
 * point git elsewhere); the worktree's git directory and the common directory protected, and
 * writable when outside.
 */
export function gitProtection(
  roots: readonly string[],
  isWritable: (path: string) => boolean,
): GitProtection {
  const out: GitProtection = { pinned: [], readOnly: [], writable: [], notes: [] };
  const seen = new Set<string>();
  for (const root of roots) {
    protectRepository(root, out, seen, isWritable, "");
    for (const child of childDirectories(root)) {
      protectRepository(child, out, seen, isWritable, `${child.slice(root.length + 1)}/`);
    }
  }
  return out;
}

/** The repository whose top is `top`, if it is one; `shown` prefixes ".git" in messages. */
function protectRepository(
  top: string,
  out: GitProtection,
  seen: Set<string>,
  isWritable: (path: string) => boolean,
  shown: string,
): void {
  const dotGit = join(top, ".git");
  let gitDir: string | undefined;
  switch (kind(dotGit)) {
    case "dir":
      gitDir = dotGit;
      break;
    case "link":
      gitDir = real(dotGit);
      break;
    case "file":
      out.readOnly.push({
        path: dotGit,
        why: `${shown}.git (the gitfile naming the git directory)`,
      });
      gitDir = gitfileTarget(dotGit);
      break;
  }
  if (!gitDir || kind(gitDir) !== "dir") return;
  // Real paths: a link on the way (in the root, which commands write) cannot be turned elsewhere
  // between this look and the helper's.
  gitDir = real(gitDir);
  const common = real(commonDir(gitDir));
  // A git directory outside the writable places is made writable only for a worktree that git
  // itself linked to this one: otherwise a `.git` a command wrote (a gitfile or a link naming
  // ~, say) would open that place to the next command.
  // A place no command can write needs no protection either (nor a `hooks` made in it).
  const granted = linkedWorktree(dotGit, gitDir, common);
  for (const dir of new Set([gitDir, common])) {
    if (seen.has(dir)) continue;
    if (!isWritable(dir)) {
      if (!granted) continue;
      out.writable.push(dir);
    }
    seen.add(dir);
    protect(dir, out, dir === dotGit ? `${shown}.git` : dir);
    const subs: string[] = [];
    modules(dir, 1, subs);
    for (const sub of subs) protect(sub, out, sub);
  }
}

/**
 * Snapshots of a root that is the top of a git work tree, in toolhost's private git directory
 * (git_shadow.ts): a snapshot is a tree object, made without touching the repository's HEAD,
 * index, refs or objects. Per snapshot, two `git ls-files` run side by side (what differs from
 * the last snapshot's index, and the ignored entries); only when something changed, the changed
 * files read into objects (on Linux through the root's held directories, git_read_in.ts) and one
 * `write-tree`. Comparing two
 * snapshots is one `diff-tree` and one `cat-file --batch` for the contents before and after (the
 * earlier ones kept in the journal's undo store, so undo never needs git).
 *
 * Ignored entries (.gitignore, the repository's info/exclude, the user's global ignore file) are
 * not snapshotted: only how each top ignored entry looks is (size, times, inode), to say when a
 * command changed one. A file over the per-file bound is left out of the index the same way.
 */
import { Buffer } from "node:buffer";
import { lstat, open, utimes, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { PathState } from "../journal.ts";
import { type Keep, keepBytes, sha256 } from "../snapshots.ts";
import { catFiles } from "./cat_file.ts";
import {
  changedLooks,
  type Engine,
  type Found,
  gitFileMode,
  type Limits,
  listed,
  type Look,
  lookOf,
  type NotTaken,
  type Phase,
  renames,
} from "./engine.ts";
import { git, type GitCall, type GitPlace, zFields } from "./git_run.ts";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { makeShadow, type Repository } from "./git_shadow.ts";
import { readIntoIndex, READS_BENEATH } from "./git_read_in.ts";

export interface GitSnapshot {
  tree: string;
  /** When it was begun (Date.now()). */
  at: number;
  /**
   * Ignored entries and nested repositories, by path from the root: how each looked. Listed by
   * the snapshot after a command; the one before has the last listing this engine made.
   */
  unseen: Map<string, Look>;
  /** Files left out for their size, by path from the root. */
  big: Map<string, Look>;
}

const TREE = 0o040000;
const LINK = 0o120000;
const GITLINK = 0o160000;

/** The branch of toolhost's git directory whose commit is the last snapshot (status compares). */
const SNAPSHOT_REF = "refs/heads/snapshot";

/** How many times the time bound a snapshot's first look at a work tree may take. */
const FIRST_LOOK_TIMES = 6;

/**
 * A file system's timestamps may be coarser than the clock: an ignored entry whose times fall
 * this far before the command began still counts as changed by it.
 */
const TIMESTAMP_SLACK_MS = 2_000;

interface Side {
  mode: number;
  id: string;
}

export class GitEngine implements Engine<GitSnapshot> {
  readonly kind = "git";
  readonly root: string;
  /** toolhost's state, when it lies inside the root: never looked at. */
  #skip: string[];
  #tree: string | undefined;
  /** The entries of the index, as of the last snapshot. */
  #entries: number | undefined;
  /** The ignored entries the last listing found. */
  #ignored = new Map<string, Look>();
  /** Bytes of files read into this git directory's objects since it was made. */
  #written = 0;
  /** What its first snapshot read: the files as they were then, the objects it must hold. */
  #first: number | undefined;

  constructor(readonly repo: Repository, readonly place: GitPlace, skip: string[]) {
    this.root = repo.root;
    this.#skip = ["--", ".", ...skip.map((rel) => `:(exclude,literal)${rel}`)];
  }

  /**
   * One `git status` (paths that differ from the last snapshot, untracked files, and after a
   * command the ignored entries too), then, only when something changed, the changed files read
   * into objects, a tree written and made the snapshot branch's commit (what status compares
   * with next time).
   */
  async snapshot(
    limits: Limits,
    _keep: Keep,
    sandbox: Sandbox,
    phase: Phase,
  ): Promise<GitSnapshot | NotTaken> {
    // Listed by git (status); the changed files read in beneath the held root (git_read_in.ts);
    // contents are kept when a comparison needs them.
    const at = Date.now();
    this.#entries ??= await indexEntries(this.place);
    if (this.#entries > limits.maxEntries) return overBudget(this.#entries, limits);
    const index = join(this.place.gitDir, "index");
    const verifying = this.#tree === undefined;
    // The first reads every tracked file (below), and gets longer: a status cut short keeps
    // nothing, so a bound it always passes would leave the root unsnapshotted for good.
    const call = { timeoutMs: limits.timeoutMs * (verifying ? FIRST_LOOK_TIMES : 1) };
    if (verifying) {
      await this.#commit(call);
      // The index is a copy of the user's, whose blobs may not be the files' bytes (git's eol
      // conversion, a clean filter such as LFS): made older than every entry it records, so this
      // status reads each tracked file and compares its bytes, and what differs is read in.
      await utimes(index, 1, 1).catch(() => {}); // git takes a time of 0 for none
    }
    const status = await git(
      [
        "status",
        "--porcelain=v2",
        "-z",
        "--untracked-files=all",
        "--no-renames",
        "--ignore-submodules=all",
        `--ignored=${phase === "after" ? "matching" : "no"}`,
        ...this.#skip,
      ],
      this.place,
      call,
    );
    const unseen = new Map<string, Look>();
    /** Each path that differs from the index, and whether the index has it. */
    const candidates = new Map<string, boolean>();
    let untracked = 0;
    for (const record of zFields(status)) {
      const type = record[0];
      if (type === "1") {
        candidates.set(record.split(" ").slice(8).join(" "), true);
      } else if (type === "?" || type === "!") {
        const rel = record.slice(2);
        // Ignored, or a directory holding another repository: not in the snapshot.
        if (type === "!" || rel.endsWith("/")) await this.#look(rel, unseen);
        else {
          candidates.set(rel, false);
          untracked++;
        }
      }
    }
    if (this.#entries + untracked > limits.maxEntries) {
      return overBudget(this.#entries + untracked, limits);
    }
    // A file over the bound is left out of the index (taken out if it was in): only how it
    // looks is kept, so a change to it is said not undoable rather than kept in part.
    const big = new Map<string, Look>();
    const add: string[] = [];
    const drop: string[] = [];
    const beyond = new Map<string, Promise<boolean>>();
    for (const [rel, indexed] of candidates) {
      // A directory replaced by a link: what the index has beneath it is gone from the work tree
      // (git refuses a path "beyond a symbolic link", and lstat would follow the link out).
      if (indexed && await beyondLink(this.root, rel, beyond)) {
        drop.push(rel);
        continue;
      }
      const info = await lstat(join(this.root, rel)).catch(() => undefined);
      if (info?.isFile() && info.size > limits.maxFileBytes) {
        big.set(rel, lookOf(info));
        if (indexed) drop.push(rel);
      } else {
        add.push(rel);
        if (info?.isFile()) this.#written += info.size;
      }
    }
    // Removals first: a link that replaced a directory is added only once what it held is gone.
    if (drop.length > 0) {
      await git(["update-index", "-z", "--force-remove", "--stdin"], this.place, {
        ...call,
        input: zInput(drop),
      });
    }
    // On Linux toolhost reads the files in itself, beneath the held root (git_read_in.ts): git
    // would look at each path and then open it, following a link swapped in between.
    if (add.length > 0 && READS_BENEATH) {
      await readIntoIndex(this.place, this.root, add, sandbox, call);
    } else if (add.length > 0) {
      await git(["update-index", "-z", "--add", "--remove", "--stdin"], this.place, {
        ...call,
        input: zInput(add),
      });
    }
    if (add.length > 0 || drop.length > 0) await this.#commit(call);
    // Verified and not written since: dated from before the status, so that only what changed
    // after it began is compared again.
    else if (verifying) await utimes(index, at / 1000, at / 1000).catch(() => {});
    this.#first ??= this.#written;
    const known = this.#ignored;
    if (phase === "after") this.#ignored = unseen;
    return { tree: this.#tree!, at, unseen: phase === "after" ? unseen : known, big };
  }

  /** Writes the index as a tree and makes it the snapshot branch's commit. */
  async #commit(call: GitCall): Promise<void> {
    const tree = (await git(["write-tree"], this.place, call)).toString("utf8").trim();
    if (tree !== this.#tree) {
      const commit = await git(["commit-tree", "-m", "snapshot", tree], this.place, call);
      await writeFile(join(this.place.gitDir, ...SNAPSHOT_REF.split("/")), commit);
      this.#tree = tree;
    }
    this.#entries = await indexEntries(this.place);
  }

  async #look(rel: string, into: Map<string, Look>): Promise<void> {
    const info = await lstat(join(this.root, rel.replace(/\/$/, ""))).catch(() => undefined);
    if (info) into.set(rel, lookOf(info));
  }

  /**
   * The ignored entries (and nested repositories) the command changed: listed after it with
   * times since it began, or listed before and gone now.
   */
  async #unseenChanged(before: GitSnapshot, after: GitSnapshot): Promise<string[]> {
    const since = before.at - TIMESTAMP_SLACK_MS;
    const changed: string[] = [];
    for (const [rel, look] of after.unseen) {
      if (Math.max(look.mtimeMs, look.ctimeMs) >= since) changed.push(rel);
    }
    for (const rel of before.unseen.keys()) {
      if (after.unseen.has(rel)) continue;
      const there = await lstat(join(this.root, rel.replace(/\/$/, ""))).catch(() => undefined);
      if (!there) changed.push(rel);
    }
    return changed.sort();
  }

  async compare(
    before: GitSnapshot,
    after: GitSnapshot,
    keep: Keep,
    limits: Limits,
  ): Promise<Found> {
    const found: Found = {
      changes: [],
      notKept: [],
      unseen: await this.#unseenChanged(before, after),
      renamed: [],
    };
    const big = changedLooks(before.big, after.big);
    if (big.length > 0) {
      found.notKept.push(
        `${listed(big)} changed and ${big.length === 1 ? "is" : "are"} larger than a snapshot ` +
          `keeps (${limits.maxFileBytes} bytes a file)`,
      );
    }
    if (before.tree === after.tree && big.length === 0) return found;
    const sides = before.tree === after.tree
      ? new Map<string, { old?: Side; now?: Side }>()
      : parseDiff(
        await git(
          ["diff-tree", "-r", "-t", "-z", "--no-renames", before.tree, after.tree],
          this.place,
          { timeoutMs: limits.timeoutMs },
        ),
      );
    // A file over the bound is in no tree on the side it was over it: its look stands for it.
    for (const rel of big) if (!sides.has(rel)) sides.set(rel, {});
    const wanted: string[] = [];
    for (const [rel, { old, now }] of sides) {
      // A directory whose files changed is no change of its own.
      if (old?.mode === TREE && now?.mode === TREE) sides.delete(rel);
      else if (old?.mode === GITLINK || now?.mode === GITLINK) {
        sides.delete(rel);
        found.unseen.push(`${rel}/`);
      } else {
        for (const side of [old, now]) if (side && side.mode !== TREE) wanted.push(side.id);
      }
    }
    const contents = await this.#contents([...new Set(wanted)], sides, keep, limits, found);
    for (const [rel, { old, now }] of sides) {
      const path = join(this.root, ...rel.split("/"));
      const bigAfter = after.big.get(rel);
      const bigBefore = before.big.get(rel);
      const afterState = bigAfter ? unread(bigAfter) : await stateAfter(path, now, contents);
      const beforeState = bigBefore
        ? unread(bigBefore)
        : stateBefore(old, now, afterState, contents);
      if (!beforeState || !afterState) continue;
      found.changes.push({ path, before: beforeState, after: afterState });
    }
    found.renamed = renames(found.changes);
    return found;
  }

  /**
   * The contents the changes need, by object id: each earlier file's kept in the undo store
   * (within the budget) and digested; each later one digested only; links' targets read.
   */
  async #contents(
    ids: string[],
    sides: Map<string, { old?: Side; now?: Side }>,
    keep: Keep,
    limits: Limits,
    found: Found,
  ): Promise<Map<string, Content>> {
    const earlier = new Set<string>();
    for (const { old } of sides.values()) if (old && old.mode !== TREE) earlier.add(old.id);
    const contents = new Map<string, Content>();
    let kept = 0;
    const tooMuch: string[] = [];
    await catFiles(this.place, ids, async (id, bytes) => {
      const content: Content = { sha: sha256(bytes), size: bytes.length, text: undefined };
      if (bytes.length <= 4096) content.text = bytes.toString("utf8");
      if (earlier.has(id)) {
        if (kept + bytes.length > limits.maxBytes) tooMuch.push(id);
        else {
          kept += bytes.length;
          await keepBytes(keep, bytes);
          content.kept = true;
        }
      }
      contents.set(id, content);
    });
    if (tooMuch.length > 0) {
      const names = [...sides].filter(([, s]) => s.old && tooMuch.includes(s.old.id));
      found.notKept.push(
        `the earlier contents of ${listed(names.map(([rel]) => rel))} are more than a ` +
          `command's change keeps (${limits.maxBytes} bytes)`,
      );
    }
    return contents;
  }

  /** Bytes read into objects since the first snapshot: earlier versions of files, mostly. */
  get written(): number {
    return this.#written - (this.#first ?? this.#written);
  }

  /** Makes the git directory afresh (its objects gone): only when no snapshot is in use. */
  async renew(): Promise<void> {
    await makeShadow(this.repo, this.place.gitDir);
    this.#tree = undefined;
    this.#entries = undefined;
    this.#written = 0;
    this.#first = undefined;
  }

  async dispose(): Promise<void> {}
}

/** A file over the bound, as its look describes it: no digest (nothing to compare or restore). */
function unread(look: Look): PathState {
  return { kind: "file", sha: "", mode: look.mode, size: look.size };
}

interface Content {
  sha: string;
  size: number;
  /** Small contents as text: a link's target. */
  text: string | undefined;
  /** Kept in the undo store. */
  kept?: boolean;
}

/** What `path` holds after, as the later tree has it (the mode read from the file when it agrees). */
async function stateAfter(
  path: string,
  now: Side | undefined,
  contents: Map<string, Content>,
): Promise<PathState | undefined> {
  if (!now) return { kind: "absent" };
  if (now.mode === TREE) return { kind: "dir" };
  const content = contents.get(now.id);
  if (!content) return undefined;
  if ((now.mode & 0o170000) === LINK) return { kind: "link", target: content.text ?? "" };
  let mode = gitFileMode(now.mode);
  const info = await lstat(path).catch(() => undefined);
  if (info?.isFile() && ((info.mode & 0o111) !== 0) === ((mode & 0o111) !== 0)) {
    mode = info.mode & 0o7777;
  }
  return { kind: "file", sha: content.sha, mode, size: content.size };
}

/**
 * What `path` held before: git keeps only the executable bit, so a file that stayed a file keeps
 * the mode it has now with that bit as it was; one removed comes back 0644 or 0755.
 */
function stateBefore(
  old: Side | undefined,
  now: Side | undefined,
  after: PathState | undefined,
  contents: Map<string, Content>,
): PathState | undefined {
  if (!old) return { kind: "absent" };
  if (old.mode === TREE) return { kind: "dir" };
  const content = contents.get(old.id);
  if (!content) return undefined;
  if ((old.mode & 0o170000) === LINK) return { kind: "link", target: content.text ?? "" };
  // Not kept (over the budget): described all the same; the call is said not undoable.
  let mode = gitFileMode(old.mode);
  if (after?.kind === "file" && now && now.mode !== TREE) {
    const executable = (old.mode & 0o111) !== 0;
    mode = executable ? after.mode | ((after.mode & 0o444) >> 2) : after.mode & ~0o111;
  }
  return { kind: "file", sha: content.sha, mode, size: content.size };
}

/** diff-tree -r -t -z: each path's side before and after (a type change gives both). */
function parseDiff(out: Buffer): Map<string, { old?: Side; now?: Side }> {
  const fields = zFields(out);
  const sides = new Map<string, { old?: Side; now?: Side }>();
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, oldId, newId] = fields[i].slice(1).split(" ");
    const rel = fields[i + 1];
    const entry = sides.get(rel) ?? {};
    const om = parseInt(oldMode, 8);
    const nm = parseInt(newMode, 8);
    if (om !== 0) entry.old = { mode: om, id: oldId };
    if (nm !== 0) entry.now = { mode: nm, id: newId };
    sides.set(rel, entry);
  }
  return sides;
}

/** The number of entries in git's index file (its header), 0 when there is none. */
async function indexEntries(place: GitPlace): Promise<number> {
  const handle = await open(join(place.gitDir, "index"), "r").catch(() => undefined);
  if (!handle) return 0;
  try {
    const header = Buffer.alloc(12);
    const { bytesRead } = await handle.read(header, 0, 12, 0);
    if (bytesRead < 12 || header.toString("latin1", 0, 4) !== "DIRC") return 0;
    return header.readUInt32BE(8);
  } finally {
    await handle.close();
  }
}

function overBudget(entries: number, limits: Limits): NotTaken {
  return {
    notTaken: `the work tree holds ${entries} files, more than a snapshot covers ` +
      `(journal.snapshot_max_files, ${limits.maxEntries})`,
  };
}

function zInput(paths: string[]): Buffer {
  return Buffer.from(paths.map((path) => path + "\0").join(""));
}

/** Whether a directory above `rel` in `root` is now a link or not a directory (asked once each). */
async function beyondLink(
  root: string,
  rel: string,
  known: Map<string, Promise<boolean>>,
): Promise<boolean> {
  const parts = rel.split("/");
  for (let n = 1; n < parts.length; n++) {
    const dir = parts.slice(0, n).join("/");
    let answer = known.get(dir);
    if (!answer) {
      answer = lstat(join(root, dir)).then((info) => !info.isDirectory(), () => false);
      known.set(dir, answer);
    }
    if (await answer) return true;
  }
  return false;
}

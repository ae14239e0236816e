/**
 * A snapshot's changed files read into toolhost's git objects through the root's held
 * directories, never by path. git's own `update-index --add` looks at a path (lstat) and then
 * opens it, so a file a command swapped for a symbolic link in between (a rename loop in the
 * background) was read through the link, from anywhere: `~/.ssh/id_rsa`, which no command may
 * read, landed in objects a command can read and in contents undo puts back. Here each file is
 * opened beneath the held root without following a link, required to be a regular file, and
 * given to `git hash-object` as `/proc/<pid>/fd/N` (that open file, whatever its name leads to
 * meanwhile); a link's text is read beneath the root too. The index then gets the objects with
 * `update-index --index-info`, which reads no file. Linux only (it needs /proc, as the held
 * directories do); elsewhere the engine lets git read by path, as every tool works there.
 */
import { closeSync, fstatSync, mkdtempSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import process from "node:process";
import type { Dir, Sandbox } from "../../../_lib/sandbox/mod.ts";
import { git, type GitCall, type GitPlace } from "./git_run.ts";

/** Files opened (and held) at once: one `git hash-object` for each such batch. */
const AT_ONCE = 256;

/** Whether files are read in through held directories here (else git reads them by path). */
export const READS_BENEATH = process.platform === "linux";

/**
 * Puts `rels` (paths from `root`) into the index of `place` as they are now: a regular file's
 * content and executable bit, a link's text; one that is neither (gone, a directory, a FIFO) is
 * taken out of the index.
 *
 * @example
 * ```ts
 * await readIntoIndex(place, "/work/app", ["src/a.ts", "link"], sandbox, { timeoutMs: 10_000 });
 * ```
 */
export async function readIntoIndex(
  place: GitPlace,
  root: string,
  rels: string[],
  sandbox: Sandbox,
  call: GitCall,
): Promise<void> {
  for (let at = 0; at < rels.length; at += AT_ONCE) {
    await readBatch(place, root, rels.slice(at, at + AT_ONCE), sandbox, call);
  }
}

async function readBatch(
  place: GitPlace,
  root: string,
  rels: string[],
  sandbox: Sandbox,
  call: GitCall,
): Promise<void> {
  const top = (await sandbox.directory(root)).dir;
  const dirs = new Map<string, Dir | undefined>([["", top]]);
  const opened: number[] = [];
  let texts: string | undefined;
  const paths: string[] = [];
  const kept: { rel: string; mode: string }[] = [];
  const gone: string[] = [];
  try {
    for (const rel of rels) {
      const parent = dirname(rel) === "." ? "" : dirname(rel);
      const dir = reach(dirs, parent);
      const name = basename(rel);
      const read = dir ? look(dir, name) : undefined;
      if (!read) {
        gone.push(rel);
        continue;
      }
      if ("fd" in read) {
        opened.push(read.fd);
        paths.push(`/proc/${process.pid}/fd/${read.fd}`);
      } else {
        texts ??= mkdtempSync(join(place.gitDir, "link-texts-"));
        const file = join(texts, String(paths.length));
        writeFileSync(file, read.target);
        paths.push(file);
      }
      kept.push({ rel, mode: read.mode });
    }
    if (gone.length > 0) {
      await git(["update-index", "-z", "--force-remove", "--stdin"], place, {
        ...call,
        input: zList(gone),
      });
    }
    if (kept.length === 0) return;
    const ids = (await git(["hash-object", "-w", "--no-filters", "--stdin-paths"], place, {
      ...call,
      input: new TextEncoder().encode(paths.join("\n") + "\n"),
    })).toString("utf8").trim().split("\n");
    if (ids.length !== kept.length) {
      throw new Error(`git hash-object gave ${ids.length} objects for ${kept.length} files`);
    }
    const info = kept.map(({ rel, mode }, n) => `${mode} ${ids[n]}\t${rel}\0`).join("");
    await git(["update-index", "--add", "--replace", "-z", "--index-info"], place, {
      ...call,
      input: new TextEncoder().encode(info),
    });
  } finally {
    for (const fd of opened) closeSync(fd);
    for (const [rel, dir] of dirs) if (rel !== "" && dir) await dir.close();
    await top.close();
    if (texts) rmSync(texts, { recursive: true, force: true });
  }
}

/** The directory `rel` beneath the root, entered without following links; undefined if none. */
function reach(dirs: Map<string, Dir | undefined>, rel: string): Dir | undefined {
  if (dirs.has(rel)) return dirs.get(rel);
  const parent = dirname(rel) === "." ? "" : dirname(rel);
  const dir = reach(dirs, parent)?.childSync(basename(rel));
  dirs.set(rel, dir);
  return dir;
}

/** Entry `name` of `dir`: an open regular file, a link's text, or undefined (anything else). */
function look(
  dir: Dir,
  name: string,
): { fd: number; mode: string } | { target: string; mode: string } | undefined {
  let fd: number;
  try {
    fd = dir.openFileSync(name);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ELOOP") return undefined;
    try {
      return { target: readlinkSync(dir.at(name)), mode: "120000" };
    } catch {
      return undefined; // swapped again meanwhile: not in this snapshot
    }
  }
  const info = fstatSync(fd);
  if (!info.isFile()) {
    closeSync(fd);
    return undefined;
  }
  return { fd, mode: info.mode & 0o100 ? "100755" : "100644" };
}

function zList(rels: string[]): Uint8Array {
  return new TextEncoder().encode(rels.map((rel) => `${rel}\0`).join(""));
}

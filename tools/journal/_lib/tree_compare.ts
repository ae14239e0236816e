/**
 * Whether a directory tree is still the one a move or copy left: its shape now (identity and
 * times of every entry, tree_manifest.ts) against the shape recorded then. Entries must be the
 * same, each with the same type, mode, size and link target; the top directory the same one
 * (device and inode). A file whose identity or times differ still counts as unchanged when the
 * recorded shape holds its digest and the file has that content now (an edit and its undo
 * rewrite a file with new times); links and subdirectories are judged by what they are.
 */
import type { Dir } from "../../_lib/sandbox/mod.ts";
import { type Manifest, racy, type TreeItem } from "./tree_manifest.ts";
import { digestEntry, enter } from "./tree_walk.ts";

/** The digest of file `p` below `top` (held open), entered without following links. */
export async function digestAt(top: Dir, p: string): Promise<string | undefined> {
  const parts = p.split("/");
  let dir = top;
  const opened: Dir[] = [];
  try {
    for (const part of parts.slice(0, -1)) {
      dir = await enter(dir, part);
      opened.push(dir);
    }
    const name = parts[parts.length - 1];
    return await digestEntry(dir, name, await dir.lstat(name));
  } catch {
    return undefined;
  } finally {
    for (const d of opened.reverse()) await d.close();
  }
}

async function differs(
  was: TreeItem,
  now: TreeItem,
  at: number | undefined,
  top?: Dir,
): Promise<boolean> {
  if (was.t !== now.t || was.m !== now.m || was.z !== now.z || was.l !== now.l) return true;
  if (was.i === now.i) {
    // Unchanged times prove nothing for a file changed within a tick of the recording.
    if (was.t !== "f" || !was.s || !top || !racy(was, at)) return false;
    return (await digestAt(top, was.p)) !== was.s;
  }
  if (was.t === "d") return was.p === "";
  if (was.t === "l") return false;
  if (!was.s || !top) return true;
  return (await digestAt(top, was.p)) !== was.s;
}

/**
 * What differs between the recorded shape `was` and the tree now (`now`, its shape without
 * digests; `top`, the directory held open, to read files whose times changed), for a refusal:
 * empty when it is the same tree. At most `max` named, then how many more.
 */
export async function treeDifferences(
  was: Manifest,
  now: Manifest,
  top?: Dir,
  max = 5,
): Promise<string[]> {
  const before = new Map(was.items.map((item) => [item.p, item]));
  const found: string[] = [];
  const name = (p: string) => (p === "" ? "the directory itself" : p);
  if (!!was.partial !== !!now.partial) found.push("the number of entries");
  for (const item of now.items) {
    const earlier = before.get(item.p);
    if (!earlier) found.push(`${name(item.p)} added`);
    else if (await differs(earlier, item, was.at, top)) found.push(`${name(item.p)} changed`);
    before.delete(item.p);
  }
  for (const p of before.keys()) found.push(`${name(p)} removed`);
  if (found.length > max) return [...found.slice(0, max), `and ${found.length - max} more`];
  return found;
}

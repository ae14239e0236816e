/**
 * A skill's files as the skills extension serves them: every regular file under the skill's
 * directory (hidden names left out, as discovery leaves them out), each with its size and
 * SHA-256, never one that resolves outside the directory (a link out is not served), within the
 * extension's limits (512 files, 16 MiB in all). The same walk answers skills/list, skills/get,
 * resources/directory/read and every read, so what is listed is exactly what is served.
 */
import { createHash } from "node:crypto";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import { isWithin, openByPath } from "../../_lib/sandbox/mod.ts";

/** The extension's per-skill limits: a host must accept these; more is not served. */
export const MAX_SKILL_FILES = 512;
export const MAX_SKILL_TOTAL_BYTES = 16 * 1024 * 1024;
/** Directories are entries too: a skill holding a whole tree stops the walk here. */
const MAX_ENTRIES = 5_000;
const MAX_DEPTH = 16;

export interface TreeFile {
  /** Path from the skill's directory, "/"-separated. */
  rel: string;
  /** Where it really is, inside the skill's real directory. */
  real: string;
  size: number;
}

export interface SkillTree {
  files: TreeFile[];
  /** Directories under the skill's, by path from it ("" is the skill's own). */
  dirs: Set<string>;
}

/** Why a skill is not served: a sentence a person can act on. */
export class SkillTooLarge extends Error {}

export async function skillTree(dir: string): Promise<SkillTree> {
  const top = await realpath(dir);
  const inside = (real: string) => isWithin(top, real);
  const tree: SkillTree = { files: [], dirs: new Set([""]) };
  const seenDirs = new Set([top]);
  let entries = 0;
  let total = 0;
  const visit = async (realDir: string, rel: string, depth: number): Promise<void> => {
    const names = (await readdir(realDir)).sort();
    for (const name of names) {
      if (name.startsWith(".")) continue;
      if (++entries > MAX_ENTRIES) {
        throw new SkillTooLarge(`it holds over ${MAX_ENTRIES} entries`);
      }
      const childRel = rel === "" ? name : `${rel}/${name}`;
      const real = await realpath(join(realDir, name)).catch(() => null);
      if (real === null || !inside(real)) continue;
      const info = await stat(real).catch(() => null);
      if (info?.isDirectory()) {
        // A link back up would loop; one already walked is not walked twice.
        if (seenDirs.has(real) || depth >= MAX_DEPTH) continue;
        seenDirs.add(real);
        tree.dirs.add(childRel);
        await visit(real, childRel, depth + 1);
      } else if (info?.isFile()) {
        total += info.size;
        tree.files.push({ rel: childRel, real, size: info.size });
        if (tree.files.length > MAX_SKILL_FILES) {
          throw new SkillTooLarge(`it holds over ${MAX_SKILL_FILES} files`);
        }
        if (total > MAX_SKILL_TOTAL_BYTES) {
          throw new SkillTooLarge(`its files add up to over ${MAX_SKILL_TOTAL_BYTES} bytes`);
        }
      }
    }
  };
  await visit(top, "", 1);
  return tree;
}

/**
 * A file's bytes, read by its real path and only while it is still the regular file listed: a
 * FIFO swapped in after the walk does not block the open, and a link swapped in is not followed.
 */
export async function readTreeFile(file: TreeFile): Promise<Uint8Array> {
  const handle = await openByPath(file.real);
  try {
    const info = await handle.stat();
    if (!info.isFile() || info.size > MAX_SKILL_TOTAL_BYTES) {
      throw new Error(`${file.rel} is no longer a regular file of the skill's size`);
    }
    const bytes = new Uint8Array(info.size);
    let filled = 0;
    while (filled < bytes.length) {
      const { bytesRead } = await handle.read(bytes, filled, bytes.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return bytes.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** Digests already computed, by file and what its stat said: a listing does not reread all. */
const digests = new Map<string, string>();
const MAX_REMEMBERED = 4_096;

/** `sha256:<hex>` of the file's bytes, with the byte count those bytes had. */
export async function digestOf(file: TreeFile): Promise<{ digest: string; size: number }> {
  const info = await stat(file.real);
  const key = `${file.real}\0${info.size}\0${info.mtimeMs}\0${info.ino}`;
  const known = digests.get(key);
  if (known) return { digest: known, size: info.size };
  const bytes = await readTreeFile(file);
  const digest = `sha256:${createHash("sha256").update(bytes).digest("hex")}`;
  if (digests.size >= MAX_REMEMBERED) digests.clear();
  if (bytes.length === info.size) digests.set(key, digest);
  return { digest, size: bytes.length };
}

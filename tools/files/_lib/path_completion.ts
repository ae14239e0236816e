/**
 * Completing a file path typed into file:///{+path} (without its leading slash): first the way
 * down to an allowed root, then the entries of the directory typed so far, inside the roots
 * only. Directories end with `/` so that the next completion goes on inside them.
 */
import type { Dir as OpenDir } from "node:fs";
import { opendir } from "node:fs/promises";
import { type Dir, Sandbox } from "../../_lib/sandbox/mod.ts";
import { sep } from "node:path";
import type { ReadContext } from "../../../mcp/features/mod.ts";

/** Entries looked at in one directory: enough to find a name, bounded for huge directories. */
const MAX_SCANNED = 50_000;
/** Matches returned; the client shows a handful anyway. */
const MAX_MATCHES = 100;

/** Names a URI template expansion cannot carry back unchanged, so they could not be read. */
const UNREADABLE = /[?#\uFFFD]/;

export async function completePath(value: string, ctx: ReadContext): Promise<string[]> {
  const sandbox = await Sandbox.of(ctx);
  const typed = `/${value}`;
  // Above the roots nothing may be listed: offer the roots that lie ahead.
  const ahead = sandbox.roots
    .map((root) => (root.endsWith(sep) ? root : root + sep))
    .filter((root) => root.startsWith(typed) && root !== typed);
  if (ahead.length > 0) return ahead.map((root) => root.slice(1)).sort();
  const cut = typed.lastIndexOf("/");
  const dir = typed.slice(0, cut + 1);
  const prefix = typed.slice(cut + 1);
  let real: string;
  try {
    ({ real } = await sandbox.resolve(dir));
  } catch {
    return []; // outside the roots: nothing to suggest
  }
  const found: string[] = [];
  // Listed beneath its root: a directory swapped for a link out of the roots is never listed.
  let pinned: Dir | undefined;
  let handle: OpenDir | undefined;
  try {
    pinned = (await sandbox.directory(real)).dir;
    handle = await opendir(pinned.self);
  } catch {
    await pinned?.close();
    return found;
  }
  let scanned = 0;
  // The prefix filters while walking, so a match late in a huge directory is still found.
  for await (const entry of handle) {
    if (++scanned > MAX_SCANNED || found.length >= MAX_MATCHES || ctx.signal.aborted) break;
    // Hidden entries only when asked for, as shells complete them.
    if (!entry.name.startsWith(prefix) || (entry.name[0] === "." && prefix[0] !== ".")) continue;
    if (UNREADABLE.test(entry.name)) continue;
    const name = dir.slice(1) + entry.name;
    found.push(entry.isDirectory() ? `${name}/` : name);
  }
  // Leaving the loop early leaves the directory open.
  await handle.close().catch(() => {});
  await pinned.close();
  return found.sort();
}

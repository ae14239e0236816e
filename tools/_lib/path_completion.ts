/**
 * Completing a file path typed into file:///{+path} (without its leading slash): first the way
 * down to an allowed root, then the entries of the directory typed so far, inside the roots
 * only. Directories end with `/` so that the next completion goes on inside them.
 */
import { readdir } from "node:fs/promises";
import { sep } from "node:path";
import type { ReadContext } from "../../mcp/resource.ts";
import { Sandbox } from "./sandbox.ts";

/** Entries looked at in one directory: enough to find a name, bounded for huge directories. */
const MAX_ENTRIES = 5_000;

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
  const entries = await readdir(real, { withFileTypes: true }).catch(() => []);
  const found: string[] = [];
  for (const entry of entries.slice(0, MAX_ENTRIES)) {
    // Hidden entries only when asked for, as shells complete them.
    if (!entry.name.startsWith(prefix) || (entry.name[0] === "." && prefix[0] !== ".")) continue;
    const name = dir.slice(1) + entry.name;
    found.push(entry.isDirectory() ? `${name}/` : name);
  }
  return found.sort();
}

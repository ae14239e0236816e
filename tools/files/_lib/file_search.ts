/**
 * resources/search for file:///{+path}: the files under the allowed roots whose names hold the
 * query (case-insensitive), found by the same walk the search tools use (ignore rules honoured,
 * links never followed, beneath each root), bounded in entries, time and matches.
 */
import { pathToFileURL } from "node:url";
import type { ReadContext, ResourceInfo } from "../../../mcp/features/mod.ts";
import { IgnoreRules } from "../../_lib/walk/gitignore.ts";
import { Sandbox } from "../../_lib/sandbox/mod.ts";
import { Walk } from "../../_lib/walk/walk.ts";
import { mimeTypeOf } from "./mime_types.ts";

/** Entries looked at across the roots: a search answers in moments or says less. */
const MAX_WALK_ENTRIES = 100_000;
const TIME_LIMIT_MS = 2000;
/** Names a URI template expansion cannot carry back unchanged, so they could not be read. */
const UNREADABLE = /[?#\uFFFD]/;

export async function searchFiles(
  query: string,
  ctx: ReadContext,
  limit: number,
): Promise<ResourceInfo[]> {
  const sandbox = await Sandbox.of(ctx);
  const needle = query.toLowerCase();
  const found: ResourceInfo[] = [];
  const deadline = Date.now() + TIME_LIMIT_MS;
  for (const root of sandbox.roots) {
    if (found.length >= limit || ctx.signal.aborted || Date.now() > deadline) break;
    const walk = new Walk({
      respectIgnores: true,
      rules: await IgnoreRules.above(sandbox, root),
      maxEntries: MAX_WALK_ENTRIES,
      deadline,
      signal: ctx.signal,
    });
    let start;
    try {
      start = (await sandbox.directory(root)).dir;
    } catch {
      continue; // a root that is gone has nothing to find
    }
    try {
      for await (const entry of walk.entries(start)) {
        if (entry.kind !== "file") continue;
        const name = entry.rel.slice(entry.rel.lastIndexOf("/") + 1);
        if (!name.toLowerCase().includes(needle) || UNREADABLE.test(entry.path)) continue;
        const mimeType = mimeTypeOf(entry.path);
        found.push({
          uri: pathToFileURL(entry.path).href,
          name,
          description: sandbox.display(entry.path),
          ...(mimeType ? { mimeType } : {}),
        });
        if (found.length >= limit) break;
      }
    } finally {
      await start.close();
    }
  }
  return found;
}

/**
 * Noticing that the skills of a client's roots changed: a skill directory appeared or went
 * away, or a SKILL.md was written, in any skills directory the skill tool would look in.
 */
import { readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import type { Unwatch, WatchContext } from "../../../mcp/features/mod.ts";
import { MAX_SKILLS } from "./skills.ts";
import { sourcesFor } from "./skill_sources.ts";
import {
  directoryIdentity,
  serially,
  type StartedWatch,
  startWatch,
  watchDirectory,
  type WatchGroup,
} from "../../_lib/watch/watch_files.ts";

export function watchSkills(ctx: WatchContext, changed: () => void): StartedWatch {
  return startWatch(ctx, "the skills", async (group) => {
    const sources = sourcesFor(await ctx.roots(), ctx.config);
    await Promise.all(sources.map(({ dir }) => watchSource(group, dir, changed)));
  });
}

/**
 * One skills directory, which may not exist yet: its entries (skills come and go), and the
 * SKILL.md of each skill directory in it, followed as those directories come and go.
 */
async function watchSource(group: WatchGroup, dir: string, changed: () => void): Promise<void> {
  const watched = new Map<string, { id: string; stop: Unwatch }>();
  const rescan = serially(async () => {
    const found = await skillDirectories(dir);
    if (group.stopped) return;
    for (const [name, skill] of watched) {
      if (found.get(name) === skill.id) continue;
      skill.stop();
      watched.delete(name);
    }
    for (const [name, id] of found) {
      if (watched.has(name)) continue;
      // Not polled: this directory's watch sees the skill directory come, go or be replaced.
      const stop = watchDirectory(join(dir, name), (entry) => entry === "SKILL.md", changed, {
        poll: false,
      });
      watched.set(name, { id, stop: group.add(stop) });
    }
  }, () => {});
  group.add(watchDirectory(dir, (entry) => !entry.startsWith("."), () => {
    changed();
    void rescan();
  }));
  await rescan();
}

/**
 * The skill directories in `dir` that discovery may read (not hidden; the first MAX_SKILLS by
 * name), each with its identity, so that one replaced under the same name is watched afresh.
 */
async function skillDirectories(dir: string): Promise<Map<string, string>> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const found = new Map<string, string>();
  for (const name of names.filter((name) => !name.startsWith(".")).sort().slice(0, MAX_SKILLS)) {
    // Followed like discovery follows it: a linked skill directory is watched where it lies.
    const info = await stat(join(dir, name)).catch(() => undefined);
    if (info?.isDirectory()) found.set(name, directoryIdentity(info));
  }
  return found;
}

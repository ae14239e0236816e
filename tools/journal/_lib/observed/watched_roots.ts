/**
 * The roots this server observes, each with its snapshot engine (git's at the top of a work tree,
 * the walk elsewhere) and the queue its snapshots take: one at a time per root, since an engine
 * keeps state from one snapshot to the next (git's index, the walk's manifest). Made on a
 * command's first call in a root, kept while the server runs, given back when it stops.
 */
import { createHash } from "node:crypto";
import { rm } from "node:fs/promises";
import { join } from "node:path";
import type { Sandbox } from "../../../_lib/sandbox/mod.ts";
import { SERVER } from "../session.ts";
import { type Engine, relativeTo } from "./engine.ts";
import { GitEngine } from "./git_engine.ts";
import { avoidProgramsIn } from "./git_run.ts";
import { makeShadow, removeStaleShadows, repositoryAt, shadowsDir } from "./git_shadow.ts";
import { WalkEngine } from "./walk_engine.ts";

export interface Watched {
  engine: Promise<Engine>;
  /** The last snapshot or comparison under way: the next waits for it. */
  queue: Promise<unknown>;
  /** Observations begun and not ended: their snapshots are in use. */
  open: number;
}

const watched = new Map<string, Watched>();
/** Projects whose dead servers' git directories were looked for by this server. */
const swept = new Set<string>();

/** `work` once the root's earlier snapshots are done. */
export function queued<T>(root: Watched, work: () => Promise<T>): Promise<T> {
  const run = root.queue.then(work, work);
  root.queue = run.catch(() => {});
  return run;
}

/** The roots of `sandbox` to observe: each once, a root inside another left to the outer. */
export function observedRoots(sandbox: Sandbox): string[] {
  return sandbox.roots.filter((root) =>
    !sandbox.roots.some((other) => other !== root && relativeTo(other, root) !== undefined)
  );
}

/**
 * The engine of `root` for the project whose state is in `projectDir` (toolhost's state, inside
 * the root or not, is never snapshotted).
 */
export function watchedRoot(
  sandbox: Sandbox,
  root: string,
  projectDir: string,
  stateDir: string,
): Watched {
  const key = `${projectDir}\0${root}`;
  let found = watched.get(key);
  if (!found) {
    found = {
      engine: makeEngine(sandbox, root, projectDir, stateDir),
      queue: Promise.resolve(),
      open: 0,
    };
    // A failure is not kept: the next call tries again.
    found.engine.catch(() => watched.delete(key));
    watched.set(key, found);
  }
  return found;
}

async function makeEngine(
  sandbox: Sandbox,
  root: string,
  projectDir: string,
  stateDir: string,
): Promise<Engine> {
  // Commands write in the roots: no git of theirs is run for a snapshot.
  avoidProgramsIn(sandbox.roots);
  const skip = [stateDir, projectDir].flatMap((dir) => relativeTo(root, dir) ?? []);
  const { dir } = await sandbox.directory(root);
  let repo;
  try {
    repo = await repositoryAt(root, dir);
  } finally {
    await dir.close();
  }
  if (typeof repo !== "string") {
    if (!swept.has(projectDir)) {
      swept.add(projectDir);
      await removeStaleShadows(projectDir, SERVER);
    }
    const digest = createHash("sha256").update(root).digest("hex").slice(0, 16);
    const place = await makeShadow(repo, join(shadowsDir(projectDir), SERVER, digest))
      .catch(() => undefined);
    if (place) return new GitEngine(repo, place, skip);
  }
  return new WalkEngine(root, new Set(skip));
}

/** Gives back every engine and removes this server's private git directories. */
export async function disposeWatched(): Promise<void> {
  const all = [...watched.values()];
  watched.clear();
  for (const root of all) {
    await root.queue;
    await (await root.engine.catch(() => undefined))?.dispose();
  }
  for (const projectDir of swept) {
    await rm(join(shadowsDir(projectDir), SERVER), { recursive: true, force: true })
      .catch(() => {});
  }
}

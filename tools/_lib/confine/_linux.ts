/**
 * The policy as toolhost-confine's arguments (linux/confine.c): `run OPTIONS -- PROGRAM ARGS`.
 * Made at each spawn, so the repositories a command made since the last one are protected too.
 */
import { dirname } from "node:path";
import { gitProtection } from "./_git.ts";
import { type Policy, within } from "./_policy.ts";
import type { GitParts } from "./_refusals.ts";

export interface LinuxLaunch {
  /** Landlock alone (no user namespaces): nothing protected or hidden by a mount. */
  landlockOnly: boolean;
  /** `-n`: none, deny, join:PID:INODE, proxy:PORT or host. */
  network: string;
  /** Descriptors from 3 on the process is given (the long command's channel). */
  keep: number[];
  argv0?: string;
  /** `-g`: a process group of its own in toolhost's session, without its terminal. */
  ownGroup?: boolean;
}

/** What the last wrap protected in the repositories, for the result's explanations. */
export interface WrapNotes {
  /** Why commits in a repository will fail (its hooks or config is a symlink). */
  notes: string[];
  git: GitParts;
}

export function linuxArguments(
  policy: Policy,
  how: LinuxLaunch,
  file: string,
  args: readonly string[],
  out?: WrapNotes,
): string[] {
  const argv = ["run"];
  if (how.landlockOnly) argv.push("-N");
  const isWritable = (path: string) => policy.writable.some((place) => within(path, place));
  const writableRoots = policy.roots.filter(isWritable);
  const git = writableRoots.length > 0 ? gitProtection(writableRoots, isWritable) : undefined;
  for (const path of [...policy.writable, ...git?.writable ?? []]) argv.push("-w", path);
  for (const path of policy.writableFiles) argv.push("-f", path);
  if (!how.landlockOnly) {
    for (const path of [...policy.pinned, ...git?.pinned ?? []]) argv.push("-p", path);
    for (const { path } of [...git?.readOnly ?? [], ...policy.readOnly]) argv.push("-R", path);
    argv.push("-s");
  }
  for (const entry of policy.hidden) {
    // Without a mount a socket cannot be hidden (Landlock does not govern connecting), and a
    // path inside a writable place is readable through that place's rule.
    if (how.landlockOnly && (entry.socket || isWritable(entry.path))) continue;
    // The helper skips what does not exist (a stat each here would cost more than its open).
    argv.push("-h", entry.path);
  }
  // Beside the private temporary directory lie every other session's (and their network's
  // socket): only it is left to see, by a mount, or without one by leaving the parent unread.
  if (policy.temp !== undefined) {
    if (how.landlockOnly) argv.push("-h", dirname(policy.temp));
    else argv.push("-T", policy.temp);
  }
  argv.push("-n", how.network);
  if (how.ownGroup) argv.push("-g");
  for (const fd of how.keep) argv.push("-k", String(fd));
  if (how.argv0 !== undefined) argv.push("-0", how.argv0);
  argv.push("--", file, ...args);
  if (out) {
    out.notes = git?.notes ?? [];
    out.git = { readOnly: git?.readOnly ?? [], pinned: git?.pinned ?? [] };
  }
  return argv;
}

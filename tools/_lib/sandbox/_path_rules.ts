/**
 * The sandbox's rules for a path, per platform, with the platform a parameter so each platform's
 * rules are unit-tested on any machine (tests/common/path_rules_test.ts): what is refused before
 * a path is resolved, and whether a resolved (real) path lies in a root.
 * - POSIX: byte-exact comparison by whole segments; nothing refused up front.
 * - Windows: _windows_paths.ts (case-insensitive, `\\?\` and UNC forms, whole segments; device
 *   names, the device namespace and alternate data streams refused up front).
 */
import { posix } from "node:path";
import { windowsContains, windowsPathProblem } from "./_windows_paths.ts";

export interface PathRules {
  /** Why `path` is refused before it is resolved, or undefined. */
  problem(path: string): string | undefined;
  /** Whether the real path `real` is `root` or lies inside it. */
  contains(root: string, real: string): boolean;
}

const POSIX_RULES: PathRules = {
  problem: () => undefined,
  contains: (root, real) =>
    real === root || real.startsWith(root.endsWith(posix.sep) ? root : root + posix.sep),
};

const WINDOWS_RULES: PathRules = {
  problem: windowsPathProblem,
  contains: windowsContains,
};

export function pathRulesFor(platform: NodeJS.Platform): PathRules {
  return platform === "win32" ? WINDOWS_RULES : POSIX_RULES;
}

/**
 * What the sandbox refused, read from a command's output: the paths named on lines that say
 * "Permission denied", "Read-only file system" or "Operation not permitted" (in the spellings of
 * the shell, coreutils, Python, Node, Go), each checked against the policy. Only a path the
 * policy refuses is named, with the setting that would allow it; a program's own permission
 * problems are left alone. Bounded: a few lines, each path shortened.
 */
import { accessSync, constants, statSync } from "node:fs";
import process from "node:process";
import { dirname, isAbsolute, resolve } from "node:path";
import { bounded } from "../../../config/quote.ts";
import { shownName } from "../text/shown_name.ts";
import { type Policy, type Protected, within } from "./_policy.ts";
import { isWithin } from "../sandbox/mod.ts";

/** Lines explained at most, and characters of one path shown. */
const MAX_LINES = 5;
const PATH_CHARS = 200;
/** Output read from its end: where the last failures are. */
const SCANNED_CHARS = 200_000;

const REFUSAL =
  /permission denied|read-only file system|operation not permitted|resource busy|EACCES|EROFS|EPERM|EBUSY/i;

/**
 * Candidates for paths on a line, the nearest to the refusal's words first: the failing path sits
 * next to them (`bash: line 1: /x: Permission denied`, `PermissionError: … denied: '/x'`), the
 * program's own name further away.
 */
function pathsOn(line: string, at: number): string[] {
  const found: { path: string; distance: number }[] = [];
  const add = (path: string, index: number) => {
    found.push({ path, distance: Math.abs(index - at) });
  };
  // `…: NAME: Permission denied` (the shell, cat): the name just before the words is the one;
  // when it is plainly a path, the only one (the program's own path before it was not refused).
  const before = /(?:^|: )([^:'"‘’`\n]{1,4096}): $/.exec(line.slice(0, at));
  if (before && /^[^\s]*\/[^\s]*$/.test(before[1])) return [before[1]];
  if (before) found.push({ path: before[1], distance: -1 });
  // A quoted name is a path even without a slash ('.git'); a bare word needs one.
  for (const match of line.matchAll(/['‘"`]([^'’"`\n]{1,4096})['’"`]/g)) {
    add(match[1], match.index! + match[0].length / 2);
  }
  for (const match of line.matchAll(/(?:^|[\s(])(~?[^\s:'"`’,()]*\/[^\s:'"`’,()]*)/g)) {
    add(match[1], match.index! + match[0].length / 2);
  }
  return found.sort((a, b) => a.distance - b.distance).map((entry) => entry.path);
}

/**
 * Whether this user could write `path` (or make it, in its nearest existing directory) without
 * the sandbox. For root that is its file modes, as a root without capabilities (which a confined
 * one is) sees them.
 */
function writableByUser(path: string): boolean {
  const uid = process.getuid?.() ?? -1;
  for (let at = path;; at = dirname(at)) {
    try {
      if (uid !== 0) {
        accessSync(at, constants.W_OK);
        return true;
      }
      const info = statSync(at);
      const bit = info.uid === 0 ? 0o200 : info.gid === 0 ? 0o020 : 0o002;
      return (info.mode & bit) !== 0;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT" || at === dirname(at)) return false;
    }
  }
}

/** What is protected besides the policy's own list: the repositories' parts of the last spawn. */
export interface GitParts {
  readOnly: Protected[];
  pinned: string[];
}

/** Why the policy refuses writing (or reading) `path`, or undefined when it does not. */
export function refusalOf(
  policy: Policy,
  path: string,
  error: "denied" | "read-only" | "busy",
  git: GitParts = { readOnly: [], pinned: [] },
): { verb: "writing" | "reading" | "moving or removing"; why: string } | undefined {
  if (error === "busy") {
    const held = [...git.readOnly, ...policy.readOnly].find((entry) => entry.path === path);
    return git.pinned.includes(path)
      ? { verb: "moving or removing", why: "a repository's git directory stays where it is" }
      : policy.pinned.includes(path)
      ? { verb: "moving or removing", why: "toolhost's own files are beneath it" }
      : held
      ? { verb: "moving or removing", why: `protected: ${held.why}; never writable by commands` }
      : undefined;
  }
  const hidden = policy.hidden.find((entry) => within(path, entry.path));
  if (hidden && error === "denied") {
    return { verb: "reading", why: `${hidden.why}; ${hidden.setting}` };
  }
  const guarded = [...git.readOnly, ...policy.readOnly].find((entry) => within(path, entry.path));
  if (guarded) {
    const how = guarded.why === "sandbox.deny_write"
      ? "sandbox.deny_write"
      : "never writable by commands";
    return { verb: "writing", why: `protected: ${guarded.why}; ${how}` };
  }
  if (policy.writable.some((place) => within(path, place))) return undefined;
  if (policy.writableFiles.includes(path)) return undefined;
  // A path this user could not write without the sandbox either was refused by its own modes.
  if (error === "denied" && !writableByUser(path)) return undefined;
  if (policy.mode === "read-only") {
    return { verb: "writing", why: "the sandbox is read-only; sandbox.mode" };
  }
  if (policy.temp && (path === "/tmp" || path.startsWith("/tmp/"))) {
    return {
      verb: "writing",
      why: `outside the roots; use $TMPDIR (${policy.temp}) or sandbox.allow_write`,
    };
  }
  return { verb: "writing", why: "outside the roots; allow with sandbox.allow_write" };
}

/** `sandbox: refused writing /x (outside the roots; allow with sandbox.allow_write)` lines. */
export function explainRefusals(
  output: string,
  policy: Policy,
  cwd: string,
  home: string,
  git?: GitParts,
): string[] {
  const lines: string[] = [];
  const seen = new Set<string>();
  const text = output.length > SCANNED_CHARS ? output.slice(-SCANNED_CHARS) : output;
  for (const line of text.split("\n")) {
    if (lines.length >= MAX_LINES) break;
    const refusal = REFUSAL.exec(line);
    // The helper's own words are a failed start, said as such (failedStart).
    if (!refusal || line.startsWith("toolhost-confine: ")) continue;
    const error = /read-only file system|EROFS/i.test(line)
      ? "read-only"
      : /resource busy|EBUSY/i.test(line)
      ? "busy"
      : "denied";
    for (const candidate of pathsOn(line, refusal.index)) {
      const expanded = candidate === "~" || candidate.startsWith("~/")
        ? home + candidate.slice(1)
        : candidate;
      const path = isAbsolute(expanded) ? resolve(expanded) : resolve(cwd, expanded);
      if (seen.has(path)) continue;
      const refused = refusalOf(policy, path, error, git);
      if (!refused) continue;
      seen.add(path);
      const shown = path !== home && isWithin(home, path) ? `~${path.slice(home.length)}` : path;
      lines.push(
        `sandbox: refused ${refused.verb} ${
          bounded(shownName(shown), PATH_CHARS)
        } (${refused.why})`,
      );
      break;
    }
  }
  return lines;
}

/**
 * Gitignore rules as git and ripgrep apply them: a directory's .gitignore speaks about the paths
 * below it, deeper files override shallower ones, nothing inside an ignored directory comes back,
 * and a nested repository starts afresh. All the rules that apply under a walk's start directory
 * are rewritten to be relative to it, so one matcher (the `ignore` package, which checks parent
 * directories too) answers for any path.
 */
import { type FileHandle, lstat } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";
import { IgnoreFileReader, type Sandbox, type SkippedIgnoreFile } from "../sandbox/mod.ts";

interface Rule {
  negated: boolean;
  /** The pattern without `!`, a leading `/` or a trailing `/`. */
  body: string;
  dirOnly: boolean;
  /** A slash at the start or in the middle ties the pattern to its file's directory. */
  anchored: boolean;
}

function parse(line: string): Rule | undefined {
  let text = line.replace(/(?<!\\)\s+$/, "");
  if (text === "" || text.startsWith("#")) return undefined;
  const negated = text.startsWith("!");
  if (negated) text = text.slice(1);
  const dirOnly = text.endsWith("/");
  if (dirOnly) text = text.slice(0, -1);
  const anchored = text.includes("/");
  const body = text.replace(/^\//, "");
  return body === "" ? undefined : { negated, body, dirOnly, anchored };
}

function render(rule: Rule, body: string): string {
  return `${rule.negated ? "!" : ""}${body}${rule.dirOnly ? "/" : ""}`;
}

/** A rule from `<dir>/.gitignore` (dir relative to the start) as a rule of the start directory. */
export function nestedRule(line: string, dir: string): string | undefined {
  const rule = parse(line);
  if (!rule) return undefined;
  // A directory named like a pattern ("[draft]", "#tmp") must stay a literal name.
  const literal = dir.replace(/[*?[\]\\]|^[!#]/g, "\\$&");
  return render(rule, rule.anchored ? `${literal}/${rule.body}` : `${literal}/**/${rule.body}`);
}

const GLOB_CHARS = /[*?[\\]/;

function segmentMatches(glob: string, name: string): boolean {
  return GLOB_CHARS.test(glob) ? picomatch.isMatch(name, glob, { dot: true }) : glob === name;
}

/**
 * The patterns (as segment lists anchored at `inside`) that pattern `segments`, anchored at a
 * parent directory, amounts to for paths under its subdirectory `inside`. A pattern that ends at
 * `inside` or above says nothing about what is under it: a directory searched on purpose is
 * searched even when it is ignored.
 */
function rebase(segments: string[], inside: string[]): string[][] {
  if (inside.length === 0) return segments.length ? [segments] : [];
  if (segments.length === 0) return [];
  const [head, ...rest] = segments;
  if (head === "**") {
    // `**` swallows all of `inside` (then the rest may sit at any depth below), or part of it.
    const out = [segments];
    for (let k = 0; k < inside.length; k++) out.push(...rebase(rest, inside.slice(k)));
    return out;
  }
  return segmentMatches(head, inside[0]) ? rebase(rest, inside.slice(1)) : [];
}

/** A rule from a parent directory's ignore file, as rules of its subdirectory `inside`. */
export function rulesBelow(line: string, inside: string[]): string[] {
  const rule = parse(line);
  if (!rule) return [];
  if (!rule.anchored) return [render(rule, rule.body)];
  return rebase(rule.body.split("/"), inside).map((segments) =>
    render(rule, `/${segments.join("/")}`)
  );
}

const GIT_IGNORE = ".gitignore";
/** ripgrep's own ignore file: rg reads it whatever its flags say, and its rules win over git's. */
const RG_IGNORE = ".rgignore";

/** The only names within() looks for among a directory's entries. */
export const RULE_NAMES: ReadonlySet<string> = new Set([".git", GIT_IGNORE, RG_IGNORE]);

/** Whether `dir` holds a repository (a .git directory, or a worktree's .git file). */
async function isRepository(dir: string): Promise<boolean> {
  return (await lstat(join(dir, ".git")).catch(() => undefined)) !== undefined;
}

/**
 * The rules in force, in three groups checked as ripgrep checks them (one matcher, last match wins,
 * so the order of the groups is their precedence): the start's parents' rules, weakest (rg gets
 * them with --ignore-file); the .gitignore files met by the walk since the nearest repository root
 * (a directory holding .git starts a new repository: the enclosing one's rules stop there); and
 * the .rgignore files met by the walk, strongest, across repositories.
 */
interface Groups {
  parents: readonly string[];
  git: readonly string[];
  custom: readonly string[];
}

/** The ignore rules in force under one directory of a walk, relative to the walk's start. */
export class IgnoreRules {
  private constructor(
    private readonly reader: IgnoreFileReader,
    private readonly groups: Groups,
    private readonly matcher: Ignore,
  ) {}

  static #make(reader: IgnoreFileReader, groups: Groups): IgnoreRules {
    const lines = [...groups.parents, ...groups.git, ...groups.custom];
    // git and rg match case-sensitively; `ignore` would not by default.
    return new IgnoreRules(reader, groups, ignore({ ignorecase: false }).add(lines));
  }

  /**
   * No rules yet. Ignore files met later are read through a symbolic link only when `contains`
   * accepts the link's target (by default never).
   */
  static empty(
    contains: (real: string) => boolean = () => false,
    inside?: (real: string) => Promise<FileHandle>,
  ): IgnoreRules {
    return IgnoreRules.#make(new IgnoreFileReader(contains, inside), {
      parents: [],
      git: [],
      custom: [],
    });
  }

  /**
   * The rules that the ignore files of `start`'s parents hold for the paths under it, from the
   * innermost root of the sandbox that holds it down: nothing above a root counts, and no
   * .gitignore above the repository `start` is in.
   */
  static async above(
    sandbox: Pick<Sandbox, "roots" | "contains" | "openForReading">,
    start: string,
  ): Promise<IgnoreRules> {
    // Read beneath the held roots, never through a link: bytes from outside never become rules.
    const empty = IgnoreRules.empty(
      (real) => sandbox.contains(real),
      (real) => sandbox.openForReading(real),
    );
    // Walking up to the first root met finds the innermost one, with no prefix test to get wrong.
    const parents: string[] = [];
    for (let dir = start; !sandbox.roots.includes(dir);) {
      const up = dirname(dir);
      if (up === dir) return empty;
      parents.unshift(up);
      dir = up;
    }
    let gitFrom = 0;
    if (await isRepository(start)) gitFrom = parents.length;
    else {
      for (let i = parents.length - 1; i > 0; i--) {
        if (await isRepository(parents[i])) {
          gitFrom = i;
          break;
        }
      }
    }
    const lines: string[] = [];
    for (const [i, dir] of parents.entries()) {
      const below = relative(dir, start).split(sep);
      const names = i >= gitFrom ? [GIT_IGNORE, RG_IGNORE] : [RG_IGNORE];
      for (const name of names) {
        for (const line of linesOf(await empty.reader.read(join(dir, name)))) {
          lines.push(...rulesBelow(line, below));
        }
      }
    }
    return IgnoreRules.#make(empty.reader, { ...empty.groups, parents: lines });
  }

  /** The parents' rules (for rg's --ignore-file). */
  get parentLines(): readonly string[] {
    return this.groups.parents;
  }

  /** Ignore files met so far (by these rules and every set made from them) that were not read. */
  get skipped(): readonly SkippedIgnoreFile[] {
    return this.reader.skipped;
  }

  /**
   * These rules plus those of the ignore files in `dir` (`rel` is its path from the start, ""
   * for the start itself; `names` its entries, or at least those in RULE_NAMES, to read only
   * files that are there; `at`, where
   * to open one of them: an address beneath the open directory, see sandbox/_beneath.ts).
   */
  async within(
    dir: string,
    rel: string,
    names: ReadonlySet<string>,
    at?: (name: string) => string,
  ): Promise<IgnoreRules> {
    const newRepository = rel !== "" && names.has(".git");
    if (!newRepository && !names.has(GIT_IGNORE) && !names.has(RG_IGNORE)) return this;
    const own = async (name: string) => {
      if (!names.has(name)) return [];
      const lines = linesOf(await this.reader.read(join(dir, name), at?.(name)));
      const rebased = rel === "" ? lines : lines.map((line) => nestedRule(line, rel));
      return rebased.filter((line): line is string => line !== undefined && line !== "");
    };
    return IgnoreRules.#make(this.reader, {
      parents: this.groups.parents,
      git: [...(newRepository ? [] : this.groups.git), ...await own(GIT_IGNORE)],
      custom: [...this.groups.custom, ...await own(RG_IGNORE)],
    });
  }

  /** Whether `rel` (relative to the start, "/"-separated) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    const { parents, git, custom } = this.groups;
    if (parents.length + git.length + custom.length === 0) return false;
    return this.matcher.ignores(isDir ? `${rel}/` : rel);
  }
}

function linesOf(text: string): string[] {
  return text === "" ? [] : text.split(/\r?\n/);
}

/**
 * Gitignore rules as git applies them: a directory's .gitignore speaks about the paths below it,
 * deeper files override shallower ones, and nothing inside an ignored directory comes back.
 * All the rules that apply under a walk's start directory are rewritten to be relative to it, so
 * one matcher (the `ignore` package, which checks parent directories too) answers for any path.
 */
import { readFile } from "node:fs/promises";
import { dirname, join, relative, sep } from "node:path";
import ignore, { type Ignore } from "ignore";
import picomatch from "picomatch";

/** The ignore files honoured: git's, and ripgrep's own, which rg reads whatever its flags say. */
export const IGNORE_FILES = [".gitignore", ".rgignore"];

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

async function readRules(dir: string): Promise<string[]> {
  const lines: string[] = [];
  for (const name of IGNORE_FILES) {
    const text = await readFile(join(dir, name), "utf8").catch(() => "");
    lines.push(...text.split(/\r?\n/));
  }
  return lines;
}

/** The ignore rules in force under one directory of a walk, relative to the walk's start. */
export class IgnoreRules {
  private constructor(
    /** The rules, in order: a later one wins over an earlier one. */
    readonly lines: readonly string[],
    private readonly matcher: Ignore,
  ) {}

  static readonly none = new IgnoreRules([], ignore());

  /**
   * The rules that the ignore files of `start`'s parents hold for the paths under it, from the
   * innermost of `roots` (the sandbox's) that contains it down: nothing above a root counts.
   */
  static async above(roots: readonly string[], start: string): Promise<IgnoreRules> {
    const inside = (root: string) => start.startsWith(root.endsWith(sep) ? root : root + sep);
    const top = roots.filter(inside).sort((a, b) => b.length - a.length)[0];
    if (top === undefined) return IgnoreRules.none;
    const parents: string[] = [];
    for (let dir = dirname(start);; dir = dirname(dir)) {
      parents.unshift(dir);
      if (dir === top) break;
    }
    const lines: string[] = [];
    for (const dir of parents) {
      const below = relative(dir, start).split(sep);
      for (const line of await readRules(dir)) lines.push(...rulesBelow(line, below));
    }
    return IgnoreRules.none.#with(lines);
  }

  #with(lines: string[]): IgnoreRules {
    if (lines.length === 0) return this;
    return new IgnoreRules([...this.lines, ...lines], ignore().add(this.matcher).add(lines));
  }

  /**
   * These rules plus those of the ignore files in `dir` (`rel` is its path from the start, ""
   * for the start itself; `names` its entries, to read only files that are there).
   */
  async within(dir: string, rel: string, names: ReadonlySet<string>): Promise<IgnoreRules> {
    if (!IGNORE_FILES.some((name) => names.has(name))) return this;
    const lines = await readRules(dir);
    const own = rel === "" ? lines : lines.map((line) => nestedRule(line, rel));
    return this.#with(own.filter((line): line is string => line !== undefined && line !== ""));
  }

  /** Whether `rel` (relative to the start, "/"-separated) is ignored. */
  ignores(rel: string, isDir: boolean): boolean {
    return this.lines.length > 0 && this.matcher.ignores(isDir ? `${rel}/` : rel);
  }
}

/**
 * Finding Agent Skills: every valid one in the sources (for the tool's description), or one by
 * name (when it is called). Both read the same directories in the same order, so the skill a
 * call gets is the one the description listed, unless the disk changed since.
 */
import type { Dirent } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join } from "node:path";
import process from "node:process";
import { ToolError } from "../../../mcp/tool/mod.ts";
import { quoted } from "../../../config/quote.ts";
import { pathRulesFor } from "../../_lib/sandbox/mod.ts";
import {
  InvalidSkill,
  isSkillName,
  parseSkill,
  readFrontMatter,
  readSkillFile,
  type SkillText,
} from "./skill_file.ts";
import type { Settings } from "../../../config/settings.ts";
import { type SkillScope, type SkillSource, sourcesFor } from "./skill_sources.ts";

export interface Skill {
  name: string;
  description: string;
  scope: SkillScope;
  /** The skill's directory, absolute. */
  dir: string;
  /** Its SKILL.md. */
  file: string;
}

/** A skill read whole for a call. */
export interface LoadedSkill extends Skill, SkillText {
  /** Whether SKILL.md was read to its end (else `body` stops partway). */
  whole: boolean;
}

export interface Discovery {
  /** Valid skills by name, each the one that wins its name. */
  skills: Skill[];
  /** Sentences about skills that were skipped, to report. */
  problems: string[];
  /** Skill directories hidden by a skill of the same name that wins; they are not read. */
  overrides: { winner: Skill; hidden: { scope: SkillScope; dir: string } }[];
  /** Names of skill directories left unread because MAX_SKILLS skills were found first. */
  unread: number;
}

/** More are not offered (a description lists so many already), nor read. */
export const MAX_SKILLS = 200;

/** Enough for any real SKILL.md: a skill is read up to this many bytes for a call. */
export const MAX_SKILL_BYTES = 1024 * 1024;

/** The sources that exist, each once even when reached by two paths. */
async function existing(sources: SkillSource[]): Promise<SkillSource[]> {
  const seen = new Set<string>();
  const found: SkillSource[] = [];
  for (const source of sources) {
    const real = await realpath(source.dir).catch(() => null);
    if (real === null || seen.has(real)) continue;
    seen.add(real);
    found.push(source);
  }
  return found;
}

/** Whether an entry of a skills directory is a directory, following a link (one stat at most). */
async function isDirectory(entry: Dirent, path: string): Promise<boolean> {
  if (entry.isDirectory()) return true;
  if (entry.isFile()) return false;
  return (await stat(path).catch(() => null))?.isDirectory() ?? false;
}

/** An unreadable SKILL.md as the reason its skill is skipped. */
function unreadable(error: unknown): InvalidSkill {
  if (error instanceof InvalidSkill) return error;
  const code = (error as NodeJS.ErrnoException).code;
  return new InvalidSkill(
    code === "ENOENT" ? "it has no SKILL.md" : `its SKILL.md cannot be read (${code})`,
  );
}

const rules = pathRulesFor(process.platform);

/**
 * A project's SKILL.md must resolve inside the project: a repository's skills directory is the
 * repository's, and a link in it to ~/.ssh/id_rsa or /etc must not become a skill whose text
 * reaches the model. Skills in the home and configured directories may link anywhere (the user
 * put them there). Checked, then read by path.
 */
async function checkInsideProject(source: SkillSource, file: string): Promise<void> {
  if (source.project === undefined) return;
  const [top, real] = await Promise.all([realpath(source.project), realpath(file)]).catch(
    (error) => {
      throw unreadable(error);
    },
  );
  if (!rules.contains(top, real)) {
    throw new InvalidSkill(
      `its SKILL.md leads out of the project (to ${real}); a project's skills must lie inside ` +
        "it (name other skill directories in TOOLHOST_SKILL_DIRS)",
    );
  }
}

/** A skill directory's name and description, from its SKILL.md's front matter only. */
async function loadHeader(dir: string, name: string, source: SkillSource): Promise<Skill> {
  const { scope } = source;
  const file = join(dir, "SKILL.md");
  await checkInsideProject(source, file);
  const text = await readFrontMatter(file).catch((error) => {
    throw unreadable(error);
  });
  const { description } = await parseSkill(text, name);
  return { name, description, scope, dir, file };
}

export async function discoverSkills(sources: SkillSource[]): Promise<Discovery> {
  const byName = new Map<string, Skill>();
  const problems: string[] = [];
  const overrides: Discovery["overrides"] = [];
  const unread = new Set<string>();
  for (const source of await existing(sources)) {
    let entries: Dirent[];
    try {
      entries = await readdir(source.dir, { withFileTypes: true });
    } catch (error) {
      problems.push(`${source.dir} cannot be listed: ${(error as Error).message}`);
      continue;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      const { name } = entry;
      // Files beside the skills (a README) are not skills; hidden directories are not either.
      if (name[0] === ".") continue;
      const dir = join(source.dir, name);
      const winner = byName.get(name);
      if (byName.size >= MAX_SKILLS && !winner) {
        // Counted by name only: reading thousands of skills nobody is offered costs seconds.
        if (isSkillName(name) && !entry.isFile()) unread.add(name);
        continue;
      }
      if (!(await isDirectory(entry, dir))) continue;
      if (winner) {
        overrides.push({ winner, hidden: { scope: source.scope, dir } });
        continue;
      }
      try {
        byName.set(name, await loadHeader(dir, name, source));
      } catch (error) {
        if (!(error instanceof InvalidSkill)) throw error;
        problems.push(`skipped the skill in ${dir}: ${error.message}`);
      }
    }
  }
  if (unread.size) {
    problems.push(
      `${unread.size} more skill directories were not read: only ${MAX_SKILLS} skills are ` +
        `offered (${[...unread].slice(0, 5).join(", ")}${unread.size > 5 ? ", …" : ""})`,
    );
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { skills, problems, overrides, unread: unread.size };
}

/**
 * The skill called `name` that wins in `sources`, read whole up to `maxBytes`. When there is
 * none, the ToolError says what was found instead.
 */
export async function findSkill(
  name: string,
  sources: SkillSource[],
  maxBytes: number,
): Promise<LoadedSkill> {
  if (!isSkillName(name)) {
    throw new ToolError(`${quoted(name)} is not a skill name`);
  }
  const present = await existing(sources);
  const problems: string[] = [];
  for (const source of present) {
    const dir = join(source.dir, name);
    if (await realpath(dir).catch(() => null) === null) continue;
    const file = join(dir, "SKILL.md");
    try {
      await checkInsideProject(source, file);
      const { text, whole } = await readSkillFile(file, maxBytes).catch((error) => {
        throw unreadable(error);
      });
      return { ...await parseSkill(text, name), scope: source.scope, dir, file, whole };
    } catch (error) {
      if (!(error instanceof InvalidSkill)) throw error;
      problems.push(`${dir} was skipped: ${error.message}`);
    }
  }
  throw new ToolError(
    problems.length
      ? `no usable skill is named ${name}: ${problems.join("; ")}`
      : `no skill is named ${name}; looked in ${sources.map((s) => s.dir).join(", ")}`,
  );
}

/**
 * The skill called `name` as a call finds it: looked up again in that call's roots (they count,
 * and the skill may have changed since start), read up to MAX_SKILL_BYTES.
 */
export async function skillForCall(
  name: string,
  ctx: { roots(): Promise<string[]>; readonly config: Pick<Settings, "skillDirs"> },
): Promise<LoadedSkill> {
  return await findSkill(name, sourcesFor(await ctx.roots(), ctx.config), MAX_SKILL_BYTES);
}

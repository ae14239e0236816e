/**
 * Finding Agent Skills: every valid one in the sources (for the tool's description), or one by
 * name (when it is called). Both read the same directories in the same order, so the skill a
 * call gets is the one the description listed, unless the disk changed since.
 */
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";
import { ToolError } from "../../mcp/tool.ts";
import { InvalidSkill, isSkillName, parseSkill, readHead, type SkillText } from "./skill_file.ts";
import type { SkillScope, SkillSource } from "./skill_sources.ts";

export interface Skill {
  name: string;
  description: string;
  scope: SkillScope;
  /** The skill's directory, absolute. */
  dir: string;
  /** Its SKILL.md. */
  file: string;
}

export interface Discovery {
  /** Valid skills by name, each the one that wins its name. */
  skills: Skill[];
  /** Sentences about skills that were skipped, to report. */
  problems: string[];
  /** Skills hidden by one of the same name that wins. */
  overrides: { winner: Skill; hidden: Skill }[];
}

/** Front matter must end within this much of SKILL.md. */
const HEADER_BYTES = 64 * 1024;
/** More are not offered (a description lists so many already). */
export const MAX_SKILLS = 200;

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

/** Reads one skill directory's SKILL.md; the header only, unless `maxBytes` says more. */
async function loadSkill(
  dir: string,
  scope: SkillScope,
  maxBytes = HEADER_BYTES,
): Promise<Skill & SkillText> {
  const file = join(dir, "SKILL.md");
  let text: string;
  try {
    text = await readHead(file, maxBytes);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new InvalidSkill(
      code === "ENOENT" ? "it has no SKILL.md" : `its SKILL.md cannot be read (${code})`,
    );
  }
  return { ...await parseSkill(text, basename(dir)), scope, dir, file };
}

export async function discoverSkills(sources: SkillSource[]): Promise<Discovery> {
  const byName = new Map<string, Skill>();
  const problems: string[] = [];
  const overrides: Discovery["overrides"] = [];
  for (const source of await existing(sources)) {
    let names: string[];
    try {
      names = await readdir(source.dir);
    } catch (error) {
      problems.push(`${source.dir} cannot be listed: ${(error as Error).message}`);
      continue;
    }
    for (const name of names.sort()) {
      const dir = join(source.dir, name);
      // Files beside the skills (a README) are not skills; hidden directories are not either.
      if (name[0] === "." || !(await stat(dir).catch(() => null))?.isDirectory()) continue;
      let skill: Skill;
      try {
        const { description, file } = await loadSkill(dir, source.scope);
        skill = { name, description, scope: source.scope, dir, file };
      } catch (error) {
        if (!(error instanceof InvalidSkill)) throw error;
        problems.push(`skipped the skill in ${dir}: ${error.message}`);
        continue;
      }
      const winner = byName.get(skill.name);
      if (winner) {
        overrides.push({ winner, hidden: skill });
      } else if (byName.size < MAX_SKILLS) {
        byName.set(skill.name, skill);
      } else {
        problems.push(`skipped the skill in ${dir}: only ${MAX_SKILLS} skills are offered`);
      }
    }
  }
  const skills = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : 1));
  return { skills, problems, overrides };
}

/**
 * The skill called `name` that wins in `sources`, read whole up to `maxBytes`. When there is
 * none, the ToolError says what was found instead.
 */
export async function findSkill(
  name: string,
  sources: SkillSource[],
  maxBytes: number,
): Promise<Skill & SkillText> {
  if (!isSkillName(name)) {
    throw new ToolError(`${JSON.stringify(name)} is not a skill name`);
  }
  const present = await existing(sources);
  const problems: string[] = [];
  for (const source of present) {
    const dir = join(source.dir, name);
    if (await realpath(dir).catch(() => null) === null) continue;
    try {
      return await loadSkill(dir, source.scope, maxBytes);
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

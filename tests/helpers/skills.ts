/** Skills on disk for the skills tests: SKILL.md text, a skill directory, a project and a home. */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { type SkillSource, skillSources } from "../../tools/skills/_lib/skill_sources.ts";
import { scratchDir } from "./file_tools.ts";

export const skillMd = (name: string, description: string, body = "Do the thing.\n") =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${body}`;

/** Writes `<skillsDir>/<dir>/SKILL.md` (and any other files) and returns the skill's directory. */
export function writeSkill(
  skillsDir: string,
  dir: string,
  text: string,
  files: Record<string, string> = {},
): string {
  const at = join(skillsDir, dir);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, "SKILL.md"), text);
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(at, path, ".."), { recursive: true });
    writeFileSync(join(at, path), content);
  }
  return at;
}

/** A project and a home directory, each with its skills directories. */
export function places() {
  const project = scratchDir("toolhost-skills-project-");
  const home = scratchDir("toolhost-skills-home-");
  const sources: SkillSource[] = skillSources({ projects: [project], configured: [], home });
  return {
    project,
    home,
    sources,
    projectSkills: join(project, ".claude", "skills"),
    projectAgents: join(project, ".agents", "skills"),
    userSkills: join(home, ".claude", "skills"),
    userAgents: join(home, ".agents", "skills"),
  };
}

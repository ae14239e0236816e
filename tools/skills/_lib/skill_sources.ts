/**
 * Where skills are looked for, in precedence order: the project's directories, then those the
 * user configured, then the user's own. The first skill of a name wins.
 */
import { homedir } from "node:os";
import { delimiter, join, resolve } from "node:path";
import process from "node:process";
import type { Settings } from "../../../config/settings.ts";

export type SkillScope = "project" | "configured" | "user";

/** A directory whose subdirectories are skills (`<dir>/<name>/SKILL.md`). */
export interface SkillSource {
  dir: string;
  scope: SkillScope;
  /** A project's skills: the project directory their SKILL.md files must lie inside. */
  project?: string;
}

/** The skills directories a project or a home directory holds, in the order they win. */
const SKILL_DIRS = [".claude/skills", ".agents/skills"];

interface SkillPlaces {
  /** Project directories, the first winning. */
  projects: string[];
  /** Skills directories the user named (TOOLHOST_SKILL_DIRS). */
  configured: string[];
  home: string;
}

export function skillSources(places: SkillPlaces): SkillSource[] {
  const sources: SkillSource[] = [
    // Started in the home directory, its skills are still the user's own.
    ...places.projects.filter((root) => root !== places.home).flatMap((root) =>
      SKILL_DIRS.map((dir) => ({ dir: join(root, dir), scope: "project" as const, project: root }))
    ),
    ...places.configured.map((dir) => ({ dir, scope: "configured" as const })),
    ...SKILL_DIRS.map((dir) => ({ dir: join(places.home, dir), scope: "user" as const })),
  ];
  const seen = new Set<string>();
  return sources.filter((source) => !seen.has(source.dir) && seen.add(source.dir));
}

/**
 * The directories in TOOLHOST_SKILL_DIRS (separated like PATH), absolute; `~` stands for the
 * home directory, since a client's `env` block does not expand it.
 */
export function configuredSkillDirs(value = process.env.TOOLHOST_SKILL_DIRS ?? ""): string[] {
  return value.split(delimiter).filter((dir) => dir.trim() !== "").map((dir) =>
    resolve(dir === "~" || dir.startsWith("~/") ? homedir() + dir.slice(1) : dir)
  );
}

/** Where skills are looked for when the call's roots are `roots`; the working directory too. */
export function sourcesFor(roots: string[], config: Pick<Settings, "skillDirs">): SkillSource[] {
  return skillSources({
    projects: [...roots, process.cwd()],
    configured: config.skillDirs.length ? config.skillDirs : configuredSkillDirs(),
    home: homedir(),
  });
}

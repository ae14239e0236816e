/**
 * The skill tool's description as a client sees it: the skills found, each with what it is for,
 * so the model knows when to load one. Bounded, since it rides in every prompt.
 */
import { oneLine } from "../../_lib/text/one_line.ts";
import { count } from "../../_lib/text/units.ts";
import { type Discovery, MAX_SKILLS } from "./skills.ts";
import type { SkillSource } from "./skill_sources.ts";

const MAX_LISTED = 100;
const MAX_LISTING_CHARS = 12_000;
const MAX_SHOWN_DESCRIPTION = 300;

export const SKILL_TOOL_INTRO =
  "Loads an Agent Skill: instructions for a kind of task (a SKILL.md), with the " +
  "scripts, references or templates bundled beside it. When a task matches a skill's " +
  "description, call this with its `name` before starting, then follow what it returns.";

export function skillToolDescription(found: Discovery, sources: SkillSource[]): string {
  if (found.skills.length === 0) {
    // The places looked in, which are also where a skill may be added (the project's and the
    // home directory's .claude/skills and .agents/skills, then TOOLHOST_SKILL_DIRS).
    return `${SKILL_TOOL_INTRO}\n\nNo skills were found when the server started (looked in ${
      sources.map((s) => s.dir).join(", ")
    }; TOOLHOST_SKILL_DIRS adds more). A skill added since (<skills dir>/<name>/SKILL.md) can be ` +
      "loaded by its name.";
  }
  const overriding = new Map(found.overrides.map((o) => [o.winner.name, o.hidden.scope]));
  const lines: string[] = [];
  let chars = 0;
  for (const skill of found.skills) {
    const hidden = overriding.get(skill.name);
    const line = `- ${skill.name} (${skill.scope}${
      hidden && hidden !== skill.scope ? `; overrides a ${hidden} skill` : ""
    }): ${oneLine(skill.description, MAX_SHOWN_DESCRIPTION)}`;
    if (lines.length === MAX_LISTED || chars + line.length > MAX_LISTING_CHARS) break;
    lines.push(line);
    chars += line.length;
  }
  const rest = found.skills.length - lines.length;
  if (rest > 0) lines.push(`- …and ${rest} more (their names are in the \`name\` enum)`);
  if (found.unread > 0) {
    lines.push(
      `(${count(found.unread)} more skill directories were not read: only ${MAX_SKILLS} skills ` +
        "are offered)",
    );
  }
  return `${SKILL_TOOL_INTRO}\n\nSkills available:\n${lines.join("\n")}`;
}

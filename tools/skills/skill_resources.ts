/**
 * Skills for clients that show resources and prompts: each skill's SKILL.md as
 * toolhost://skills/{name}, and each skill as a prompt (a slash command in most clients) whose
 * `arguments` fill $ARGUMENTS as the skill tool does. Both look the skills up per request, in
 * that request's roots, so they match what the skill tool would load, and both lists are
 * watched in the subscribing client's roots.
 */
import {
  definePrompts,
  defineResourceTemplate,
  type PromptSpec,
  type ReadContext,
  ResourceNotFound,
} from "../../mcp/features/mod.ts";
import { ToolError } from "../../mcp/tool/mod.ts";
import { readSkillFile } from "./_lib/skill_file.ts";
import { watchSkills } from "./_lib/skill_watch.ts";
import { discoverSkills, MAX_SKILL_BYTES, type Skill, skillForCall } from "./_lib/skills.ts";
import { sourcesFor } from "./_lib/skill_sources.ts";
import { ARGUMENTS, fillArguments } from "./_lib/skill_text.ts";
import { count } from "../_lib/text/units.ts";

/** A prompt's text, like every tool's output. */
const MAX_PROMPT_CHARS = 30_000;

async function skillsOf(ctx: ReadContext): Promise<Skill[]> {
  return (await discoverSkills(sourcesFor(await ctx.roots(), ctx.config))).skills;
}

const skillFiles = defineResourceTemplate({
  uriTemplate: "toolhost://skills/{name}",
  name: "skill",
  title: "Skill",
  description: "A skill's SKILL.md (Agent Skills format: YAML front matter, then markdown " +
    "instructions), by the skill's name.",
  mimeType: "text/markdown",
  requires: "skill",
  async read({ name }, ctx) {
    const skill = await skillForCall(name, ctx).catch((error) => {
      throw error instanceof ToolError ? new ResourceNotFound(error.message) : error;
    });
    const { text, whole } = await readSkillFile(skill.file, MAX_SKILL_BYTES);
    return whole
      ? text
      : `${text}\n\n[cut at ${count(MAX_SKILL_BYTES)} bytes; the whole file is ${skill.file}]\n`;
  },
  complete: {
    name: async (value, ctx) =>
      (await skillsOf(ctx)).map((s) => s.name).filter((name) => name.startsWith(value)),
  },
  list: async (ctx) =>
    (await skillsOf(ctx)).map((skill) => ({
      uri: `toolhost://skills/${skill.name}`,
      name: skill.name,
      description: skill.description,
      mimeType: "text/markdown",
    })),
  // Which file a name reads can change with any skill directory (the first source wins), so
  // one skill is watched as all of them are: extra notifications are harmless.
  watch: (_variables, ctx, changed) => watchSkills(ctx, changed),
  watchList: watchSkills,
});

const skillPrompts = definePrompts({
  requires: "skill",
  list: async (ctx) => (await skillsOf(ctx)).map(promptOf),
  watchList: watchSkills,
});

function promptOf(skill: Skill): PromptSpec {
  return {
    name: skill.name,
    title: `Skill: ${skill.name}`,
    description: skill.description,
    arguments: [{
      name: "arguments",
      description: `Replaces ${ARGUMENTS} in the skill's text; when it has none, it is ` +
        "appended as `ARGUMENTS: …`.",
    }],
    async get(args, ctx) {
      const loaded = await skillForCall(skill.name, ctx);
      const given = args.arguments ?? "";
      const placed = loaded.body.includes(ARGUMENTS);
      const page = fillArguments(loaded.body, given, MAX_PROMPT_CHARS, loaded.whole);
      const parts = [page.text];
      if (page.stoppedAt !== undefined) {
        parts.push(
          `[the skill's text was cut before line ${loaded.bodyLine + page.stoppedAt} of ` +
            `${loaded.file}; read the rest there]`,
        );
      }
      if (!placed && given) parts.push(`ARGUMENTS: ${given}`);
      return {
        description: loaded.description,
        messages: [{ role: "user", content: { type: "text", text: parts.join("\n\n") } }],
      };
    },
  };
}

export default [skillFiles, skillPrompts];
